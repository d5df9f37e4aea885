"""Cancel closes the stream (issue 40): a cancelled call, a cancelled judging and a cancelled run close the HTTP
connection of every call in flight, counted at the loopback server (`client_closed`). Closing is what stops a
generation on llama-cpp-python's server (a stream at its next token) and llama.cpp's (its slot erase waits for
a busy slot): workbench/gateway/abandoned.py. tests/realmodel/test_cancel_stops_generation.py measures it."""

from __future__ import annotations

import asyncio
import time

import pytest

from store import calls as call_rows
from store.studies import save_study
from tests.support.loopback import Reply
from workbench.events import CALL_ENDED, CALL_SENT, ListSink
from workbench.gateway import CallRequest, ModelSettings
from workbench.gateway.transport import load_litellm

LONG = " ".join(f"w{i}" for i in range(300))


async def until(predicate, seconds: float = 5.0) -> float:
    """Wait for `predicate`; the seconds it took."""
    await load_litellm()  # once a process, seconds on a loaded machine: not what is timed here
    t0 = time.monotonic()
    while not predicate():
        assert time.monotonic() - t0 < seconds, "not within the time given"
        await asyncio.sleep(0.01)
    return time.monotonic() - t0


@pytest.mark.parametrize("stream", [True, False])
async def test_a_cancelled_call_closes_its_connection(db, make_gateway, loopback_server, stream):
    save_study(db, study_id="s1", name="s1", protocol="hindsight", definition={}, source_text="", cost_ceiling=None)
    # a stream of 300 tokens at 50 a second (6 s), or a whole reply ready after 0.4 s
    loopback_server.queue(Reply.text(LONG, chunk_delay=0.02) if stream else Reply.text(LONG, latency=0.4))
    settings = ModelSettings(model="openai/slow", api_base=loopback_server.url, timeout=10.0)
    sink = ListSink()
    task = asyncio.ensure_future(make_gateway().call(
        CallRequest(messages=[{"role": "user", "content": "a long answer"}], settings=settings, study_id="s1",
                    stream=stream), sink))
    await until(lambda: loopback_server.count == 1 and (not stream or "token" in sink.kinds()))
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    took = await until(lambda: loopback_server.client_closed == 1)
    assert took < 1.0  # a stream at its next chunk; a whole reply as it is ready: nobody was waiting for either
    assert [r["status"] for r in call_rows.calls_for(db, study_id="s1")] == ["cancelled"]
    [sent] = [e.payload["call"] for e in sink.events if e.kind == CALL_SENT]
    assert [e.payload for e in sink.events if e.kind == CALL_ENDED] == [{"attempt": 1, "call": sent, "ok": False}]


async def test_cancelling_judging_closes_every_call_in_flight(tmp_path, loopback_server):
    from store import open_store
    from store.settings import set_setting
    from tests.blinding.study_fixture import make_study
    from workbench.cases.library import BOOTSTRAP_KEY
    from workbench.gateway import build_gateway
    from workbench.judges.run import judge_study

    path = tmp_path / "judging.db"
    db = open_store(path)
    set_setting(db, BOOTSTRAP_KEY, True)
    sid = make_study(db, conditions=["B1"], pilot_items=False, judges=[
        {"name": "j1", "model": "openai/j1", "api_base": loopback_server.url, "temperature": 0.0,
         "pipeline": "direct", "runs": 1}])
    loopback_server.responder = lambda body: Reply.text("{}", latency=0.5)
    task = asyncio.ensure_future(judge_study(db, build_gateway(db, path), sid, concurrency=2))
    await until(lambda: loopback_server.count == 2)  # both pairs' calls in flight
    task.cancel()  # what Ctrl-C does to `judge` (workbench/cli/signals.py) and c on the Studies screen
    await asyncio.gather(task, return_exceptions=True)
    await until(lambda: loopback_server.client_closed == 2)
    assert loopback_server.count == 2
    assert sorted(r["status"] for r in call_rows.calls_for(db, study_id=sid)) == ["cancelled", "cancelled"]


async def test_cancelling_a_run_closes_every_call_in_flight(tmp_path, loopback_server):
    from tests.runner.studykit import create, gateway, make_store, study_text
    from workbench.runs.control import RunControl
    from workbench.runs.runner import run_study

    db, path, _cases = make_store(tmp_path)
    sid = create(db, study_text("cancelled", conditions=("B1", "B3"), api_base=loopback_server.url))
    loopback_server.responder = lambda body: Reply.text("an answer", latency=0.5)
    control = RunControl()
    task = asyncio.ensure_future(run_study(db, gateway(db, path), sid, control=control))
    await until(lambda: loopback_server.count == 2)  # each run's first call in flight
    control.cancel("stopped by the user")
    await asyncio.gather(task, return_exceptions=True)
    await until(lambda: loopback_server.client_closed == 2)
    assert loopback_server.count == 2
