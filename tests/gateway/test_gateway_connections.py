"""Connections that fit the server (issue 19): per-model limits, adaptive limits per endpoint, timers,
keyless servers and missing keys, against loopback servers (one of them single-slot like llama-cpp-python's)."""

from __future__ import annotations

import asyncio
import json

import pytest

from store.calls import calls_for
from store.connections import changes_for
from tests.support.loopback import LoopbackServer, Reply
from workbench.events import CONNECTIONS, ListSink
from workbench.gateway import CallRequest, GatewayError, ModelSettings
from workbench.gateway.connections import EndpointLimiter, summary_lines
from workbench.gateway.retry import RetryPolicy
from workbench.structured.counts import schema_fallbacks, section

PATIENT = RetryPolicy(max_attempts=6, base_delay=0.02, max_delay=0.1, max_total=60.0)


def ask(settings, text, **kw) -> CallRequest:
    return CallRequest(messages=[{"role": "user", "content": text}], settings=settings, **kw)


@pytest.fixture
def single_slot(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    with LoopbackServer(single_slot=True, latency=0.02) as server:
        server.responder = lambda body: Reply.text("a whole answer of eight words in chunks", chunk_delay=0.03)
        yield server


async def test_a_single_slot_server_loses_no_call_when_streams_are_cut(db, make_gateway, single_slot):
    """Eight streamed calls at once: the server cuts the ones it serves; the gateway lowers the endpoint's
    connections until none is cut, every call ends whole, and every change is on record."""
    gateway = make_gateway(retry=PATIENT, concurrency=8)
    settings = ModelSettings(model="openai/slot", api_base=single_slot.url, timeout=20.0, temperature=0.0)
    sink = ListSink()
    results = await asyncio.gather(*(gateway.call(ask(settings, f"question {i}", stream=True, study_id=None), sink)
                                     for i in range(8)))
    assert all(r.text == "a whole answer of eight words in chunks" for r in results)
    assert single_slot.interrupted >= 1                          # the server did cut streams
    changes = [e.payload for e in sink.events if e.kind == CONNECTIONS]
    assert changes and changes[0]["old"] == 8 and changes[0]["reason"] == "interrupted stream"
    assert min(c["new"] for c in changes) == 1
    rows = calls_for(db)
    assert len([r for r in rows if r["status"] in ("ok", "error")]) == single_slot.count  # nothing unrecorded
    assert sum(r["status"] == "ok" for r in rows) == 8


async def test_whole_replies_queue_at_a_single_slot_server_without_a_retry(db, make_gateway, single_slot):
    gateway = make_gateway(retry=PATIENT, concurrency=8)
    settings = ModelSettings(model="openai/slot", api_base=single_slot.url, timeout=20.0, temperature=0.0)
    results = await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(6)))
    assert len(results) == 6 and single_slot.count == 6 and single_slot.interrupted == 0
    assert all(r.attempts == 1 for r in results)


async def test_a_models_max_connections_bounds_what_the_server_sees(make_gateway, loopback_server):
    loopback_server.responder = lambda body: Reply.text("ok", latency=0.1)
    gateway = make_gateway(concurrency=8)
    settings = ModelSettings(model="openai/limited", api_base=loopback_server.url, max_connections=2)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(8)))
    assert loopback_server.count == 8 and loopback_server.max_in_flight == 2


async def test_a_second_model_on_the_endpoint_can_lower_its_ceiling_but_never_raise_it(make_gateway,
                                                                                         loopback_server):
    loopback_server.responder = lambda body: Reply.text("ok", latency=0.1)
    gateway = make_gateway(concurrency=8)
    wide = ModelSettings(model="openai/wide", api_base=loopback_server.url, max_connections=4)
    narrow = ModelSettings(model="openai/narrow", api_base=loopback_server.url, max_connections=1)
    await asyncio.gather(*(gateway.call(ask(wide, f"w{i}")) for i in range(4)))
    assert loopback_server.max_in_flight > 1
    loopback_server.max_in_flight = 0
    await asyncio.gather(*(gateway.call(ask(narrow, f"n{i}")) for i in range(3)),
                         *(gateway.call(ask(wide, f"v{i}")) for i in range(3)))
    assert loopback_server.max_in_flight == 1    # one server, one limiter: the narrower model's ceiling holds


async def test_the_commands_max_connections_is_a_ceiling_for_every_model(make_gateway, loopback_server):
    loopback_server.responder = lambda body: Reply.text("ok", latency=0.1)
    gateway = make_gateway(concurrency=8, max_connections=3)
    settings = ModelSettings(model="openai/any", api_base=loopback_server.url)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(9)))
    assert loopback_server.max_in_flight == 3


async def test_a_429_burst_halves_the_connections_and_is_recorded_for_the_study(db, make_gateway, loopback_server):
    from store.studies import save_study

    save_study(db, study_id="s1", name="s1", protocol="hindsight", definition={}, source_text="", cost_ceiling=None)
    replies = [Reply.rate_limited(retry_after=0.05)] * 3
    loopback_server.queue(*replies)
    loopback_server.responder = lambda body: Reply.text("ok")
    gateway = make_gateway(retry=PATIENT, concurrency=8)
    settings = ModelSettings(model="openai/busy", api_base=loopback_server.url)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}", study_id="s1")) for i in range(3)))
    recorded = changes_for(db, "s1")
    assert [c["new"] for c in recorded][:3] == [4, 2, 1]
    assert all(c["reason"] == "429 Too Many Requests" for c in recorded[:3])
    assert summary_lines(recorded)[0].startswith(
        f"connections to {loopback_server.url}: 8 → 1 after 3 429 Too Many Requests")


async def test_the_limit_grows_back_slowly_while_calls_succeed():
    changes = []
    limiter = EndpointLimiter("http://x/v1", ceiling=4, on_change=changes.append)
    await limiter.acquire()
    await limiter.release(ok=False, failure_kind="incomplete_stream")
    assert limiter.limit == 2
    for _ in range(7):                       # fewer than GROW_AFTER x limit successes while limited
        await limiter.acquire()
        await limiter.acquire()
        await limiter.release(ok=True)
        await limiter.release(ok=True)
    assert limiter.limit == 3 and [c.new for c in changes] == [2, 3]
    assert changes[1].reason == "calls succeeding"


class CountingLimiter(EndpointLimiter):
    """Counts how often a waiter looks for room (each look is a task woken on the event loop)."""

    looks = 0

    def has_room(self) -> bool:
        self.looks += 1
        return super().has_room()


async def test_a_release_wakes_only_the_waiters_there_is_room_for():
    """Thousands of runs queue at one endpoint: a release must not wake every one of them to find no room."""
    limiter = CountingLimiter("http://x/v1", ceiling=2, asked=True)
    await limiter.acquire()
    await limiter.acquire()
    waiters = [asyncio.create_task(limiter.acquire()) for _ in range(200)]
    await asyncio.sleep(0)
    limiter.looks = 0
    for _ in range(50):
        await limiter.release(ok=True)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    assert sum(w.done() for w in waiters) == 50 and limiter.in_flight == 2
    assert limiter.looks <= 3 * 50           # waking all would look 200 + 199 + ... times
    for w in waiters:
        w.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)


async def test_a_waiter_cancelled_after_its_wake_up_passes_the_room_on():
    limiter = EndpointLimiter("http://x/v1", ceiling=1, asked=True)
    await limiter.acquire()
    first = asyncio.create_task(limiter.acquire())
    second = asyncio.create_task(limiter.acquire())
    await asyncio.sleep(0)
    await limiter.release(ok=True)           # wakes `first` ...
    first.cancel()                           # ... which is cancelled before it runs
    await asyncio.wait_for(second, 1.0)      # the room goes to `second`, not lost
    assert limiter.in_flight == 1 and first.cancelled()


async def test_a_keyless_server_needs_no_key_in_the_environment(monkeypatch, make_gateway, loopback_server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url, api_key_env="none")
    result = await make_gateway().call(ask(settings, "hello"))
    assert result.text.startswith("echo") and loopback_server.count == 1


async def test_missing_credentials_fail_at_once_and_name_the_variable(monkeypatch, make_gateway, loopback_server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url)
    with pytest.raises(GatewayError, match="OPENAI_API_KEY") as info:
        await make_gateway(retry=PATIENT).call(ask(settings, "hello"))
    assert info.value.attempts == 1 and not info.value.retryable and loopback_server.count == 0
    named = ModelSettings(model="openai/local", api_base=loopback_server.url, api_key_env="MY_LOCAL_KEY")
    with pytest.raises(GatewayError, match="MY_LOCAL_KEY") as info:
        await make_gateway(retry=PATIENT).call(ask(named, "hello"))
    assert info.value.attempts == 1


SCHEMA = {"name": "verdict", "schema": {"type": "object", "properties": {"score": {"type": "integer",
                                                                                  "enum": [0, 1, 2, 3]}},
                                        "required": ["score"]}}


@pytest.mark.parametrize("structured,expected", [
    (None, {"type": "json_object", "schema": SCHEMA["schema"]}),          # a server on an api_base
    ("json_object", {"type": "json_object", "schema": SCHEMA["schema"]}),
    ("json_schema", {"type": "json_schema", "json_schema": {"name": "verdict", "schema": SCHEMA["schema"],
                                                             "strict": False}}),
    ("none", None)])
async def test_a_structured_step_sends_its_schema_as_the_model_allows(db, make_gateway, loopback_server,
                                                                      structured, expected):
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url, structured=structured)
    await make_gateway().call(ask(settings, "score it", response_schema=SCHEMA))
    assert loopback_server.requests[0].get("response_format") == expected
    [row] = calls_for(db)
    assert json.loads(row["settings"])["structured"] == (structured or "json_object")


async def test_no_schema_is_sent_for_a_free_text_step_or_an_offline_model(make_gateway, loopback_server):
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url, structured="json_schema")
    await make_gateway().call(ask(settings, "say anything"))
    assert "response_format" not in loopback_server.requests[0]
    result = await make_gateway().call(ask(ModelSettings(model="mock"), "x", response_schema=SCHEMA))
    assert result.placeholder


async def test_a_server_that_refuses_the_schema_is_asked_again_without_it(make_gateway, loopback_server):
    """llama-cpp-python answers a json_schema response_format with a 500 naming it; the gateway asks again
    without a schema at once, and no longer sends one to that server."""
    loopback_server.queue(Reply.status(500, message="1 validation error: body.response_format.type: Input should "
                                                    "be 'text' or 'json_object'"))
    loopback_server.responder = lambda body: Reply.text('{"score": 2}')
    gateway = make_gateway()
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url, structured="json_schema")
    result = await gateway.call(ask(settings, "score it", response_schema=SCHEMA))
    assert result.text == '{"score": 2}' and result.attempts == 2
    await gateway.call(ask(settings, "score another", response_schema=SCHEMA))
    assert ["response_format" in b for b in loopback_server.requests] == [True, False, False]


async def test_a_call_whose_schema_the_server_cannot_compile_is_asked_again_without_it(db, make_gateway,
                                                                                       loopback_server):
    """llama-cpp-python 0.3.36 drops the connection, unanswered, on a schema whose grammar it fails to parse: that
    call is asked again without its schema (named in its record and its retry event); other calls keep theirs,
    and an overload (503) keeps the schema."""
    loopback_server.responder = lambda body: Reply.hung(0.0) if "cannot" in str(body["messages"]) and \
        "response_format" in body else Reply.text('{"score": 2}')
    gateway = make_gateway(retry=PATIENT)
    settings = ModelSettings(model="openai/local", api_base=loopback_server.url)
    sink = ListSink()
    result = await gateway.call(ask(settings, "a schema it cannot compile", response_schema=SCHEMA, study_id="s"),
                                sink)
    assert result.text == '{"score": 2}' and result.attempts == 2
    assert ["response_format" in b for b in loopback_server.requests] == [True, False]
    first, second = (json.loads(r["settings"]) for r in calls_for(db))
    assert first["structured"] == "json_object" and "schema_dropped" not in first
    assert second["structured"] == "none" and "attempt 1 carried the schema" in second["schema_dropped"]
    [retry] = [e for e in sink.events if e.kind == "call_retry"]
    assert "without it" in retry.payload["schema_dropped"]
    said = section([], schema_fallbacks(db, "s"))                    # the report's structured section says so
    assert "Sent without their schema: 1 on openai/local call(s)" in said
    await gateway.call(ask(settings, "a schema it compiles", response_schema=SCHEMA))
    assert "response_format" in loopback_server.requests[-1]          # the endpoint is not marked schemaless
    loopback_server.queue(Reply.status(503, message="busy"))
    await gateway.call(ask(settings, "busy now", response_schema=SCHEMA))
    assert ["response_format" in b for b in loopback_server.requests[-2:]] == [True, True]


def test_the_schema_is_part_of_the_replay_key_only_when_given():
    from workbench.gateway import call_key

    plain = ask(ModelSettings(model="mock"), "x")
    assert call_key(plain) == call_key(ask(ModelSettings(model="mock"), "x", response_schema=None))
    assert call_key(plain) != call_key(ask(ModelSettings(model="mock"), "x", response_schema=SCHEMA))


def test_the_replay_key_is_the_sha256_of_the_whole_keys_canonical_json():
    """The key is written a member at a time with the schema's part kept: the same text as the whole key
    document encoded at once, and a schema changed in place gives the key of its new content."""
    import copy
    import hashlib

    from workbench.gateway import call_key
    from workbench.protocols.calibration.program import SCORE_SCHEMA

    def reference(request):
        doc = {"model": request.settings.model, "messages": request.messages,
               "sampling": request.settings.sampling(), "replicate": request.replicate, "sample": request.sample}
        if request.response_schema is not None:
            doc["schema"] = request.response_schema
        if request.role == "judge" and request.agent:
            doc["judge"] = request.agent
        if request.settings.model == "sim":
            doc["sim"] = {"study": request.study_id, "run": request.run_id, "agent": request.agent,
                          "turn": request.turn, "metadata": request.metadata}
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    schema = copy.deepcopy(SCORE_SCHEMA)
    requests = [ask(ModelSettings(model="mock", seed=3), "Évalue « ceci » — 0.25\n", response_schema=schema,
                    role="judge", agent="claude", replicate=2, sample=1),
                ask(ModelSettings(model="sim"), "x", study_id="s", run_id="r", turn="t", agent="a",
                    metadata={"condition": "B1", "phase": "p"}),
                ask(ModelSettings(model="mock"), "plain")]
    for request in requests * 2:  # the second time with the schema's part kept
        assert call_key(request) == reference(request)
    before = call_key(requests[0])
    schema["schema"]["properties"]["score"]["enum"].append(1.5)
    assert call_key(requests[0]) == reference(requests[0]) != before


def test_the_batch_display_says_when_the_connections_change():
    import io

    from workbench.cli.run_display import PlainDisplay
    from workbench.events import CONNECTIONS, Event

    out = io.StringIO()
    PlainDisplay(out).emit(Event(CONNECTIONS, payload={"endpoint": "http://127.0.0.1:8011/v1", "old": 8, "new": 4,
                                                       "reason": "interrupted stream"}))
    assert "connections http://127.0.0.1:8011/v1: 8 → 4 (interrupted stream)" in out.getvalue()
