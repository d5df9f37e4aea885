"""Concurrency cap, rate limits, cost from the cost map, the per-study ceiling, the mock model."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.support.loopback import Reply
from workbench.gateway import CallRequest, CostCeilingReached, ModelSettings
from workbench.gateway.limits import ModelLimits, ModelRateLimiter
from workbench.gateway.mock import PLACEHOLDER_PREFIX
from workbench.gateway.transport import litellm_kwargs, litellm_module
from workbench.runs.context import RunContext, parallel, user

USAGE = {"prompt_tokens": 1000, "completion_tokens": 1000, "total_tokens": 2000}


def ask(settings, i=0, **kw):
    return CallRequest(messages=[{"role": "user", "content": f"question {i}"}], settings=settings, **kw)


async def test_concurrency_cap_bounds_requests_in_flight(make_gateway, remote, loopback_server):
    loopback_server.latency = 0.2
    gateway = make_gateway(concurrency=2)
    results = await asyncio.gather(*(gateway.call(ask(remote, i)) for i in range(6)))
    assert len(results) == 6 and loopback_server.count == 6
    assert loopback_server.max_in_flight == 2


async def test_requests_per_minute_are_paced(make_gateway, remote, loopback_server):
    gateway = make_gateway(limits={remote.model: ModelLimits(rpm=2)}, rate_window=0.6)
    started = time.monotonic()
    await asyncio.gather(*(gateway.call(ask(remote, i)) for i in range(4)))
    # Four calls at two per 0.6 s window: the last two wait for the window to roll over.
    assert max(loopback_server.request_times) - started >= 0.55 and loopback_server.count == 4


async def test_tokens_per_minute_are_paced(make_gateway, remote, loopback_server):
    # Each call is estimated at its max_tokens (64) plus a few prompt tokens: two fit in 150, three do not.
    gateway = make_gateway(limits={remote.model: ModelLimits(tpm=150)}, rate_window=0.6)
    loopback_server.responder = lambda body: Reply.text("ok", usage={"prompt_tokens": 5, "completion_tokens": 60,
                                                                      "total_tokens": 65})
    started = time.monotonic()
    await asyncio.gather(*(gateway.call(ask(remote, i)) for i in range(3)))
    assert max(loopback_server.request_times) - started >= 0.55


class FakeTime:
    """A clock that only moves when the limiter sleeps, so start times are exact."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_rate_limiter_start_times_exactly(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr("workbench.gateway.limits.asyncio.sleep", fake.sleep)
    rpm = ModelRateLimiter(ModelLimits(rpm=2), clock=fake.clock, window=60.0)
    starts = [(await rpm.acquire())[0] for _ in range(5)]
    assert starts == [0.0, 0.0, 60.0, 60.0, 120.0]

    fake.now = 0.0
    tpm = ModelRateLimiter(ModelLimits(tpm=1000), clock=fake.clock, window=60.0)
    first = await tpm.acquire(600)
    tpm.settle(first, 100)  # the call used far less than estimated: room frees up at once
    second = await tpm.acquire(600)
    third = await tpm.acquire(600)  # 100 + 600 + 600 > 1000: waits for the first to leave the window
    assert (first[0], second[0], third[0]) == (0.0, 0.0, 60.0)
    huge = await tpm.acquire(5000)  # bigger than the whole budget: waits for an empty window, then goes alone
    assert huge[0] == 120.0


async def test_cost_comes_from_the_cost_map(make_gateway, loopback_server):
    mapped = ModelSettings(model="openai/gpt-4o-mini", api_base=loopback_server.url, timeout=5.0)
    loopback_server.queue(Reply.text("priced", usage=USAGE))
    result = await make_gateway().call(ask(mapped))
    prompt, completion = litellm_module().cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=1000,
                                                         completion_tokens=1000)
    assert result.cost == pytest.approx(prompt + completion) and result.cost > 0


async def test_an_unpriced_model_is_looked_up_in_the_cost_map_once(make_gateway, loopback_server, monkeypatch):
    litellm = litellm_module()
    asked: list[str] = []
    real = litellm.cost_per_token
    monkeypatch.setattr(litellm, "cost_per_token", lambda **kw: (asked.append(kw["model"]), real(**kw))[1])
    local = ModelSettings(model="openai/unpriced-local-model", api_base=loopback_server.url, timeout=5.0)
    gateway = make_gateway()
    results = [await gateway.call(ask(local, i, study_id="s")) for i in range(3)]
    assert [r.cost for r in results] == [None, None, None]                 # unknown, never 0.0
    assert asked.count("openai/unpriced-local-model") == 1                 # not twice a call
    mapped = ModelSettings(model="openai/gpt-4o-mini", api_base=loopback_server.url, timeout=5.0)
    loopback_server.queue(Reply.text("priced", usage=USAGE))
    assert (await gateway.call(ask(mapped, study_id="s"))).cost > 0         # a priced model is still priced


async def test_cost_ceiling_stops_new_calls(make_gateway, loopback_server):
    mapped = ModelSettings(model="openai/gpt-4o-mini", api_base=loopback_server.url, timeout=5.0)
    loopback_server.responder = lambda body: Reply.text("priced", usage=USAGE)
    gateway = make_gateway(cost_ceiling_default=0.0005)  # one call costs 0.00075 USD
    first = await gateway.call(ask(mapped, 0, study_id="capped"))
    with pytest.raises(CostCeilingReached, match="cost ceiling"):
        await gateway.call(ask(mapped, 1, study_id="capped"))
    assert loopback_server.count == 1
    # Replays spend nothing and are still served; another study is not affected.
    assert (await gateway.call(ask(mapped, 0, study_id="capped"))).text == first.text
    await gateway.call(ask(mapped, 2, study_id="other"))
    # A new gateway (a resumed process) reads what the study already spent from the store.
    with pytest.raises(CostCeilingReached):
        await make_gateway(cost_ceiling_default=0.0005).call(ask(mapped, 3, study_id="capped"))
    totals = gateway.totals(study_id="capped")
    assert totals["ok"] == 1 and totals["replayed"] == 1 and totals["cost"] == pytest.approx(first.cost)


async def test_explicit_ceiling_overrides_and_none_lifts_it(make_gateway, loopback_server):
    mapped = ModelSettings(model="openai/gpt-4o-mini", api_base=loopback_server.url, timeout=5.0)
    loopback_server.responder = lambda body: Reply.text("priced", usage=USAGE)
    gateway = make_gateway(cost_ceiling_default=0.0005)
    gateway.set_cost_ceiling("s", None)
    for i in range(3):
        await gateway.call(ask(mapped, i, study_id="s"))
    assert loopback_server.count == 3


async def test_mock_is_offline_placeholder_and_deterministic(make_gateway, loopback_server):
    request = CallRequest(messages=[{"role": "user", "content": "Assess the merger"}],
                          settings=ModelSettings(model="mock"), role="architecture", agent="member-3",
                          turn="C2-opening", cache=False)
    first = await make_gateway().call(request)
    second = await make_gateway().call(request)
    assert first.placeholder and first.text.startswith(PLACEHOLDER_PREFIX)
    assert "member-3" in first.text and "C2-opening" in first.text
    assert first.text == second.text and first.cost == 0.0 and first.finish_reason == "stop"
    other = await make_gateway().call(CallRequest(messages=request.messages, settings=request.settings,
                                                  replicate=1, cache=False))
    assert other.text != first.text  # replicates are distinct draws, even for the mock
    assert loopback_server.count == 0


async def test_the_mocks_whole_reply_is_what_litellms_mock_response_gives(make_gateway):
    """The offline models' whole replies come from litellm's mock directly (not through `acompletion`'s
    logging and pricing): text, finish reason and tokens are those `acompletion(mock_response=...)` gives."""
    from workbench.gateway.mock import mock_text

    request = CallRequest(messages=[{"role": "user", "content": "Assess the merger"}],
                          settings=ModelSettings(model="mock"), agent="judge-a", turn="t1", cache=False, stream=False)
    result = await make_gateway().call(request)
    reference = await litellm_module().acompletion(**litellm_kwargs(request.settings, request.messages,
                                                                    mock_text(request), stream=False))
    assert result.text == reference.choices[0].message.content == mock_text(request)
    assert result.finish_reason == reference.choices[0].finish_reason == "stop"
    assert (result.input_tokens, result.output_tokens) == (reference.usage.prompt_tokens,
                                                           reference.usage.completion_tokens)
    assert result.cost == 0.0 and not result.replayed


async def test_parallel_mock_turns_start_together_then_finish(make_gateway):
    """A mock call still waits once: a run's parallel turns all start before the first finishes, as against a
    server, so a transcript keeps its order."""
    seen = []

    class Sink:
        def emit(self, event):
            if event.kind in ("turn_started", "turn_finished"):
                seen.append((event.kind, event.turn))

    litellm_module()  # imported already, as in a study after its first call (the import itself waits)
    ctx = RunContext(gateway=make_gateway(), sink=Sink(), settings=ModelSettings(model="mock"), item="", options={},
                     run_id=None)
    await parallel(*(ctx.turn(f"t{i}", f"a{i}", [user(f"q{i}")], phase="p", label="L") for i in range(3)))
    assert seen == [("turn_started", "t0"), ("turn_started", "t1"), ("turn_started", "t2"),
                    ("turn_finished", "t0"), ("turn_finished", "t1"), ("turn_finished", "t2")]


async def test_the_study_rows_ceiling_applies_and_calls_outside_studies_have_none(db, make_gateway, loopback_server):
    db["studies"].insert({"id": "frozen", "name": "frozen", "protocol": "hindsight", "definition": "{}",
                          "created_at": "2026-01-01T00:00:00+00:00", "cost_ceiling": 0.0005})
    mapped = ModelSettings(model="openai/gpt-4o-mini", api_base=loopback_server.url, timeout=5.0)
    loopback_server.responder = lambda body: Reply.text("priced", usage=USAGE)
    gateway = make_gateway(cost_ceiling_default=100.0)
    assert gateway.cost_ceiling("frozen") == 0.0005 and gateway.cost_ceiling(None) is None
    await gateway.call(ask(mapped, 0, study_id="frozen"))
    with pytest.raises(CostCeilingReached):
        await gateway.call(ask(mapped, 1, study_id="frozen"))
    for i in range(2):  # a probe or a connection test is not a study's spending
        await gateway.call(ask(mapped, i, study_id=None))
    assert loopback_server.count == 3
