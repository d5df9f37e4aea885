"""A full disk: every command fails with one clear line and exit 1, nothing stored is lost, runs are
marked interrupted, and `run --resume` finishes the study once space is freed."""

from __future__ import annotations

import os

from store import open_store
from store.runs import list_runs, status_counts
from tests.hardening.conftest import STUDY, batch, full_temp_files, symlink_to_dev_full, workbench_lines
from workbench.paths import logs_dir


def _statuses(db) -> dict[str, int]:
    store = open_store(db)
    try:
        return {k: v for k, v in status_counts(store, STUDY).items() if v}
    finally:
        store.close()


def _one_clear_line(code: int, err: str, *needles: str) -> str:
    assert code == 1, err
    assert "Traceback" not in err, err
    lines = workbench_lines(err)
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("workbench: no space left: could not write"), line
    for needle in needles:
        assert needle in line, line
    return line


def test_a_run_on_a_full_store_stops_with_one_line_marks_runs_interrupted_and_resumes(created, full_store,
                                                                                     capsys):
    full_store.fill(headroom=12)  # room for the run rows and a few calls, not for C2's 27
    code, _, err = batch(capsys, created, "run", STUDY)
    _one_clear_line(code, err, str(created), "--resume")
    statuses = _statuses(created)
    assert statuses.get("interrupted", 0) >= 1, statuses
    assert "running" not in statuses and "failed" not in statuses, statuses

    full_store.free()
    code, out, err = batch(capsys, created, "run", STUDY, "--resume")
    assert code == 0, err
    assert _statuses(created) == {"done": 3}
    assert "complete" in out


def test_a_call_log_that_cannot_grow_stops_the_run_naming_the_log(created, capsys):
    log = logs_dir(created) / f"{STUDY}.jsonl"
    symlink_to_dev_full(log)
    code, _, err = batch(capsys, created, "run", STUDY)
    _one_clear_line(code, err, "the call log", str(log))
    statuses = _statuses(created)
    assert set(statuses) == {"interrupted"}, statuses  # no call could be logged, so none completed

    log.unlink()
    code, _, err = batch(capsys, created, "run", STUDY, "--resume")
    assert code == 0, err
    assert _statuses(created) == {"done": 3}
    code, out, err = batch(capsys, created, "log", "verify", STUDY)
    assert code == 0, out + err


def _ran(created, capsys):
    code, _, err = batch(capsys, created, "run", STUDY)
    assert code == 0, err


def test_judge_packet_export_and_report_on_a_full_store_each_fail_with_one_line(created, full_store, capsys,
                                                                                 tmp_path):
    _ran(created, capsys)
    store = open_store(created)
    runs_before = [(r["id"], r["status"]) for r in list_runs(store, STUDY)]
    store.close()

    full_store.fill_to_the_brim(created)
    for argv in (["judge", STUDY],
                 ["packet", "export", STUDY, "--rater", "rater-a", "--out", str(tmp_path / "a.json")],
                 ["report", STUDY, "--out", str(tmp_path / "r.md")]):
        code, _, err = batch(capsys, created, *argv)
        assert code == 1, argv
        _one_clear_line(code, err, str(created))
    full_store.free()

    store = open_store(created)
    assert [(r["id"], r["status"]) for r in list_runs(store, STUDY)] == runs_before  # nothing lost
    store.close()
    code, _, err = batch(capsys, created, "judge", STUDY)  # the mock's verdicts are judge errors: exit 0
    assert "Traceback" not in err and code in (0, 1), err
    code, _, err = batch(capsys, created, "report", STUDY, "--out", str(tmp_path / "r.md"))
    assert code == 0, err


def test_a_packet_or_report_file_that_cannot_be_written_is_named_and_nothing_is_replaced(created, capsys,
                                                                                         tmp_path, monkeypatch):
    _ran(created, capsys)
    packet = tmp_path / "out" / "packet.json"
    report = tmp_path / "out" / "report.md"
    report.parent.mkdir()
    report.write_text("the previous report\n")
    full_temp_files(monkeypatch)
    code, _, err = batch(capsys, created, "packet", "export", STUDY, "--rater", "rater-a", "--out", str(packet))
    line = _one_clear_line(code, err, "the packet", str(packet))
    assert "--resume" not in line  # a packet is simply exported again
    assert not packet.exists()

    code, _, err = batch(capsys, created, "report", STUDY, "--out", str(report))
    line = _one_clear_line(code, err, "the report", str(report))
    assert "--resume" not in line
    assert report.read_text() == "the previous report\n"
    assert sorted(p.name for p in report.parent.iterdir()) == ["report.md"]  # no temporary file left behind
    assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")
