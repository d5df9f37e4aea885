"""Width as asked (issue 40): `--max-connections N` and a model's `max_connections` give N calls in flight,
counted at the loopback server, whatever the global `concurrency` default; a model's own lower width is said."""

from __future__ import annotations

import asyncio
import threading

from workbench.events import CONNECTIONS, ListSink
from workbench.gateway import CallRequest, ModelSettings
from tests.support.loopback import Reply


def ask(settings, text) -> CallRequest:
    return CallRequest(messages=[{"role": "user", "content": text}], settings=settings)


class HoldUntil:
    """A responder that holds each request until `n` are held at once (or 10 s pass), counting how many the
    server holds together: exactly the width the gateway let in."""

    def __init__(self, n: int) -> None:
        self.n, self.held, self.most = n, 0, 0
        self._lock, self._all_in = threading.Lock(), threading.Event()

    def __call__(self, body):
        with self._lock:
            self.held += 1
            self.most = max(self.most, self.held)
            if self.held >= self.n:
                self._all_in.set()
        self._all_in.wait(10)
        with self._lock:
            self.held -= 1
        return Reply.text("ok")


async def test_the_commands_max_connections_is_the_width_in_flight_above_the_global_default(
        make_gateway, loopback_server):
    loopback_server.responder = held = HoldUntil(12)
    gateway = make_gateway(concurrency=4, max_connections=12)  # the default of 4 is no hidden cap
    settings = ModelSettings(model="openai/wide", api_base=loopback_server.url)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(16)))
    assert loopback_server.count == 16 and held.most == 12


async def test_a_models_max_connections_in_the_study_lifts_the_default_too(make_gateway, loopback_server):
    loopback_server.responder = held = HoldUntil(10)
    gateway = make_gateway(concurrency=2)
    settings = ModelSettings(model="openai/wide", api_base=loopback_server.url, max_connections=10)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(10)))
    assert held.most == 10


async def test_without_an_asked_width_the_global_concurrency_holds(make_gateway, loopback_server):
    loopback_server.responder = lambda body: Reply.text("ok", latency=0.05)
    gateway = make_gateway(concurrency=3)
    settings = ModelSettings(model="openai/plain", api_base=loopback_server.url)
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}")) for i in range(9)))
    assert loopback_server.max_in_flight == 3


async def test_a_models_lower_width_than_the_commands_is_said_once(make_gateway, loopback_server):
    loopback_server.responder = lambda body: Reply.text("ok", latency=0.05)
    gateway = make_gateway(concurrency=8, max_connections=32)
    settings = ModelSettings(model="openai/narrow", api_base=loopback_server.url, max_connections=2)
    sink = ListSink()
    await asyncio.gather(*(gateway.call(ask(settings, f"q{i}"), sink) for i in range(6)))
    said = [e.payload for e in sink.events if e.kind == CONNECTIONS]
    assert loopback_server.max_in_flight == 2
    assert len(said) == 1 and (said[0]["old"], said[0]["new"]) == (32, 2)
    assert "max_connections" in said[0]["reason"] and "--max-connections 32" in said[0]["reason"]
