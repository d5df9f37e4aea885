"""SIGHUP (an SSH session dropping), SIGTERM and SIGINT end a batch run alike: the in-flight attempts are
recorded as cancelled, the runs marked interrupted, one line on stderr, the signal's exit code, and
`--resume` finishes the study."""

from __future__ import annotations

import signal

import pytest

from store import open_store
from store.runs import list_runs
from tests.hardening.conftest import signalled
from tests.runner.studykit import scripted, study_text, write_cases
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_signal_interrupts_the_runs_records_in_flight_calls_and_resume_finishes(sig, tmp_path, monkeypatch):
    cases_dir = write_cases(tmp_path / "cases")
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases_dir))
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    db = tmp_path / "store.db"
    with LoopbackServer(scripted, latency=0.5) as server:
        study_file = tmp_path / "sig-study.toml"
        study_file.write_text(study_text("sig-study", conditions=("B1", "C1"), api_base=server.url))
        assert main(["--batch", "--db", str(db), "study", "create", str(study_file)]) == 0

        lines, err = signalled(server, db, ["run", "sig-study"], sig, after=2,  # the second request in flight
                               what="the run")
        assert len(lines) == 1 and signal.Signals(sig).name in lines[0] and "--resume" in lines[0], err

        store = open_store(db)
        statuses = {r["status"] for r in list_runs(store, "sig-study")}
        cancelled = list(store["calls"].rows_where("status = 'cancelled' AND error = 'cancelled by the caller'"))
        store.close()
        assert "interrupted" in statuses and statuses <= {"interrupted", "done"}, statuses
        assert cancelled, "the in-flight attempt was not recorded"

        assert main(["--batch", "--db", str(db), "run", "sig-study", "--resume"]) == 0
        store = open_store(db)
        assert {r["status"] for r in list_runs(store, "sig-study")} == {"done"}
        store.close()
