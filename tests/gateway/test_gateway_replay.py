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
