"""Provider batch mode against a loopback server speaking OpenAI's Files and Batches endpoints."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from store import provider_batches as batch_rows
from store.calls import calls_for
from tests.gateway.conftest import FAST_RETRY
from tests.support.batch_server import BatchServer, Reply
from tests.support.loopback import DUMMY_KEY
from workbench.gateway import (
    CallRequest, GatewayConfig, GatewayError, ModelSettings, NoBatchAPI, ProviderBatchConfig, build_gateway,
    refuse_unbatchable, verify_log,
)

FAST = dict(poll_interval=0.02, settle=0.05)


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    with BatchServer(lambda body: "answer to " + body["messages"][-1]["content"]) as s:
        yield s


def settings(server, model="openai/batch-test") -> ModelSettings:
    return ModelSettings(model=model, api_base=server.url, temperature=0.0, max_tokens=32, timeout=5.0, seed=3)


def gateway(db, db_path, **batch):
    gw = build_gateway(db, db_path, config=GatewayConfig(retry=FAST_RETRY, stall_timeout=5.0),
                       provider_batch=ProviderBatchConfig(**{**FAST, **batch}))
    gw._rng = random.Random(7)
    return gw


def request(server, i: int, **kw) -> CallRequest:
    return CallRequest(messages=[{"role": "user", "content": f"question {i}"}], settings=settings(server),
                       study_id="s1", agent=f"agent-{i}", turn="B1", **kw)


async def test_independent_calls_go_as_one_batch_and_are_recorded_like_direct_calls(db, db_path, server):
    gw = gateway(db, db_path)
    results = await asyncio.gather(*(gw.call(request(server, i)) for i in range(5)))
    assert [r.text for r in results] == [f"answer to question {i}" for i in range(5)]
    assert server.batches_created == 1 and server.uploads == 1 and server.count == 5
    line = json.loads(server.files["file-1"]["data"].splitlines()[0])
    assert line["body"]["model"] == "batch-test" and line["body"]["seed"] == 3 and line["url"] == "/v1/chat/completions"
    rows = calls_for(db, study_id="s1")
    assert [r["status"] for r in rows] == ["ok"] * 5
    assert {r["via"] for r in rows} == {"batch batch-2"}
    assert all(r["finish_reason"] == "stop" and r["input_tokens"] and r["output_tokens"] for r in rows)
    assert verify_log(gw.log_path("s1")).ok
    [batch] = batch_rows.batches_for(db, "s1")
    assert batch["state"] == "recorded" and batch["requests"] == 5 and batch["provider_batch_id"] == "batch-2"

    again = await gateway(db, db_path).call(request(server, 3))  # replay cannot tell a batched call apart
    assert again.replayed and again.text == "answer to question 3" and server.count == 5


async def test_a_multi_turn_program_goes_round_by_round(db, db_path, server):
    gw = gateway(db, db_path)

    async def program(i: int) -> str:
        first = await gw.call(request(server, i))
        second = await gw.call(CallRequest(messages=[{"role": "user", "content": f"question {i}"},
                                                     {"role": "assistant", "content": first.text},
                                                     {"role": "user", "content": f"follow-up {i}"}],
                                           settings=settings(server), study_id="s1", agent=f"agent-{i}",
                                           turn="B2"))
        return second.text

    texts = await asyncio.gather(*(program(i) for i in range(4)))
    assert texts == [f"answer to follow-up {i}" for i in range(4)]
    assert server.batches_created == 2  # one batch per round, every program in each
    assert [b["requests"] for b in batch_rows.batches_for(db, "s1")] == [4, 4]


async def test_failed_items_go_into_the_next_batch_or_directly(db, db_path, server):
    server.queue(Reply.status(500), Reply.text("fine"), Reply.text("fine too"))
    gw = gateway(db, db_path, retry="batch")
    results = await asyncio.gather(*(gw.call(request(server, i)) for i in range(3)))
    assert server.batches_created == 2  # the failed item went into a second batch
    assert sorted(r["status"] for r in calls_for(db, study_id="s1")) == ["error", "ok", "ok", "ok"]
    assert all(r.text for r in results)

    server.queue(Reply.status(500))
    gw = gateway(db, db_path, retry="direct")
    result = await gw.call(request(server, 9))
    assert server.batches_created == 3 and result.text == "answer to question 9"
    direct = calls_for(db, study_id="s1")[-1]
    assert direct["status"] == "ok" and direct["via"] is None  # the retry was a direct call


async def test_an_item_that_keeps_failing_fails_its_call_after_max_rounds(db, db_path, server):
    server.responder = lambda body: Reply.status(500)
    gw = gateway(db, db_path, max_rounds=2)
    with pytest.raises(GatewayError, match="failed in 2 provider batches"):
        await gw.call(request(server, 1))
    assert server.batches_created == 2


async def test_an_expired_batch_records_what_finished_and_resends_the_rest(db, db_path, server):
    server.expire_after = 2
    gw = gateway(db, db_path)
    results = await asyncio.gather(*(gw.call(request(server, i)) for i in range(4)))
    assert [r.text for r in results] == [f"answer to question {i}" for i in range(4)]
    first, second = batch_rows.batches_for(db, "s1")
    assert (first["requests"], first["completed"], first["failed"]) == (4, 2, 2)
    assert second["requests"] == 2
    errors = [r for r in calls_for(db, study_id="s1") if r["status"] == "error"]
    assert len(errors) == 2 and all("batch_expired" in r["error"] for r in errors)


def _kill(gw, task) -> None:
    """What a kill -9 leaves: no caller and no poller of this process (the provider's batch goes on)."""
    task.cancel()
    for poller in gw._loop_state()["batcher"].pollers.values():
        poller.cancel()


async def test_a_kill_while_a_batch_is_open_loses_nothing_and_pays_nothing_twice(db, db_path, server):
    server.polls_to_complete = 10**6  # the batch stays in progress
    gw = gateway(db, db_path)
    task = asyncio.gather(*(gw.call(request(server, i)) for i in range(3)))
    while not batch_rows.open_batches(db, "s1") or not batch_rows.open_batches(db, "s1")[0]["provider_batch_id"]:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    _kill(gw, task)  # this process stops; the provider goes on
    with pytest.raises(asyncio.CancelledError):
        await task
    assert calls_for(db, study_id="s1") == []

    server.polls_to_complete = 1
    resumed = gateway(db, db_path)
    results = await asyncio.gather(*(resumed.call(request(server, i)) for i in range(3)))
    assert [r.text for r in results] == [f"answer to question {i}" for i in range(3)]
    assert server.batches_created == 1 and server.uploads == 1 and server.count == 3  # polled, not re-sent
    assert [r["status"] for r in calls_for(db, study_id="s1")] == ["ok"] * 3


async def test_a_batch_whose_creation_answer_was_lost_is_found_by_its_metadata(db, db_path, server):
    server.fail_create_after_accepting = True
    gw = gateway(db, db_path)
    results = await asyncio.gather(*(gw.call(request(server, i)) for i in range(2)))
    assert [r.text for r in results] == ["answer to question 0", "answer to question 1"]
    assert server.batches_created == 1  # adopted, not created again


async def test_results_of_a_batch_nobody_waits_for_any_more_are_still_recorded(db, db_path, server):
    server.polls_to_complete = 10**6
    gw = gateway(db, db_path)
    task = asyncio.gather(*(gw.call(request(server, i)) for i in range(2)))
    while not batch_rows.open_batches(db, "s1") or not batch_rows.open_batches(db, "s1")[0]["provider_batch_id"]:
        await asyncio.sleep(0.02)
    _kill(gw, task)
    with pytest.raises(asyncio.CancelledError):
        await task
    server.polls_to_complete = 1
    # the resumed study asks only for the second call; the first one's paid reply is recorded all the same
    result = await gateway(db, db_path).call(request(server, 1))
    assert result.text == "answer to question 1"
    assert sorted(r["agent"] for r in calls_for(db, study_id="s1")) == ["agent-0", "agent-1"]
    assert server.count == 2


async def test_a_model_without_a_batch_api_is_refused_before_any_call(server):
    with pytest.raises(NoBatchAPI, match="mock"):
        refuse_unbatchable([("mock", None), ("openai/batch-test", server.url)])
    with pytest.raises(NoBatchAPI, match="anthropic/claude"):
        refuse_unbatchable([("anthropic/claude-3-5-sonnet-20240620", None)])
    refuse_unbatchable([("openai/batch-test", server.url), ("gpt-4o-mini", None)])  # both batch


def test_the_batch_price_is_litellms(monkeypatch):
    from workbench.gateway.transport import batch_cost_of, cost_of

    direct = cost_of("gpt-4o-mini", 1000, 1000)
    batch = batch_cost_of("gpt-4o-mini", 1000, 1000)
    assert batch == pytest.approx(1000 * 7.5e-08 + 1000 * 3e-07)  # the cost map's *_cost_per_token_batches
    assert batch == pytest.approx(direct / 2)
    assert batch_cost_of("openai/not-a-mapped-model", 10, 10) is None


async def test_a_provider_that_never_takes_the_batch_fails_the_calls_in_time(db, db_path, server):
    from tests.support.batch_server import _BatchHandler

    def refuse(self):  # every upload answered 500: no batch is ever created
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send_json(500, {"error": {"message": "files are down"}})

    original = _BatchHandler.do_POST
    _BatchHandler.do_POST = lambda self: refuse(self) if self.path.rstrip("/").endswith("/files") else original(self)
    try:
        with pytest.raises(GatewayError, match="did not take the batch"):
            await gateway(db, db_path, max_rounds=2).call(request(server, 1))
    finally:
        _BatchHandler.do_POST = original
    assert server.batches_created == 0
    assert [b["state"] for b in batch_rows.batches_for(db, "s1")] == ["abandoned", "abandoned"]


async def test_a_large_batch_is_recorded_chunk_by_chunk_in_request_order(db, db_path, server, monkeypatch):
    from workbench.gateway import provider_batch
    from workbench.gateway.logcheck import check_log

    monkeypatch.setattr(provider_batch, "RECORD_CHUNK", 2)
    server.queue(Reply.text("one"), Reply.status(500), Reply.text("three"), Reply.text("four"), Reply.text("five"))
    gw = gateway(db, db_path, retry="direct")
    results = await asyncio.gather(*(gw.call(request(server, i)) for i in range(5)))
    assert [r.text for r in results] == ["one", "answer to question 1", "three", "four", "five"]
    rows = calls_for(db, study_id="s1")
    # the batch's five results in its order (three chunks), then the failed item's direct retry
    assert [(r["agent"], r["status"], r["via"] is not None) for r in rows] == [
        ("agent-0", "ok", True), ("agent-1", "error", True), ("agent-2", "ok", True), ("agent-3", "ok", True),
        ("agent-4", "ok", True), ("agent-1", "ok", False)]
    assert [r["log_line"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert {r["state"] for r in batch_rows.batch_requests(db, batch_rows.batches_for(db, "s1")[0]["id"])} == {
        "recorded", "failed"}
    assert check_log(db, "s1", gw.log_path("s1")).ok


class Killed(Exception):
    pass


async def test_results_logged_by_a_sitting_killed_before_its_commit_are_adopted_not_written_twice(
        db, db_path, server, monkeypatch):
    """A kill between a chunk's log write and its store commit: the next sitting records those lines as they
    are (a second copy would leave them unrecorded below recorded lines, which `log verify` refuses)."""
    from store import calls as call_rows
    from workbench.gateway import provider_batch
    from workbench.gateway.logcheck import check_log

    monkeypatch.setattr(provider_batch, "RECORD_CHUNK", 2)
    real_add = call_rows.add_calls
    commits = []

    def killed_at_the_second_commit(db_, rows):
        commits.append(len(rows))
        if len(commits) == 2:
            raise Killed  # stands for the kill: nothing of this transaction is committed
        return real_add(db_, rows)

    monkeypatch.setattr(call_rows, "add_calls", killed_at_the_second_commit)
    gw = gateway(db, db_path)
    task = asyncio.gather(*(gw.call(request(server, i)) for i in range(5)))
    with pytest.raises(Killed):
        await task
    _kill(gw, task)
    log = gw.log_path("s1")
    assert len(log.read_text().splitlines()) == 4 and len(calls_for(db, study_id="s1")) == 2  # 2 lines unrecorded

    monkeypatch.setattr(call_rows, "add_calls", real_add)
    resumed = gateway(db, db_path)
    results = await asyncio.gather(*(resumed.call(request(server, i)) for i in range(5)))
    assert [r.text for r in results] == [f"answer to question {i}" for i in range(5)]
    rows = calls_for(db, study_id="s1")
    paid = sorted((r["log_line"], r["agent"]) for r in rows if r["status"] == "ok")
    # the first sitting's four lines (two adopted, their waiters answered), the two calls it had recorded
    # replayed (as a resumed call always is), then the fifth result
    assert paid == [(1, "agent-0"), (2, "agent-1"), (3, "agent-2"), (4, "agent-3"), (7, "agent-4")]
    assert sorted((r["log_line"], r["agent"]) for r in rows if r["status"] == "replayed") == [
        (5, "agent-0"), (6, "agent-1")]
    assert len(log.read_text().splitlines()) == 7  # the two adopted lines were not written again
    assert server.count == 5 and server.batches_created == 1  # nothing paid twice
    check = check_log(db, "s1", log)
    assert check.ok and check.unrecorded == 0, check.problems
