"""What a cancel does to llama-cpp-python's generation (issue 40), which the loopback server cannot show: a
cancelled stream, closed by the gateway, stops the server's generation at its next token (the server prints
"Disconnected from client" and runs no more of it: the next request is the only generation its log counts);
a cancelled whole reply, whose connection the gateway closes the same way, is generated to its end all the
same (its timing lines follow, and no access-log line): the case workbench/gateway/abandoned.py names on resume.
The smallest setup: one call through the workbench's gateway, cancelled, then one short call."""

from __future__ import annotations

import asyncio
import time

import pytest

from store import open_memory_store
from workbench.events import TOKEN
from workbench.gateway import CallRequest, ModelSettings, build_gateway

pytestmark = pytest.mark.realmodel

STORY = [{"role": "user", "content": "Write a very long story about a lighthouse keeper, in many chapters."}]


def settings(server, max_tokens: int) -> ModelSettings:
    return ModelSettings(model="openai/smollm2", api_base=server.api_base, api_key_env="none", timeout=300.0,
                         temperature=0.8, max_tokens=max_tokens)


async def cancel_then_ask(server, *, stream: bool, max_tokens: int) -> tuple[int, str]:
    """A long call cancelled once the server is generating it, then a short one: (generations the server's log
    counts since, the log since)."""
    gateway = build_gateway(open_memory_store(), None)
    start = len(server.log_path.read_text(errors="replace"))
    before = server.generations()
    tokens: list = []

    class Tokens:
        def emit(self, event) -> None:
            if event.kind == TOKEN:
                tokens.append(event)

    long = asyncio.ensure_future(gateway.call(CallRequest(messages=STORY, settings=settings(server, max_tokens),
                                                          stream=stream), Tokens()))
    if stream:
        deadline = time.monotonic() + 120
        while len(tokens) < 3:  # generating
            assert time.monotonic() < deadline and not long.done(), "the long call never started generating"
            await asyncio.sleep(0.1)
    else:  # nothing shows a whole reply's start: an idle server starts it as it arrives, well within 2 s
        await asyncio.sleep(2.0)
    assert not long.done(), "the long call ended before its cancel"
    long.cancel()
    await asyncio.gather(long, return_exceptions=True)
    short = await gateway.call(CallRequest(messages=[{"role": "user", "content": "Say hi."}],
                                           settings=settings(server, 4), stream=False))
    assert short.text is not None
    return server.generations() - before, server.log_path.read_text(errors="replace")[start:]


async def test_a_cancelled_stream_stops_the_generation(server):
    generations, log = await cancel_then_ask(server, stream=True, max_tokens=2000)
    assert "Disconnected from client (via refresh/close)" in log
    assert generations == 1, log  # the short call's: the long one ran no further than its cancel


async def test_a_cancelled_whole_reply_is_generated_to_its_end(server):
    generations, log = await cancel_then_ask(server, stream=False, max_tokens=600)  # not done within the 2 s before the cancel on a quiet machine
    assert generations == 2, log  # the abandoned reply's tokens, then the short call waiting behind it
    assert log.count('"POST /v1/chat/completions HTTP/1.1" 200') == 1  # the short call's; none for the abandoned
