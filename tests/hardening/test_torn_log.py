"""The call log after a fault (issue 21): a torn line never blocks a study, no paid call goes unrecorded,
and `log verify` compares the store and the log in both directions."""

from __future__ import annotations

import errno
import json
import os

import pytest

import workbench.gateway.calllog as calllog
from store.calls import calls_for
from tests.hardening.conftest import STUDY, batch
from tests.runner.studykit import create, gateway, study_text
from tests.support.loopback import loopback_server  # noqa: F401  (fixture)
from tests.support.study_fixtures import server, store  # noqa: F401  (fixtures)
from workbench.paths import logs_dir
from workbench.runs.runner import run_study


def _log(db_path, study=STUDY):
    return logs_dir(db_path) / f"{study}.jsonl"


def test_a_torn_unrecorded_tail_is_cut_before_the_next_call_and_named_by_verify(created, capsys):
    code, _, err = batch(capsys, created, "run", STUDY)
    assert code == 0, err
    log = _log(created)
    lines = log.read_bytes().count(b"\n")
    half = b'{"agent":"model","api_base":null,"attempt":1,"call_key":"ab'  # half a JSON line, no newline
    with open(log, "ab") as fh:
        fh.write(half)
    code, _, err = batch(capsys, created, "judge", STUDY)        # new calls on the same log
    assert code == 0, err
    data = log.read_bytes()
    assert half not in data and data.endswith(b"\n")
    assert json.loads(data.splitlines()[lines])["seq"] == lines + 1  # the chain goes on where it was whole
    code, out, err = batch(capsys, created, "log", "verify", STUDY)
    assert code == 0, out + err
    assert f"tail repaired at line {lines + 1}: {len(half)} bytes of an unrecorded line removed" in out


def test_a_torn_line_the_store_recorded_is_never_removed_and_stops_every_call(created, capsys):
    code, _, err = batch(capsys, created, "run", STUDY)
    assert code == 0, err
    log = _log(created)
    data = log.read_bytes()
    log.write_bytes(data[:-20])                                    # the last, recorded line cut short
    code, _, err = batch(capsys, created, "judge", STUDY)
    assert code == 1 and "is corrupted" in err and "recorded" in err, err
    assert log.read_bytes() == data[:-20]                          # nothing removed
    code, out, err = batch(capsys, created, "log", "verify", STUDY)
    assert code == 1


def test_a_store_side_forged_response_is_caught(created, capsys):
    code, _, err = batch(capsys, created, "run", STUDY)
    assert code == 0, err
    import sqlite_utils

    db = sqlite_utils.Database(created)
    call = next(db["calls"].rows_where("status = 'ok' and study_id = ?", [STUDY], limit=1))
    db["calls"].update(call["id"], {"response": "a forged answer"})
    code, out, err = batch(capsys, created, "log", "verify", STUDY)
    assert code == 1
    assert f"line {call['log_line']}" in out + err and "response" in out + err


class FillingDisk:
    """The call log's writes succeed for `budget` bytes, then write part of a line and fail with ENOSPC,
    as a filesystem that fills mid-line does."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.real = os.write

    def write(self, fd, data):
        if self.budget <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = min(len(data), self.budget)
        self.budget -= n
        return self.real(fd, bytes(data[:n]))


async def test_a_disk_that_fills_mid_run_then_frees_finishes_with_every_request_recorded(store, server,
                                                                                        monkeypatch):
    db, db_path = store
    study_id = create(db, study_text("disk-fills", conditions=("B1", "B2", "C1"), api_base=server.url))
    import shutil
    from collections import namedtuple

    disk = FillingDisk(budget=400_000)
    monkeypatch.setattr(calllog.os, "write", disk.write)
    usage = namedtuple("usage", "total used free")       # what statvfs says of the filling disk
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - disk.budget, disk.budget))
    from store import DiskFull

    with pytest.raises(DiskFull):
        await run_study(db, gateway(db, db_path), study_id)
    disk.budget = 10**9                                             # space freed
    monkeypatch.setattr(calllog.os, "write", disk.real)
    summary = await run_study(db, gateway(db, db_path), study_id)  # resumes: done runs stay done
    assert summary.complete
    sent = [c for c in calls_for(db, study_id=study_id) if c["status"] in ("ok", "error")]
    assert server.count == len(sent)          # every request the server received is on record
    from workbench.gateway.logcheck import check_log

    assert check_log(db, study_id, _log(db_path, study_id)).ok


async def test_no_request_goes_out_when_its_record_would_not_fit(store, server, monkeypatch):
    import shutil
    from collections import namedtuple

    db, db_path = store
    study_id = create(db, study_text("no-room", api_base=server.url))
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 1000, 1000))
    from store import DiskFull

    with pytest.raises(DiskFull) as info:
        await run_study(db, gateway(db, db_path), study_id)
    assert "the call log" in str(info.value) and server.count == 0
