"""Failed runs keep their error and can be retried alone; --replay makes no request; the study lock."""

from __future__ import annotations

import pytest

from store.outputs import get_output
from store.runs import get_run, list_runs
from tests.runner.studykit import create, gateway, scripted, study_text
from tests.support.loopback import Reply
from workbench.events import ListSink
from workbench.gateway import build_gateway
from workbench.runs.run_lock import study_lock
from workbench.runs.runner import RunnerError, run_study


def _refuse_b2(body):
    if "Think step by step" in body["messages"][-1]["content"]:
        return Reply.unauthorized()
    return scripted(body)


async def test_a_failed_run_is_marked_with_its_error_and_retried_alone(store, server):
    db, db_path = store
    server.responder = _refuse_b2
    study = create(db, study_text("fails", conditions=("B1", "B2"), api_base=server.url))
    sink = ListSink()
    summary = await run_study(db, gateway(db, db_path), study, sink=sink)
    b1, b2 = "fails/toll-bridge/B1/0", "fails/toll-bridge/B2/0"
    assert get_run(db, b1)["status"] == "done"
    failed = get_run(db, b2)
    assert failed["status"] == "failed"
    assert "401" in failed["error"] or "invalid api key" in failed["error"]
    assert summary.failed == [{"run_id": b2, "error": failed["error"]}] and not summary.complete
    assert [e.kind for e in sink.events if e.run_id == b2 and e.kind in ("turn_failed", "run_failed")] == [
        "turn_failed", "run_failed"]
    assert get_output(db, b2) is None

    # a plain resume leaves the failed run alone
    count = server.count
    again = await run_study(db, gateway(db, db_path), study)
    assert server.count == count and again.executed == 0 and get_run(db, b2)["status"] == "failed"

    # retried alone, with the server fixed: only B2's calls are made (its answer and its extraction)
    server.responder = scripted
    retried = await run_study(db, gateway(db, db_path), study, only=[b2])
    assert retried.executed == 1 and server.count == count + 2
    assert get_run(db, b2)["status"] == "done" and get_run(db, b2)["error"] is None
    assert get_run(db, b2)["attempts"] == 2 and get_run(db, b1)["attempts"] == 1
    assert retried.complete and get_output(db, b2)["report"]["recommendation"]


async def test_retrying_an_unknown_or_done_run_is_refused(store, server):
    db, db_path = store
    study = create(db, study_text("retry-bad", api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    with pytest.raises(RunnerError, match="no run nope"):
        await run_study(db, gateway(db, db_path), study, only=["nope"])
    with pytest.raises(RunnerError, match="is done"):
        await run_study(db, gateway(db, db_path), study, only=["retry-bad/toll-bridge/B1/0"])


async def test_replay_only_serves_an_interrupted_run_from_the_store_without_a_request(store, server):
    db, db_path = store
    study = create(db, study_text("replayed", conditions=("C1", "B2"), api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    c1 = "replayed/toll-bridge/C1/0"
    before = get_output(db, c1)
    count = server.count
    # as if the process died inside C1 after its calls: the run is 'running' with no output
    db.execute("UPDATE runs SET status = 'running' WHERE id = ?", [c1])
    db.execute("DELETE FROM outputs WHERE run_id = ?", [c1])
    db.conn.commit()
    summary = await run_study(db, build_gateway(db, db_path, replay_only=True), study)
    assert server.count == count and summary.replayed == 8 and summary.network_calls == 0  # 7 + extraction
    assert get_output(db, c1)["text"] == before["text"] and get_run(db, c1)["status"] == "done"


async def test_replay_only_fails_a_run_whose_calls_are_not_in_the_store(store, server):
    db, db_path = store
    study = create(db, study_text("replay-miss", api_base=server.url))
    summary = await run_study(db, build_gateway(db, db_path, replay_only=True), study)
    run = get_run(db, "replay-miss/toll-bridge/B1/0")
    assert run["status"] == "failed" and "replay only" in run["error"]
    assert server.count == 0 and not summary.complete


async def test_one_process_at_a_time_runs_a_study(store, server):
    db, db_path = store
    study = create(db, study_text("locked", api_base=server.url))
    with study_lock(db, study):
        with pytest.raises(RunnerError, match="is being run by process"):
            await run_study(db, gateway(db, db_path), study)
    summary = await run_study(db, gateway(db, db_path), study)
    assert summary.complete
    assert [r["status"] for r in list_runs(db, study)] == ["done"]


async def test_the_cost_ceiling_stops_the_study_and_resume_continues(store, server):
    db, db_path = store
    server.responder = lambda body: Reply.text(scripted(body), usage={"prompt_tokens": 10, "completion_tokens": 10,
                                                                      "total_tokens": 20})
    study = create(db, study_text("ceiling", conditions=("B1", "C2"), api_base=server.url,
                                  model="openai/gpt-4o-mini").replace("replicates = 1",
                                                                       "replicates = 1\ncost_ceiling = 0.00001"))
    summary = await run_study(db, gateway(db, db_path, concurrency=1), study)
    assert summary.stopped and "cost ceiling" in summary.stopped and not summary.complete
    statuses = {r["condition"]: r["status"] for r in list_runs(db, study)}
    assert "cancelled" in statuses.values()
    cancelled = next(r for r in list_runs(db, study) if r["status"] == "cancelled")
    assert "cost ceiling" in cancelled["error"]

    # the ceiling is the one key a frozen study may change: raise it, then resume
    from workbench.studies import create_study

    raised = study_text("ceiling", conditions=("B1", "C2"), api_base=server.url, model="openai/gpt-4o-mini")
    raised = raised.replace("replicates = 1", "replicates = 1\ncost_ceiling = 100.0")
    assert create_study(db, text=raised, name="ceiling.toml")["action"] == "updated"
    resumed = await run_study(db, gateway(db, db_path), study)
    assert resumed.complete and [r["status"] for r in list_runs(db, study)] == ["done", "done"]


async def test_a_run_another_process_runs_is_shown_running_not_interrupted(store, server, tmp_path):
    """The walk: the Runs screen showed another shell's live runs as "interrupted". A run the store has as
    running is interrupted only when no process holds the study's run lock."""
    import subprocess
    import sys

    from store.db import store_path
    from workbench.paths import logs_dir
    from workbench.runs.view import grid_states

    db, db_path = store
    study = create(db, study_text("elsewhere", api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    run_id = list_runs(db, study)[0]["id"]
    db.execute("UPDATE runs SET status = 'running' WHERE id = ?", [run_id])  # as a live run stands in the store
    db.conn.commit()
    lock = logs_dir(store_path(db)) / f"{study}.run.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time\n"
        f"f = open({str(lock)!r}, 'a+'); fcntl.flock(f, fcntl.LOCK_EX); f.seek(0); f.truncate()\n"
        "f.write('process 4242'); f.flush(); print('held', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        [state] = grid_states(db, study)
        assert (state["status"], state["interrupted"], state["elsewhere"]) == ("running", False, "process 4242")
    finally:
        holder.kill()
        holder.wait()
    [state] = grid_states(db, study)
    assert (state["interrupted"], state["elsewhere"]) == (True, None)  # nobody holds it: the process died
