"""Pause, resume and cancel from the core (what the live screen's keys call), and the live event stream."""

from __future__ import annotations

import asyncio

from store.events import events_for_run
from store.runs import list_runs
from tests.runner.studykit import create, gateway, study_text
from workbench.events import Event
from workbench.runs.control import RunControl
from workbench.runs.runner import prepare_study, run_study


class Watch:
    """A sink that records events and wakes waiters on the kinds they wait for."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._waiters: list[tuple[str, asyncio.Future]] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        for kind, fut in list(self._waiters):
            if event.kind == kind and not fut.done():
                fut.set_result(event)

    async def next(self, kind: str, timeout: float = 30) -> Event:
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append((kind, fut))
        return await asyncio.wait_for(fut, timeout)

    def kinds(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


async def test_pause_holds_new_turns_and_resume_finishes(store, server):
    db, db_path = store
    server.latency = 0.05
    study = create(db, study_text("paused", conditions=("C1",), api_base=server.url))
    control, watch = RunControl(), Watch()

    class PauseAfterFraming(Watch):  # a key press landing right as the coordinator's framing finishes
        def emit(self, event):
            watch.emit(event)
            if event.kind == "turn_finished" and event.turn == "frame":
                control.pause()

    task = asyncio.create_task(run_study(db, gateway(db, db_path), study, sink=PauseAfterFraming(),
                                         control=control))
    await watch.next("turn_finished")
    await asyncio.sleep(0.4)
    started_while_paused = len(watch.kinds("turn_started"))
    await asyncio.sleep(0.4)
    assert len(watch.kinds("turn_started")) == started_while_paused == 1  # no respondent began
    assert watch.kinds("progress")[-1].payload["paused"] is True
    control.resume()
    summary = await asyncio.wait_for(task, 60)
    assert summary.complete and server.count == 8  # + the report-shape extraction (issue 13)


async def test_cancel_stops_the_study_and_a_resume_completes_it(store, server):
    db, db_path = store
    server.latency = 0.05
    study = create(db, study_text("cancelled", conditions=("B1", "C2"), api_base=server.url))
    control, watch = RunControl(), Watch()
    task = asyncio.create_task(run_study(db, gateway(db, db_path), study, sink=watch, control=control))
    # B1 (its answer and its report extraction) done, and C2 a few turns in
    while len(watch.kinds("turn_finished")) < 5 or not watch.kinds("run_finished"):
        await watch.next("turn_finished")
    control.cancel("stopped by the user")
    summary = await asyncio.wait_for(task, 30)
    assert summary.stopped == "stopped by the user" and not summary.complete
    c2 = next(r for r in list_runs(db, study) if r["condition"] == "C2")
    assert c2["status"] == "cancelled" and c2["error"] == "cancelled: stopped by the user"
    assert watch.kinds("run_cancelled")[0].run_id == c2["id"]
    count = server.count

    summary = await run_study(db, gateway(db, db_path), study)
    assert summary.complete and [r["status"] for r in list_runs(db, study)] == ["done", "done"]
    assert summary.replayed >= 3  # the meeting's completed turns were not made again
    # every C2 call is either replayed from the log or made now, once: C2 is 30 calls + the extraction (issue 13)
    # + the Mediator's two unreadable votes each asked once more (issue 41). A call cancelled in flight is made again.
    assert server.count - count + summary.replayed == 33


async def test_cancel_one_run_leaves_the_others_going(store, server):
    db, db_path = store
    server.latency = 0.05
    study = create(db, study_text("one-off", conditions=("C1", "C2"), api_base=server.url))
    runs = prepare_study(db, study)  # the grid exists before anything runs
    assert [r["status"] for r in runs] == ["pending", "pending"]
    control, watch = RunControl(), Watch()
    task = asyncio.create_task(run_study(db, gateway(db, db_path), study, sink=watch, control=control))
    await watch.next("turn_finished")
    control.cancel_run(f"{study}/toll-bridge/C2/0")
    summary = await asyncio.wait_for(task, 60)
    assert {r["condition"]: r["status"] for r in list_runs(db, study)} == {"C1": "done", "C2": "cancelled"}
    assert summary.stopped is None


async def test_the_event_stream_feeds_a_live_grid(store, server):
    db, db_path = store
    study = create(db, study_text("live", conditions=("B1", "C1"), api_base=server.url))
    watch = Watch()
    await run_study(db, gateway(db, db_path), study, sink=watch)
    progress = watch.kinds("progress")
    first, last = progress[0].payload, progress[-1].payload
    # B1 2 and C1 8: each with its report-shape extraction (issue 13)
    assert first["total_runs"] == 2 and first["calls_expected"] == 2 + 8 and first["calls_done"] == 0
    assert last["runs"]["done"] == 2 and last["fraction"] == 1.0 and last["eta_seconds"] == 0.0
    assert last["input_tokens"] > 0 and last["output_tokens"] > 0
    done_states = [p.payload["run"] for p in progress if p.payload.get("run", {}).get("status") == "done"]
    assert {s["condition"] for s in done_states} == {"B1", "C1"}
    c1 = next(s for s in done_states if s["condition"] == "C1")
    assert c1["calls_done"] == 8 and c1["elapsed"] >= 0 and c1["input_tokens"] > 0
    # tokens stream live for every turn, and are not stored
    tokens = watch.kinds("token")
    assert {e.turn for e in tokens} >= {"frame", "synthesis", "answer"}
    for run in list_runs(db, study):
        stored = events_for_run(db, run["id"])
        assert "token" not in {e["kind"] for e in stored}
        turns = [e for e in stored if e["kind"] == "turn_finished"]
        assert all(e["payload"]["text"] for e in turns)
        assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
        assert run["input_tokens"] == sum(e["payload"]["input_tokens"] for e in turns)
