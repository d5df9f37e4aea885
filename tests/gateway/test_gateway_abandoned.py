"""An abandoned generation is seen (issue 40): after a whole-reply call was cancelled, a call to the same server
that gets no first token within its first-token timeout says the server may still be busy with the abandoned
request, and how long it has waited. A cancelled stream is not named: closing it stopped its generation."""

from __future__ import annotations

import asyncio

from store.studies import save_study
from tests.support.loopback import Reply
from workbench.events import CALL_NOTICE, ListSink
from workbench.gateway import CallRequest, ModelSettings


def ask(settings, text, **kw) -> CallRequest:
    return CallRequest(messages=[{"role": "user", "content": text}], settings=settings, study_id="s1", **kw)


async def abandon(gateway, settings, server, *, stream: bool) -> None:
    """A call cancelled while the server is still generating its reply (Ctrl-C on a run)."""
    task = asyncio.ensure_future(gateway.call(ask(settings, "the first question", stream=stream)))
    while server.count == 0:  # the request reached the server
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_call_past_its_first_token_timeout_names_the_abandoned_request(db, make_gateway, loopback_server):
    save_study(db, study_id="s1", name="s1", protocol="hindsight", definition={}, source_text="", cost_ceiling=None)
    settings = ModelSettings(model="openai/slot", api_base=loopback_server.url, timeout=5.0, first_token_timeout=0.2)
    gateway = make_gateway()
    loopback_server.queue(Reply.hung(2.0))
    await abandon(gateway, settings, loopback_server, stream=False)
    loopback_server.responder = lambda body: Reply.text("at last", latency=0.5)
    sink = ListSink()
    result = await gateway.call(ask(settings, "the resume's question", stream=False), sink)
    assert result.text == "at last"
    [said] = [e.payload for e in sink.events if e.kind == CALL_NOTICE]
    assert said["message"].startswith(f"no first token from {loopback_server.url} after ")
    assert "s: the server may still be busy with a request abandoned at " in said["message"]
    assert "cancelled while its whole reply was being generated" in said["message"] and said["waited"] >= 0.2


async def test_a_cancelled_stream_or_a_prompt_reply_says_nothing(db, make_gateway, loopback_server):
    save_study(db, study_id="s1", name="s1", protocol="hindsight", definition={}, source_text="", cost_ceiling=None)
    settings = ModelSettings(model="openai/slot", api_base=loopback_server.url, timeout=5.0, first_token_timeout=0.2)
    gateway = make_gateway()
    loopback_server.queue(Reply.hung(2.0))
    await abandon(gateway, settings, loopback_server, stream=True)     # closing the stream stopped it: nothing to name
    loopback_server.responder = lambda body: Reply.text("late", latency=0.5)
    sink = ListSink()
    await gateway.call(ask(settings, "slow", stream=False), sink)
    assert not [e for e in sink.events if e.kind == CALL_NOTICE]
