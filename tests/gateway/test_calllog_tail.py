"""The call log's tail check before each call (issue 40): free when the log ends where this process's last
write left it, and still a torn line's finder when another writer changed it since."""

from __future__ import annotations

import pytest

import workbench.gateway.calllog as calllog
from workbench.gateway.calllog import CallLog, TornTail


def test_a_log_ending_where_our_last_write_left_it_is_not_opened(tmp_path, monkeypatch):
    log = CallLog(tmp_path / "s.jsonl")
    log.append({"call": 1})

    def no_open(*args, **kwargs):
        raise AssertionError("the tail check opened the log")

    monkeypatch.setattr(calllog, "open", no_open, raising=False)
    log.check_tail()


def test_a_line_torn_by_another_writer_since_our_write_is_found(tmp_path):
    log = CallLog(tmp_path / "s.jsonl")
    log.append({"call": 1})
    with open(log.path, "ab") as other:  # another process, killed mid-line
        other.write(b'{"call": 2, "half')
    with pytest.raises(TornTail) as torn:
        log.check_tail()
    assert torn.value.line == 2


def test_a_missing_log_or_a_folder_in_its_place_has_no_tail(tmp_path):
    CallLog(tmp_path / "none.jsonl").check_tail()
    (tmp_path / "dir.jsonl").mkdir()
    CallLog(tmp_path / "dir.jsonl").check_tail()
