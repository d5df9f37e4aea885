"""The gateway's real HTTP path against the loopback server: streaming, faults, retries, logging."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from store.calls import calls_for
from tests.support.loopback import Reply
from workbench.events import CALL_RETRY, TOKEN, FanoutSink, ListSink
from workbench.gateway import CallRequest, GatewayError, verify_log
from workbench.gateway.retry import RetryPolicy


def ask(settings, text="What should the board decide?", **kw) -> CallRequest:
    return CallRequest(messages=[{"role": "user", "content": text}], settings=settings, **kw)


def assert_every_attempt_logged(db, gateway, server, study_id=None):
    rows = calls_for(db, study_id=study_id)
    network_rows = [r for r in rows if r["status"] != "replayed"]
    assert len(network_rows) == server.count
    lines = gateway.log_path(study_id).read_text().splitlines()
    assert len(lines) == len(rows)
    assert [json.loads(line)["attempt"] for line in lines] == [r["attempt"] for r in rows]
    assert verify_log(gateway.log_path(study_id)).ok


async def test_streams_tokens_and_records_usage(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.text("Delay the launch until the audit is done",
                                     usage={"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}))
    sink = ListSink()
    result = await make_gateway().call(ask(remote, run_id=None, turn="t1", agent="chair", stream=True), sink)
    assert result.text == "Delay the launch until the audit is done"
    assert result.finish_reason == "stop"
    assert (result.input_tokens, result.output_tokens) == (11, 22)  # the server's usage chunk
    assert result.cost is None  # an unmapped model: unknown, not zero
    tokens = [e for e in sink.events if e.kind == TOKEN]
    assert len(tokens) == 8 and "".join(e.payload["text"] for e in tokens) == result.text
    assert all(e.turn == "t1" and e.agent == "chair" for e in tokens)
    body = loopback_server.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.0 and body["max_tokens"] == 64
    [row] = calls_for(db)
    assert row["status"] == "ok" and row["response"] == result.text and row["input_tokens"] == 11
    assert json.loads(row["request"])[0]["content"] == "What should the board decide?"
    assert json.loads(row["settings"]) == {"temperature": 0.0, "seed": None, "max_tokens": 64,
                                           "structured": "none", "stream": True}


async def test_a_call_no_one_watches_is_one_whole_reply_with_the_same_record(db, make_gateway, remote,
                                                                               loopback_server):
    loopback_server.queue(Reply.text("Delay the launch until the audit is done", finish_reason="length",
                                     usage={"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}))
    sink = ListSink()
    result = await make_gateway().call(ask(remote, turn="t1"), sink)
    body = loopback_server.requests[0]
    assert not body.get("stream") and "stream_options" not in body
    assert result.text == "Delay the launch until the audit is done"
    assert result.finish_reason == "length"  # the provider's own finish reason: cut at max_tokens
    assert (result.input_tokens, result.output_tokens) == (11, 22)
    [token] = [e for e in sink.events if e.kind == TOKEN]  # displays still get the text, once
    assert token.payload["text"] == result.text
    [row] = calls_for(db)
    assert row["status"] == "ok" and row["finish_reason"] == "length" and row["output_tokens"] == 22
    assert json.loads(row["settings"])["stream"] is False
    assert_every_attempt_logged(db, make_gateway(), loopback_server)


async def test_a_watching_sink_or_stream_setting_streams(make_gateway, remote, loopback_server):
    class Watching(ListSink):
        def __init__(self, watched):
            super().__init__()
            self.watched = watched

        def watching(self, run_id):
            return self.watched

    loopback_server.responder = lambda body: Reply.text("ok")
    gateway = make_gateway()
    await gateway.call(ask(remote, text="a"), FanoutSink(ListSink(), Watching(True)))
    await gateway.call(ask(remote, text="b"), FanoutSink(ListSink(), Watching(False)))
    await make_gateway(stream=True).call(ask(remote, text="c"), ListSink())
    assert [bool(b.get("stream")) for b in loopback_server.requests] == [True, False, True]


async def test_429_waits_for_retry_after(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.rate_limited(retry_after=1), Reply.text("after the wait"))
    sink = ListSink()
    gateway = make_gateway()
    result = await gateway.call(ask(remote), sink)
    assert result.text == "after the wait" and result.attempts == 2
    waited = loopback_server.request_times[1] - loopback_server.request_times[0]
    assert waited >= 1.0  # the backoff alone would have waited at most 0.1 s
    [retry] = [e for e in sink.events if e.kind == CALL_RETRY]
    assert retry.payload["status"] == 429 and retry.payload["retry_after"] == 1.0
    assert_every_attempt_logged(db, gateway, loopback_server)


async def test_retry_after_beyond_the_time_bound_fails_without_waiting(make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.rate_limited(retry_after=30))
    gateway = make_gateway(retry=RetryPolicy(max_attempts=5, base_delay=0.01, max_total=2.0))
    started = time.monotonic()
    with pytest.raises(GatewayError, match="retry time bound"):
        await gateway.call(ask(remote))
    assert time.monotonic() - started < 2.0 and loopback_server.count == 1


async def test_500_is_retried(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.server_error(), Reply.server_error(), Reply.text("recovered"))
    gateway = make_gateway()
    result = await gateway.call(ask(remote))
    assert result.text == "recovered" and result.attempts == 3 and loopback_server.count == 3
    statuses = [r["status"] for r in calls_for(db)]
    assert statuses == ["error", "error", "ok"]
    assert_every_attempt_logged(db, gateway, loopback_server)


@pytest.mark.parametrize("stream,timers,message", [
    (False, {"timeout": 1.0}, r"no whole reply within 1s \(timeout\)"),
    (True, {"timeout": 1.0}, r"no first token within 1s \(timeout\)"),
    (True, {"timeout": 30.0, "first_token_timeout": 1.0}, r"no first token within 1s \(first_token_timeout\)")])
async def test_hang_past_timeout_is_retried_then_fails(db, make_gateway, remote, loopback_server, stream, timers,
                                                       message):
    """Each message names the timer that fired and its value."""
    loopback_server.queue(Reply.hung(5), Reply.hung(5))
    gateway = make_gateway(retry=RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02))
    started = time.monotonic()
    with pytest.raises(GatewayError, match=message) as info:
        await gateway.call(ask(replace(remote, **timers), stream=stream))
    elapsed = time.monotonic() - started
    assert info.value.attempts == 2 and loopback_server.count == 2
    assert 2.0 <= elapsed < 6.0  # two 1 s timeouts, not two 5 s hangs
    assert [r["status"] for r in calls_for(db)] == ["error", "error"]
    assert_every_attempt_logged(db, gateway, loopback_server)


async def test_stall_mid_stream_is_retried(make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.text("slow words here", chunk_delay=3.0), Reply.text("quick"))
    sink = ListSink()
    result = await make_gateway(stall_timeout=0.5).call(ask(remote, stream=True), sink)
    assert result.text == "quick" and loopback_server.count == 2
    [retry] = [e for e in sink.events if e.kind == CALL_RETRY]
    assert "stalled for more than 0.5s between tokens (stall_timeout)" in retry.payload["error"]


async def test_waiting_in_the_server_queue_is_not_a_stall(make_gateway, remote, loopback_server):
    """A slow first token (a queued request, a long prompt) is the first-token timer's, not the stall's."""
    loopback_server.queue(Reply.text("late but whole", latency=1.0))
    result = await make_gateway(stall_timeout=0.3).call(ask(remote, stream=True))
    assert result.text == "late but whole" and loopback_server.count == 1


async def test_malformed_body_is_retried_and_never_stored_as_an_answer(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.malformed(), Reply.text("well formed"))
    gateway = make_gateway()
    result = await gateway.call(ask(remote))
    assert result.text == "well formed" and loopback_server.count == 2
    first = calls_for(db)[0]
    assert first["status"] == "error" and first["response"] is None


async def test_malformed_body_every_time_fails_clearly(make_gateway, remote, loopback_server):
    loopback_server.responder = lambda body: Reply.malformed()
    with pytest.raises(GatewayError, match="without a finish reason"):
        await make_gateway().call(ask(remote, stream=True))
    assert loopback_server.count == 4  # FAST_RETRY.max_attempts
    with pytest.raises(GatewayError, match=r"\[4 attempts made\]"):   # a whole reply that is not JSON
        await make_gateway().call(ask(remote, text="whole"))
    assert loopback_server.count == 8


async def test_401_fails_at_once(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.unauthorized(), Reply.text("never reached"))
    gateway = make_gateway()
    with pytest.raises(GatewayError) as info:
        await gateway.call(ask(remote))
    assert loopback_server.count == 1 and info.value.attempts == 1 and not info.value.retryable
    assert "invalid api key" in str(info.value)
    assert_every_attempt_logged(db, gateway, loopback_server)


async def test_other_4xx_is_not_retried(make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.status(400, message="bad request"), Reply.text("never reached"))
    with pytest.raises(GatewayError):
        await make_gateway().call(ask(remote))
    assert loopback_server.count == 1


async def test_stream_cut_after_three_chunks_is_retried(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.cut(after=3, content="one two three four five"), Reply.text("whole answer"))
    sink = ListSink()
    gateway = make_gateway()
    result = await gateway.call(ask(remote, stream=True), sink)
    assert result.text == "whole answer" and loopback_server.count == 2
    cut, ok = calls_for(db)
    assert cut["status"] == "error" and cut["response"] is None and "finish reason" in cut["error"]
    log_first = json.loads(gateway.log_path(None).read_text().splitlines()[0])
    assert log_first["partial_response"] == "one two three"  # kept for audit, never as the answer
    [retry] = [e for e in sink.events if e.kind == CALL_RETRY]
    assert retry.payload["discard_partial"] is True
    assert_every_attempt_logged(db, gateway, loopback_server)


async def test_stream_without_finish_reason_is_retried(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.no_finish(), Reply.text("finished properly"))
    result = await make_gateway().call(ask(remote, stream=True))
    assert result.text == "finished properly" and result.attempts == 2


async def test_corrupted_chunk_is_retried(make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.corrupted(at=1), Reply.text("clean"))
    result = await make_gateway().call(ask(remote, stream=True))
    assert result.text == "clean" and loopback_server.count == 2


async def test_truncated_every_time_fails_and_stores_no_answer(db, make_gateway, remote, loopback_server):
    loopback_server.responder = lambda body: Reply.cut(after=2)
    with pytest.raises(GatewayError):
        await make_gateway().call(ask(remote, stream=True))
    assert {r["status"] for r in calls_for(db)} == {"error"}
    assert all(r["response"] is None for r in calls_for(db))
