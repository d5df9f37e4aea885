"""The request journal (issue 34): a run killed with SIGKILL leaves no paid call unaccounted. The server's
requests equal the calls the store recorded plus the calls journaled as lost, and `study show`, `log verify`,
`run --resume` and the report say how many were lost and what they are estimated to cost."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from store import open_store
from store.calls import journal_unanswered, spent
from tests.runner.studykit import scripted, study_text, write_cases
from tests.runner.test_runner_kill_resume import _cli, _env
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main
from workbench.gateway.journal import lost_calls

CONNECTIONS = 4


def _accounted(db_path: Path) -> tuple[int, int]:
    """(calls the store records as made, requests journaled as sent and never answered)."""
    db = open_store(db_path)
    try:
        return spent(db, study_id="journal-study")["attempts"], lost_calls(db, "journal-study").calls
    finally:
        db.close()


def test_requests_answered_equal_calls_recorded_plus_calls_journaled_as_lost(tmp_path, monkeypatch, capsys):
    cases_dir = write_cases(tmp_path / "cases")
    env = _env(cases_dir)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases_dir))
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    # Replies slow enough that requests are certainly in flight at the kill.
    with LoopbackServer(scripted, latency=1.5) as server:
        study_file = tmp_path / "journal-study.toml"
        study_file.write_text(study_text("journal-study", conditions=("B1", "B3", "C1", "C2"),
                                         api_base=server.url))
        db_path = tmp_path / "store.db"
        assert main(["--batch", "--db", str(db_path), "study", "create", str(study_file)]) == 0
        proc = _cli(db_path, "run", "journal-study", "--max-connections", str(CONNECTIONS), env=env)
        deadline = time.monotonic() + 180
        # Kill once a wave has been answered and recorded and the next one fills every connection: then each
        # request the process journaled has reached the server (none is between its journal entry and its send).
        while not (server.count > CONNECTIONS and server.in_flight == CONNECTIONS):
            assert proc.poll() is None, f"the run ended before the kill: {proc.communicate()}"
            assert time.monotonic() < deadline, "the run never filled its connections"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(2.0)  # the server answers what was in flight (to nobody)
        server.latency = 0.0  # nothing more is killed: the resume need not wait 1.5 s a call
        made, lost = _accounted(db_path)
        assert lost >= CONNECTIONS - 1, (made, lost, server.count)  # in flight at the kill: paid, replies lost
        assert server.count == made + lost, (server.count, made, lost)

        capsys.readouterr()
        assert main(["--batch", "--db", str(db_path), "study", "show", "journal-study"]) == 0
        assert f"{lost} calls in flight at the crash: paid, replies lost, cost estimated" in capsys.readouterr().out
        assert main(["--batch", "--db", str(db_path), "log", "verify", "journal-study"]) == 0
        assert f"{lost} calls in flight at the crash" in capsys.readouterr().out

        # The resume marks them lost, says so, and finishes: every request the server saw is still accounted.
        assert main(["--batch", "--db", str(db_path), "run", "journal-study", "--resume"]) == 0
        out = capsys.readouterr().out
        assert f"{lost} calls in flight at the crash" in out and "complete" in out
        made_after, lost_after = _accounted(db_path)
        assert (lost_after, server.count) == (lost, made_after + lost)
        db = open_store(db_path)
        try:
            assert all(e["lost_at"] for e in journal_unanswered(db, "journal-study"))
        finally:
            db.close()
        report = tmp_path / "report.md"
        assert main(["--batch", "--db", str(db_path), "report", "journal-study", "--out", str(report)]) == 0
        assert f"{lost} calls in flight at the crash" in report.read_text()


def test_an_answered_request_leaves_no_journal_entry_and_a_live_one_is_in_flight_not_lost(store, monkeypatch):
    """Each answered call closes its own entry in the transaction that records it; an entry of a process
    still running is in flight, one of a process that ended is lost."""
    import asyncio
    import os

    from store.calls import journal_sent
    from tests.runner.studykit import gateway
    from workbench.gateway import CallRequest, ModelSettings

    db, db_path = store
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    with LoopbackServer(scripted) as server:
        settings = ModelSettings(model="openai/test", api_base=server.url, max_tokens=64)
        asyncio.run(gateway(db, db_path).call(CallRequest(messages=[{"role": "user", "content": "hello"}],
                                                          settings=settings, study_id="s")))
    assert server.count == 1 and journal_unanswered(db, "s") == []
    entry = {"study_id": "s", "call_key": "k", "attempt": 1, "model": "openai/test", "prompt_tokens": 100,
             "max_tokens": 64, "cost_estimate": 0.25, "sent_at": "2026-11-26T00:00:00", "pid": os.getpid()}
    journal_sent(db, entry)
    assert lost_calls(db, "s").calls == 0  # this process is alive: in flight
    dead = _dead_pid()
    journal_sent(db, {**entry, "pid": dead, "cost_estimate": None})
    journal_sent(db, {**entry, "pid": dead})
    lost = lost_calls(db, "s")
    assert (lost.calls, lost.prompt_tokens, lost.cost, lost.cost_unknown) == (2, 200, 0.25, 1)
    assert lost.text() == ("2 calls in flight at the crash: paid, replies lost, cost estimated at most $0.2500 "
                           "+ 1 of unknown price (200 prompt tokens)")


def _dead_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid
