"""Calls in flight, and the long ones' signs of life: elapsed time, tokens received, tokens per second.

A call on a slow local model can take minutes (20 × 60 tokens at under a token a second); a display that only
moves when a call ends looks dead meanwhile (issue 40). The gateway's events of each call (`call_sent`, `token`,
`call_ended`, numbered by `call` in their payload) are fed here (`update`, or `emit` as a sink), whoever made
the call: the runner, and judging (workbench/judges/run.py), which both show `long` once a second while a call
has been in flight longer than `after` seconds (`beat`): the run's batch display and Runs screen in its progress
snapshot's `long_calls`, judging as a progress line in batch and on the Studies screen.
A streamed call counts its chunks as tokens and measures their rate; a whole reply (not streamed) has only its
elapsed time until it lands, which is the heartbeat then. The ETA's fallback (`eta`) divides the calls left by
the measured token rate when no call has ended yet to measure calls by.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

from workbench.events import CALL_ENDED, CALL_RETRY, CALL_SENT, TOKEN, TURN_FAILED, TURN_FINISHED, Event

LONG_CALL_AFTER = 5.0   # seconds in flight after which a call is shown with its signs of life
HEARTBEAT = 1.0         # seconds between two heartbeats (and so between two heartbeat lines, at most)


@dataclass(slots=True)
class LiveCall:
    run_id: str | None
    turn: str | None
    agent: str | None
    sent: float
    streamed: bool
    max_tokens: int | None = None
    tokens: int = 0
    first_token: float | None = None


class LiveCalls:
    """The calls of one command in flight, keyed by the gateway's call number (else by run, turn and agent)."""

    def __init__(self, after: float = LONG_CALL_AFTER, clock=time.monotonic) -> None:
        self.after, self.clock = after, clock
        self.calls: dict[tuple, LiveCall] = {}

    def update(self, event: Event) -> None:
        kind = event.kind
        if kind not in _SEEN:
            return
        key = event.payload.get("call") or (event.run_id, event.turn, event.agent)
        if kind == CALL_SENT:
            p = event.payload
            self.calls[key] = LiveCall(event.run_id, event.turn, event.agent, self.clock(), bool(p.get("stream")),
                                       p.get("max_tokens"))
        elif kind == TOKEN:
            call = self.calls.get(key)
            if call is not None and not event.payload.get("replayed"):
                call.tokens += 1
                if call.first_token is None:
                    call.first_token = self.clock()
        else:  # the call ended (or its attempt failed and the retry will be sent anew)
            self.calls.pop(key, None)

    emit = update  # a sink of the gateway's events

    def rate(self) -> float:
        """Tokens per second, summed over the streams in flight that have had two tokens (0.0 without)."""
        now = self.clock()
        return sum(c.tokens / (now - c.first_token) for c in self.calls.values()
                   if c.tokens >= 2 and c.first_token is not None and now > c.first_token)

    def long(self) -> list[dict]:
        """The calls in flight longer than `after`, longest first: run, turn, agent, elapsed seconds, tokens
        received, tokens per second (None before two tokens, or for a whole reply), streamed."""
        now = self.clock()
        out = []
        for c in self.calls.values():
            elapsed = now - c.sent
            if elapsed < self.after:
                continue
            rate = None
            if c.tokens >= 2 and c.first_token is not None and now > c.first_token:
                rate = round(c.tokens / (now - c.first_token), 2)
            out.append({"run_id": c.run_id, "turn": c.turn, "agent": c.agent, "elapsed": round(elapsed, 1),
                        "tokens": c.tokens, "rate": rate, "streamed": c.streamed, "max_tokens": c.max_tokens})
        return sorted(out, key=lambda c: -c["elapsed"])

    def eta(self, calls_left: int, tokens_per_call: float | None) -> float | None:
        """Seconds for `calls_left` calls at the token rate measured on the streams in flight, each call
        `tokens_per_call` long (else as long as the max_tokens it asked for). None without a rate."""
        rate = self.rate()
        if not rate or calls_left <= 0:
            return None
        per_call = tokens_per_call or max((c.max_tokens or 0) for c in self.calls.values()) or None
        return round(calls_left * per_call / rate, 1) if per_call else None


    async def beat(self, every: float, show: Callable[[list[dict]], None]) -> None:
        """Every `every` seconds while a call has been in flight long: `show(self.long())`, and once more (with
        an empty list) when they have all ended, so a display clears them. Runs until cancelled."""
        shown = False
        while True:
            await asyncio.sleep(every)
            calls = self.long()
            if calls or shown:
                show(calls)
            shown = bool(calls)


_SEEN = frozenset({CALL_SENT, TOKEN, CALL_ENDED, TURN_FINISHED, TURN_FAILED, CALL_RETRY})


def duration(seconds: float | None, missing: str = "-") -> str:
    """Seconds as `42s`, `3m05s` or `1h02m`; `missing` when not known."""
    if seconds is None:
        return missing
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def long_call_text(c: dict) -> str:
    """One long call as the displays show it: `debate-1:risk 42s, 37 tokens, 0.9 tokens/s`."""
    run = c.get("run_id")
    # a run's call by its run and turn; a call outside runs (a judge's) by who makes it and its turn
    parts = (run.split("/", 1)[-1], c.get("turn") or c.get("agent") or "a call") if run else \
        (c.get("agent"), c.get("turn") or ("" if c.get("agent") else "a call"))
    where = " ".join(x for x in parts if x)
    if not c["streamed"]:
        return f"{where} {c['elapsed']:.0f}s, a whole reply: no tokens until it lands"
    if not c["tokens"]:
        return f"{where} {c['elapsed']:.0f}s, no token yet"
    rate = f", {c['rate']:.1f} tokens/s" if c.get("rate") else ""
    return f"{where} {c['elapsed']:.0f}s, {c['tokens']} tokens{rate}"


def long_calls_text(calls: list[dict], shown: int = 3) -> str:
    """The long calls in one line: the longest `shown`, then how many more."""
    text = "; ".join(long_call_text(c) for c in calls[:shown])
    return text + (f"; {len(calls) - shown} more" if len(calls) > shown else "")
