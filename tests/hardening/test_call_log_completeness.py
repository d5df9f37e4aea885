"""`log verify` proves the call log is complete, not only ordered: a truncated, emptied or re-chained log
is refused against the store's own record, and a report pins the log's head."""

from __future__ import annotations

import json
import re

import pytest

from tests.hardening.conftest import STUDY, batch, workbench_lines
from workbench.cli.main import main
from workbench.gateway.calllog import GENESIS, canonical, line_hash, verify_log
from workbench.paths import logs_dir


@pytest.fixture
def ran(created, capsys):
    code, _, err = batch(capsys, created, "run", STUDY)
    assert code == 0, err
    return created


def _log(db):
    return logs_dir(db) / f"{STUDY}.jsonl"


def _verify(capsys, db) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), "--json", "log", "verify", STUDY])
    return code, json.loads(capsys.readouterr().out)


def test_an_intact_log_passes_with_every_recorded_call(ran, capsys):
    code, doc = _verify(capsys, ran)
    assert code == 0, doc
    lines = _log(ran).read_text().splitlines()
    # B1 and B2 (2 calls each) and C2's meeting: the mock's placeholders never second, so both motions die
    # unseconded and nothing is debated (question, 5 openings, 2 x (motion + 4 seconds), the chair's report,
    # the extraction: 18); a placeholder is neither yes nor no, so each of the 8 seconds is asked once more
    # (issue 41: unreadable, never "no") before it is recorded as unreadable: 18 + 4 + 8 = 30
    assert doc["ok"] and doc["lines"] == doc["recorded"] == len(lines) == 30
    assert doc["head"] == json.loads(lines[-1])["hash"]


def test_a_log_whose_last_lines_were_removed_is_refused(ran, capsys):
    path = _log(ran)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n")
    assert verify_log(path).ok  # the chain alone cannot tell
    code, doc = _verify(capsys, ran)
    assert code == 1 and not doc["ok"]
    assert any("truncated" in p and "3 recorded line(s) missing" in p for p in doc["problems"]), doc
    code, out, err = batch(capsys, ran, "log", "verify", STUDY)
    assert code == 1 and len(workbench_lines(err)) == 1 and "truncated" in err


def test_an_emptied_log_is_refused(ran, capsys):
    recorded = len(_log(ran).read_text().splitlines())
    _log(ran).write_text("")
    code, doc = _verify(capsys, ran)
    assert code == 1 and doc["lines"] == 0 and doc["recorded"] == recorded
    assert "emptied" in doc["reason"]


def _rechain(path, line_no: int, forge) -> None:
    """Rewrite one line's record, then recompute every hash and link after it: a chain that verifies."""
    entries = [json.loads(raw) for raw in path.read_text().splitlines()]
    forge(entries[line_no - 1])
    prev = GENESIS
    for entry in entries:
        entry["prev_hash"] = prev
        entry["hash"] = line_hash(entry)
        prev = entry["hash"]
    path.write_bytes(b"".join(canonical(e) + b"\n" for e in entries))


def test_a_forged_response_with_the_chain_recomputed_is_refused(ran, capsys):
    path = _log(ran)
    _rechain(path, 2, lambda e: e.update(response="a forged, much better answer"))
    assert verify_log(path).ok  # the chain verifies: only the store's record catches it
    code, doc = _verify(capsys, ran)
    assert code == 1 and doc["broken_line"] == 2, doc
    assert "rewritten, with the chain recomputed" in doc["reason"]


def test_the_report_prints_the_head_and_verify_holds_the_log_to_it(ran, capsys, tmp_path):
    out = tmp_path / "report.md"
    code, _, err = batch(capsys, ran, "report", STUDY, "--out", str(out))
    assert code == 0, err
    text = out.read_text()
    match = re.search(r"(\d+) lines, head hash `([0-9a-f]{64})`", text)
    assert match, text[-600:]
    lines = _log(ran).read_text().splitlines()
    assert int(match.group(1)) == len(lines) and match.group(2) == json.loads(lines[-1])["hash"]

    # the last line rewritten (the chain recomputed): it no longer holds the head the report printed
    _rechain(_log(ran), len(lines), lambda e: e.update(latency_ms=1.0))
    code, doc = _verify(capsys, ran)
    assert code == 1
    assert any("differs from the head kept by the report" in p for p in doc["problems"]), doc
