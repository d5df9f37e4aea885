"""Connections per endpoint, adapted while running (slow start, additive increase, multiplicative decrease).

An endpoint (a server URL, or a provider for a hosted model) gets at most `ceiling` calls in flight: the
width asked (a model's `max_connections`, a command's `--max-connections`), else the gateway's global
concurrency. An asked width starts at the ceiling (what was typed is what is sent); the default starts at
`min(ceiling, START)`. Then:

- halves (at least 1) when the endpoint shows it is saturated: a stream that ends without a finish reason
  (a single-slot server cuts the request it serves when another arrives), a refused connection, 429 or 503;
- after a decrease, grows again by one for each `GROW_AFTER × limit` calls in a row that succeed while the
  limit was the bottleneck (a slow, cautious probe: each failed probe costs one retried call);
- grows by one per success up to the ceiling before any trouble (slow start).

Every change is a `ConnectionChange`, which the gateway records in the store, emits as an event and the
report summarises ("connections to http://127.0.0.1:8011/v1: 8 → 1 after 3 interrupted streams").
The counts are the project's choice; the rule is TCP's congestion control applied to an HTTP endpoint.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timezone

START = 16  # half a typical ceiling: one wave short of it at first, then slow start doubles
GROW_AFTER = 4
# Failure kinds that mean "the endpoint is saturated", as the transport classifies them.
SATURATION = {"incomplete_stream": "interrupted stream", "connection": "refused connection",
              "rate_limit": "429 Too Many Requests", "server_503": "503 Service Unavailable"}


@dataclass(frozen=True)
class ConnectionChange:
    endpoint: str
    old: int
    new: int
    reason: str          # "interrupted stream", "429 Too Many Requests", ..., or "calls succeeding"
    at: str


def endpoint_of(model: str, api_base: str | None) -> str:
    """The server a call goes to: its api_base, else the provider part of the litellm model string."""
    if api_base:
        return api_base.rstrip("/")
    return model.split("/", 1)[0] if "/" in model else model


def saturation_reason(kind: str | None, status: int | None) -> str | None:
    if kind == "server" and status == 503:
        kind = "server_503"
    return SATURATION.get(kind or "")


class EndpointLimiter:
    """How many calls may be in flight to one endpoint now. One per endpoint and event loop."""

    def __init__(self, endpoint: str, ceiling: int, on_change=None, *, asked: bool = False) -> None:
        self.endpoint = endpoint
        self.ceiling = max(1, int(ceiling))
        self.asked = asked  # the ceiling is a width someone asked for, not the global default
        self.limit = self.ceiling if asked else min(self.ceiling, START)
        self.slow_start = True
        self.in_flight = 0
        self._streak = 0
        self.on_change = on_change  # called with each ConnectionChange worth recording (see _change)
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    def cap(self, ceiling: int) -> None:
        """Lower the ceiling (a model's own `max_connections` below the endpoint's), never raise it."""
        self.ceiling = min(self.ceiling, max(1, int(ceiling)))
        self.limit = min(self.limit, self.ceiling)
        self.asked = True

    def has_room(self) -> bool:
        return self.in_flight < self.limit

    async def acquire(self) -> None:
        cond = self._condition()
        async with cond:
            try:
                await cond.wait_for(self.has_room)
            except asyncio.CancelledError:
                if self.has_room():
                    cond.notify(1)  # the wake-up this waiter may have been given goes to the next one
                raise
            self.in_flight += 1

    async def release(self, *, ok: bool | None, failure_kind: str | None = None, status: int | None = None) -> None:
        """`ok`: the attempt answered (True), failed (False), or tells nothing about the endpoint (None:
        cancelled, or an error of the request itself)."""
        cond = self._condition()
        async with cond:
            limited = self.in_flight >= self.limit
            self.in_flight -= 1
            reason = saturation_reason(failure_kind, status) if ok is False else None
            if reason:
                self._change(max(1, self.limit // 2), reason)
                self.slow_start = False
                self._streak = 0
            elif ok:
                self._streak += 1
                if self.limit < self.ceiling and (self.slow_start or
                                                  (limited and self._streak >= GROW_AFTER * self.limit)):
                    self._change(self.limit + 1, "calls succeeding")
                    self._streak = 0
            # Wake only as many waiters as there is room for: waking all (thousands of runs queue here) made
            # every release cost a task step per waiter. A woken waiter finding no room waits again.
            cond.notify(max(0, self.limit - self.in_flight))

    def _change(self, new: int, reason: str) -> None:
        if new == self.limit:
            return
        change = ConnectionChange(self.endpoint, self.limit, new, reason,
                                  datetime.now(timezone.utc).isoformat(timespec="milliseconds"))
        self.limit = new
        if self.on_change and not (reason == "calls succeeding" and self.slow_start):
            self.on_change(change)  # slow start's climb to the ceiling is not news; every change after is


def summary_lines(changes: list[dict]) -> list[str]:
    """One line per endpoint: its first and last limit and why it moved, e.g.
    "connections to http://127.0.0.1:8011/v1: 8 → 1 after 3 interrupted streams"."""
    by_endpoint: dict[str, list[dict]] = {}
    for c in changes:
        by_endpoint.setdefault(c["endpoint"], []).append(c)
    lines = []
    for endpoint, rows in by_endpoint.items():
        reasons: dict[str, int] = {}
        for r in rows:
            if r["new"] < r["old"]:
                reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        why = ", ".join(f"{n} {reason}{'s' if n > 1 and not reason.endswith('s') else ''}"
                        for reason, n in reasons.items())
        ups = sum(1 for r in rows if r["new"] > r["old"])
        tail = f" after {why}" if why else ""
        if ups:
            tail += f"{';' if why else ''} raised {ups} time{'s' if ups > 1 else ''} while calls succeeded"
        lines.append(f"connections to {endpoint}: {rows[0]['old']} → {rows[-1]['new']}{tail}")
    return lines
