"""`packet export` records a packet only once its file is written whole (issue 14): a write that fails
leaves no temporary file, no export row and the previous file as it was; a record that fails removes
the file just written."""

from __future__ import annotations

import errno
import json
import os

import pytest

from store import open_memory_store
from tests.blinding.study_fixture import make_study
from tests.hardening.conftest import batch, workbench_lines
from workbench.scoring import packets
from workbench.scoring.packets import export_packet, import_packet


@pytest.fixture
def db():
    db = open_memory_store()
    yield db
    db.close()


def exports(db) -> int:
    return db["packet_exports"].count


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_path_that_cannot_be_written_records_nothing_and_leaves_no_tmp(db, tmp_path):
    sid = make_study(db)
    out = tmp_path / "packet.json"
    out.mkdir()  # a directory where the file should go: the write succeeds, the rename onto it cannot
    with pytest.raises(OSError):
        export_packet(db, sid, "rater-a", out)
    assert exports(db) == 0 and leftovers(tmp_path) == [] and out.is_dir()


def test_a_write_that_fails_half_way_keeps_the_previous_packet(db, tmp_path, monkeypatch):
    sid = make_study(db)
    out = tmp_path / "packet.json"
    export_packet(db, sid, "rater-a", out)
    previous = out.read_text(encoding="utf-8")

    def full(fd):  # the disk fills before the data is safe
        raise OSError(errno.ENOSPC, "No space left on device")

    import workbench.files.whole as whole  # packets are written whole by workbench.files

    monkeypatch.setattr(whole.os, "fsync", full)
    with pytest.raises(OSError):
        export_packet(db, sid, "rater-a", out)
    assert exports(db) == 1  # only the first export
    assert out.read_text(encoding="utf-8") == previous and leftovers(tmp_path) == []


def test_a_record_that_fails_removes_the_file_it_would_describe(db, tmp_path, monkeypatch):
    sid = make_study(db)
    out = tmp_path / "packet.json"

    def refused(db, row):
        raise RuntimeError("the store refused the row")

    monkeypatch.setattr(packets.packet_rows, "record_export", refused)
    with pytest.raises(RuntimeError):
        export_packet(db, sid, "rater-a", out)
    assert not out.exists() and leftovers(tmp_path) == [] and exports(db) == 0


def test_the_export_is_recorded_after_the_file_exists(db, tmp_path, monkeypatch):
    sid = make_study(db)
    out = tmp_path / "packet.json"
    seen = []
    real = packets.packet_rows.record_export

    def record(db, row):
        seen.append(json.loads(out.read_text(encoding="utf-8"))["sealed"]["packet_id"] == row["packet_id"])
        real(db, row)

    monkeypatch.setattr(packets.packet_rows, "record_export", record)
    summary = export_packet(db, sid, "rater-a", out)
    assert seen == [True] and exports(db) == 1
    assert import_packet(db, out).packet_id == summary["packet_id"]  # a recorded packet imports


def test_the_batch_command_names_the_path_and_exits_1(created, capsys, tmp_path):
    code, _, err = batch(capsys, created, "run", "hardening-mock")
    assert code == 0, err
    out = tmp_path / "out" / "packet.json"
    out.mkdir(parents=True)
    code, _, err = batch(capsys, created, "packet", "export", "hardening-mock", "--rater", "rater-a",
                         "--out", str(out))
    assert code == 1 and "Traceback" not in err
    [line] = workbench_lines(err)
    assert str(out) in line
    from store import open_store

    store = open_store(created)
    assert store["packet_exports"].count == 0
    store.close()
    assert leftovers(out.parent) == [] and os.path.isdir(out)
