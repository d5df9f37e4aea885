"""A batch run killed with SIGKILL half-way resumes to the same outputs, repeating no completed call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from store import open_store
from store.outputs import outputs_for_study
from store.runs import list_runs
from store.topology import get_topology
from tests.runner.studykit import scripted, study_text, write_cases
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CONDITIONS = ("B1", "B3", "C1", "C2", "P1")


def _env(cases_dir: Path) -> dict:
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY, WORKBENCH_CASES_DIR=str(cases_dir),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("WORKBENCH_DB", None)
    return env


def _cli(db: Path, *args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db), *args],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _key(messages, seed) -> str:
    return json.dumps([messages, seed], sort_keys=True)


def _outputs(db_path: Path) -> dict:
    db = open_store(db_path)
    try:
        return {o["run_id"]: (o["text"], o["report"]) for o in outputs_for_study(db, "kill-study")}
    finally:
        db.close()


def test_sigkill_half_way_then_resume_matches_an_uninterrupted_run(tmp_path, monkeypatch, capsys):
    cases_dir = write_cases(tmp_path / "cases")
    env = _env(cases_dir)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases_dir))
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    with LoopbackServer(scripted, latency=0.04) as server:  # enough for calls to be in flight at the kill
        study_file = tmp_path / "kill-study.toml"
        study_file.write_text(study_text("kill-study", conditions=CONDITIONS, api_base=server.url))

        # --- the reference: one uninterrupted run -----------------------------------------------
        ref_db = tmp_path / "ref" / "store.db"
        assert main(["--batch", "--db", str(ref_db), "study", "create", str(study_file)]) == 0
        assert main(["--batch", "--db", str(ref_db), "run", "kill-study"]) == 0
        reference_requests = server.count
        server.reset()

        # --- the same study, killed half-way -------------------------------------------------------
        db_path = tmp_path / "killed" / "store.db"
        assert main(["--batch", "--db", str(db_path), "study", "create", str(study_file)]) == 0
        proc = _cli(db_path, "run", "kill-study", env=env)
        deadline = time.monotonic() + 120
        while server.count < reference_requests * 0.4:
            assert proc.poll() is None, f"the run ended before the kill: {proc.communicate()}"
            assert time.monotonic() < deadline, "the run never got half-way"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        time.sleep(0.3)  # let the server finish answering what was in flight
        before_kill = server.count

        db = open_store(db_path)
        statuses = [r["status"] for r in list_runs(db, "kill-study")]
        assert "done" in statuses and "running" in statuses, statuses  # the kill landed mid-study
        ok_calls = list(db["calls"].rows_where("status = 'ok'"))
        completed = {_key(json.loads(c["request"]), json.loads(c["settings"])["seed"]) for c in ok_calls}
        unfinished = {r["id"] for r in list_runs(db, "kill-study") if r["status"] != "done"}
        to_replay = sum(1 for c in ok_calls if c["run_id"] in unfinished)
        db.close()
        assert completed

        # --- resume ----------------------------------------------------------------------------------
        capsys.readouterr()
        # in this process, as the reference ran: only the killed run needs a process of its own (issue 15)
        code = main(["--batch", "--db", str(db_path), "--json", "run", "kill-study", "--resume"])
        out, err = capsys.readouterr()
        assert code == 0, err
        summary = json.loads(out)
        assert summary["complete"] is True and summary["runs"]["done"] == 7
        # the interrupted runs start again from the top: their completed calls come from the store
        assert summary["replayed"] == to_replay > 0

        after = server.requests[before_kill:]
        repeated = [b for b in after if _key(b["messages"], b.get("seed")) in completed]
        assert repeated == [], "a call that had completed before the kill was made again"
        # only the turns in flight at the kill are made twice
        in_flight = before_kill - len(completed)
        assert server.count == reference_requests + in_flight
        assert 0 <= in_flight <= 8  # the gateway's concurrency cap

    assert _outputs(db_path) == _outputs(ref_db)
    db = open_store(db_path)
    runs = list_runs(db, "kill-study")
    assert len(runs) == 7 and len({r["id"] for r in runs}) == 7  # no run duplicated
    assert any(r["attempts"] == 2 for r in runs) and all(r["attempts"] <= 2 for r in runs)
    assert get_topology(db, "kill-study", "toll-bridge")["pattern"] == "Basin"
    # the transcript of a re-run run is whole and not doubled
    from store.events import events_for_run

    for r in runs:
        kinds = [e["kind"] for e in events_for_run(db, r["id"])]
        assert kinds.count("run_started") == 1 and kinds[-1] == "run_finished"
    db.close()
