"""Replay: logged calls are served without the network; replay-only fails clearly on a miss."""

from __future__ import annotations

import pytest

from store.calls import calls_for
from tests.support.loopback import Reply
from workbench.gateway import CallRequest, ReplayMiss
from workbench.gateway.api import ModelSettings


def numbered(body: dict) -> str:
    # A different answer for every request, so a replay that hit the network would show.
    return f"answer {len(body['messages'][0]['content'])} {id(body)}"


def study_requests(settings, study="s1"):
    out = []
    for case in ("harbor", "bridge"):
        for replicate in (0, 1):
            out.append(CallRequest(messages=[{"role": "user", "content": f"case {case}: decide"}],
                                   settings=settings, study_id=study, turn=f"{case}-final", replicate=replicate))
    return out


async def test_replayed_study_makes_no_requests_and_is_byte_identical(db, make_gateway, remote, loopback_server):
    loopback_server.responder = numbered
    first = [await make_gateway().call(r) for r in study_requests(remote)]
    assert loopback_server.count == 4  # two replicates of one prompt are two calls
    assert len({r.text for r in first}) == 4
    loopback_server.reset()

    for gateway in (make_gateway(), make_gateway(replay_only=True)):
        again = [await gateway.call(r) for r in study_requests(remote)]
        assert loopback_server.count == 0
        assert [r.text.encode() for r in again] == [r.text.encode() for r in first]
        assert all(r.replayed and r.attempts == 0 for r in again)
    statuses = [r["status"] for r in calls_for(db, study_id="s1")]
    assert statuses == ["ok"] * 4 + ["replayed"] * 8


async def test_replay_only_miss_names_turn_and_model(make_gateway, remote, loopback_server):
    gateway = make_gateway(replay_only=True)
    request = CallRequest(messages=[{"role": "user", "content": "never asked"}], settings=remote,
                          study_id="s1", turn="C2-vote-3", agent="member-2")
    with pytest.raises(ReplayMiss) as info:
        await gateway.call(request)
    assert "C2-vote-3" in str(info.value) and "openai/loopback-test" in str(info.value)
    assert loopback_server.count == 0


async def test_errors_are_never_replayed(db, make_gateway, remote, loopback_server):
    loopback_server.queue(Reply.unauthorized())
    request = CallRequest(messages=[{"role": "user", "content": "q"}], settings=remote, study_id="s1")
    with pytest.raises(Exception):
        await make_gateway().call(request)
    with pytest.raises(ReplayMiss):
        await make_gateway(replay_only=True).call(request)
    loopback_server.queue(Reply.text("now it works"))
    result = await make_gateway().call(request)
    assert result.text == "now it works" and not result.replayed and loopback_server.count == 2


async def test_key_covers_settings_sample_and_study(make_gateway, remote, loopback_server):
    loopback_server.responder = numbered
    gateway = make_gateway()
    base = dict(messages=[{"role": "user", "content": "same prompt"}], study_id="s1")
    await gateway.call(CallRequest(settings=remote, **base))
    await gateway.call(CallRequest(settings=remote, sample=1, **base))
    await gateway.call(CallRequest(settings=ModelSettings(**{**remote.to_dict(), "temperature": 0.9}), **base))
    await gateway.call(CallRequest(settings=remote, **{**base, "study_id": "s2"}))
    assert loopback_server.count == 4
    # Neither api_base nor timeout is part of the key: a moved local server still replays.
    moved = ModelSettings(**{**remote.to_dict(), "api_base": "http://127.0.0.1:9/v1", "timeout": 5.0})
    assert (await gateway.call(CallRequest(settings=moved, **base))).replayed


async def test_cache_false_always_calls(make_gateway, remote, loopback_server):
    request = CallRequest(messages=[{"role": "user", "content": "ping"}], settings=remote, cache=False)
    gateway = make_gateway()
    await gateway.call(request)
    await gateway.call(request)
    assert loopback_server.count == 2


async def test_resume_replays_completed_calls_and_makes_only_the_rest(make_gateway, remote, loopback_server):
    """An interrupted study: the calls done before the kill are replayed; only the rest hit the network."""
    loopback_server.responder = numbered
    requests = study_requests(remote)
    done = [await make_gateway().call(r) for r in requests[:2]]  # then the process died
    loopback_server.reset()
    resumed = [await make_gateway().call(r) for r in requests]
    assert loopback_server.count == 2
    assert [r.replayed for r in resumed] == [True, True, False, False]
    assert [r.text for r in resumed[:2]] == [r.text for r in done]


async def test_identical_calls_in_flight_make_one_request_and_replicates_stay_apart(db, make_gateway, remote,
                                                                                    loopback_server):
    import asyncio

    loopback_server.responder = numbered
    loopback_server.latency = 0.3  # long enough for the second caller to arrive while the first is out
    gateway = make_gateway()
    same = study_requests(remote)[0]
    other_replicate = study_requests(remote)[1]
    results = await asyncio.gather(gateway.call(same), gateway.call(same), gateway.call(other_replicate))
    assert loopback_server.count == 2  # one for the shared call, one for the other replicate
    assert results[0].text == results[1].text != results[2].text
    assert sorted([results[0].replayed, results[1].replayed]) == [False, True]
    rows = calls_for(db, study_id="s1")
    assert sorted(r["status"] for r in rows) == ["ok", "ok", "replayed"]
    shared = next(r for r in rows if r["status"] == "replayed")
    leader = next(r for r in rows if r["status"] == "ok" and r["call_key"] == shared["call_key"])
    assert shared["response"] == leader["response"]  # recorded once as a call, served to both


async def test_a_failed_call_in_flight_is_never_shared(db, make_gateway, remote, loopback_server):
    import asyncio

    loopback_server.latency = 0.3
    loopback_server.queue(Reply.unauthorized())  # the first request fails (401: not retried)
    loopback_server.queue(Reply.text("the waiter's own answer"))
    gateway = make_gateway()
    request = study_requests(remote)[0]
    first, second = await asyncio.gather(gateway.call(request), gateway.call(request), return_exceptions=True)
    assert isinstance(first, Exception)
    assert second.text == "the waiter's own answer" and not second.replayed
    assert loopback_server.count == 2


async def test_cancelling_a_waiter_leaves_the_call_it_waits_for(db, make_gateway, remote, loopback_server):
    import asyncio

    loopback_server.responder = numbered
    loopback_server.latency = 0.3
    gateway = make_gateway()
    request = study_requests(remote)[0]
    leader = asyncio.ensure_future(gateway.call(request))
    await asyncio.sleep(0.05)
    waiter = asyncio.ensure_future(gateway.call(request))
    await asyncio.sleep(0.05)
    waiter.cancel()
    result = await leader
    assert not result.replayed and result.text.startswith("answer")
    assert waiter.cancelled() and loopback_server.count == 1
