"""Whole-study progress for the live grid and the batch display: per-run state, totals, ETA.

The runner feeds it every event; `snapshot()` is what a `progress` event
carries. Progress is counted in model calls against each run's declared call
count (`StudyProtocol.expected_calls`), so a 24-call committee weighs more than
a one-call B1. The total (`calls_expected`) is fixed before the first call and
never moves: a run counts at most its declared calls while it works (a
committee's extra seconds or amendments do not grow the total) and exactly its
declared calls once it has finished, so the bar of a finished study ends at 100%;
a run that failed or was cancelled counts the calls it made, so a study with one
never reads 100%. `calls_made` is the real number of calls.
The ETA divides the work left by the measured throughput of recent network calls
(replayed calls are instant and would flatter it).

The totals are kept up to date as events arrive (each changed run's share taken out, then put back), so a
snapshot costs the same for ten runs as for a hundred thousand.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, fields
from typing import Iterable

from workbench.events import (
    CALL_SENT, CALL_WAITING, RUN_CANCELLED, RUN_FAILED, RUN_FINISHED, RUN_STARTED, TURN_FINISHED, Event,
)

# The ETA's throughput is measured over this many recent network calls: it follows a model that
# slows down or speeds up instead of averaging over the whole session.
RATE_WINDOW = 20
ENDED = ("done", "done_with_errors", "failed", "cancelled", "interrupted")
STATUS_KEYS = ("pending", "running", "done", "done_with_errors", "failed", "cancelled")

@dataclass(slots=True)
class RunState:
    run_id: str
    case_id: str
    condition: str
    replicate: int
    status: str
    calls_expected: int
    calls_done: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    cost_unknown: bool = False
    elapsed: float = 0.0
    error: str | None = None
    truncated: bool = False              # its final output ends in a reply cut at max_tokens
    waiting: int = 0                     # its calls queued for a connection (not sent yet)
    _started: float | None = None
    _counted: bool = True                # one of this command's runs: its calls count in the bar

    def settled(self) -> int:
        """The run's share of the study's progress: its declared calls once it finished; the calls it made
        once it failed or was cancelled (what was done, issue 34: a failed or cancelled study never reads
        100%); else the calls made so far, capped below its declared count (a run that makes more calls
        does not grow the total)."""
        if self.status in ("done", "done_with_errors"):
            return self.calls_expected
        if self.status in ENDED:
            return min(self.calls_done, self.calls_expected)
        return min(self.calls_done, max(self.calls_expected - 1, 0))

    def to_dict(self) -> dict:
        d = {name: getattr(self, name) for name in _SHOWN}
        if self._started is not None:
            d["elapsed"] = round(time.monotonic() - self._started, 1)
        return d


_SHOWN = tuple(f.name for f in fields(RunState) if not f.name.startswith("_"))


_CHANGING = frozenset({CALL_WAITING, CALL_SENT, TURN_FINISHED, RUN_STARTED, RUN_FINISHED, RUN_FAILED,
                       RUN_CANCELLED})  # the events that change a run's state


def fraction(done: int, expected: int) -> float:
    """The share of the work done, as the progress bar and line show it (an empty plan is done)."""
    return round(done / expected, 4) if expected else 1.0


class StudyProgress:
    """Counts calls against a total fixed at the start: runs' declared calls plus follow-ups' (`extra_calls`)."""

    def __init__(self, runs: Iterable[dict] = (), expected: dict[str, int] | None = None, extra_calls: int = 0,
                 selected: set[str] | None = None) -> None:
        """`selected`: the runs this command runs (None: all). Only theirs count in the calls of the bar, and
        they start as pending: a resumed command's progress is its own work, not 100% of what was done
        before its first call (a failed run being retried is not an ended one). Runs may also be added one at
        a time (`add`), as the runner reads them from the store."""
        self.runs: dict[str, RunState] = {}
        # Running totals over every run (`_count`): by status, this command's settled calls, tokens, cost.
        self._statuses: dict[str, int] = {s: 0 for s in STATUS_KEYS}
        self._settled = self._input_tokens = self._output_tokens = self._cost_unknown = self._waiting = 0
        self._cost = 0.0
        self._expected = 0
        for r in runs:
            self.add(r, (expected or {}).get(r["id"], 1), selected is None or r["id"] in selected)
        self.extra_expected = extra_calls  # calls outside runs (P1 topology)
        self.extra_done = 0                # follow-up calls made, or settled when a follow-up ended
        self.started = time.monotonic()
        self.network_calls = 0
        self.calls_made = 0                # every call this session, replayed or not
        self._recent: deque[float] = deque(maxlen=RATE_WINDOW + 1)  # times of recent network calls
        self.paused = False

    def add(self, r: dict, calls_expected: int, selected: bool = True) -> None:
        """One of the study's runs (a run row), declared to make `calls_expected` calls; `selected`: run by
        this command."""
        finished = r["status"] in ("done", "done_with_errors")
        state = RunState(r["id"], r["case_id"], r["condition"], r["replicate"],
                         "pending" if selected and not finished else r["status"], calls_expected,
                         input_tokens=r.get("input_tokens") or 0, output_tokens=r.get("output_tokens") or 0,
                         cost=r.get("cost") or 0.0, cost_unknown=bool(r.get("cost_unknown")), error=r.get("error"),
                         _counted=selected)
        if finished:
            state.calls_done = state.calls_expected
        self.runs[r["id"]] = state
        self._count(state, 1)
        if selected:
            self._expected += calls_expected

    def _count(self, s: RunState, sign: int) -> None:
        """Add a run's share to the totals (sign 1), or take it out (-1) before the run changes."""
        self._statuses[s.status] = self._statuses.get(s.status, 0) + sign
        if s._counted:
            self._settled += sign * s.settled()
        self._input_tokens += sign * s.input_tokens
        self._output_tokens += sign * s.output_tokens
        self._cost += sign * s.cost
        self._cost_unknown += sign * s.cost_unknown
        self._waiting += sign * s.waiting

    def update(self, event: Event) -> RunState | None:
        """Apply one event; returns the run state it changed, if any."""
        state = self.runs.get(event.run_id) if event.run_id else None
        if state is None or event.kind not in _CHANGING:
            return self._apply(event, state)
        self._count(state, -1)
        try:
            return self._apply(event, state)
        finally:
            self._count(state, 1)

    def _apply(self, event: Event, state: RunState | None) -> RunState | None:
        if event.kind in (CALL_WAITING, CALL_SENT):  # a queued call is waiting, not streaming
            if state is None:
                return None
            state.waiting = state.waiting + 1 if event.kind == CALL_WAITING else max(state.waiting - 1, 0)
            return state
        if event.kind == TURN_FINISHED:
            p = event.payload
            self.calls_made += 1
            if not p.get("replayed"):
                self.network_calls += 1
                self._recent.append(time.monotonic())
            if state is None:
                self.extra_done = min(self.extra_done + 1, self.extra_expected)
                return None
            state.calls_done += 1
            state.input_tokens += p.get("input_tokens") or 0
            state.output_tokens += p.get("output_tokens") or 0
            if p.get("cost") is None:
                state.cost_unknown = True
            else:
                state.cost += p["cost"]
            return state
        if state is None:
            return None
        if event.kind == RUN_STARTED:
            state.status, state.error, state._started = "running", None, time.monotonic()
            state.calls_done = state.input_tokens = state.output_tokens = 0
            state.cost, state.cost_unknown, state.truncated, state.waiting = 0.0, False, False, 0
        elif event.kind in (RUN_FINISHED, RUN_FAILED, RUN_CANCELLED):
            state.status = {RUN_FINISHED: event.payload.get("status") or "done", RUN_FAILED: "failed",
                            RUN_CANCELLED: "cancelled"}[event.kind]
            state.error = event.payload.get("error")
            state.truncated, state.waiting = bool(event.payload.get("truncated")), 0
            if state._started is not None:
                state.elapsed = round(time.monotonic() - state._started, 1)
                state._started = None
        else:
            return None
        return state

    def follow_up_ended(self, expected_calls: int, made: int) -> None:
        """A follow-up ended (done, failed or cancelled): whatever it did not make is settled, so the
        total stays what it was at the start and the bar still ends at 100%."""
        self.extra_done = min(self.extra_done + max(expected_calls - made, 0), self.extra_expected)

    def rate(self) -> float | None:
        """Network calls per second, over the last RATE_WINDOW calls (the session's start for the first)."""
        if not self._recent:
            return None
        if len(self._recent) == 1:
            span, calls = self._recent[0] - self.started, 1
        else:
            span, calls = self._recent[-1] - self._recent[0], len(self._recent) - 1
        return calls / span if span > 0 else None

    def snapshot(self) -> dict:
        counts = {s: n for s, n in self._statuses.items() if n or s in STATUS_KEYS}
        expected = self._expected + self.extra_expected  # this command's own work
        done = self._settled + self.extra_done
        elapsed = time.monotonic() - self.started
        remaining = max(expected - done, 0)
        rate = self.rate()
        eta = None
        if remaining == 0:
            eta = 0.0
        elif rate:
            eta = round(remaining / rate, 1)
        return {
            "runs": counts, "total_runs": len(self.runs), "calls_done": done, "calls_expected": expected,
            "calls_made": self.calls_made,
            "fraction": fraction(done, expected), "elapsed": round(elapsed, 1),
            "eta_seconds": eta, "paused": self.paused, "calls_waiting": self._waiting,
            "input_tokens": self._input_tokens, "output_tokens": self._output_tokens,
            "cost": round(self._cost, 6) + 0.0, "cost_unknown": self._cost_unknown > 0,
        }

    def run_states(self) -> list[dict]:
        return [s.to_dict() for s in self.runs.values()]


def study_grid(db, study_id: str) -> dict:
    """The study's runs as a case x condition grid, read from the store (before, during or after a run).

    Returns {"cases": [...], "conditions": [...], "cells": {case: {condition: [run, ...]}}} where each
    run has id, replicate, status, error, attempts, input/output tokens, cost (None if unknown) and
    elapsed seconds (None until it started). A live screen overlays `progress` events on it.
    """
    from datetime import datetime, timezone

    from store.runs import list_runs
    from workbench.studies import load_study

    definition = load_study(db, study_id)["definition"]
    cells: dict[str, dict[str, list[dict]]] = {c: {k: [] for k in definition["conditions"]}
                                               for c in definition["cases"]}
    now = datetime.now(timezone.utc)
    for r in list_runs(db, study_id):
        elapsed = None
        if r["started_at"]:
            start = datetime.fromisoformat(r["started_at"])
            end = datetime.fromisoformat(r["finished_at"]) if r["finished_at"] else now
            elapsed = max((end - start).total_seconds(), 0.0)
        cells.setdefault(r["case_id"], {}).setdefault(r["condition"], []).append({
            "id": r["id"], "replicate": r["replicate"], "status": r["status"], "error": r["error"],
            "attempts": r["attempts"], "input_tokens": r["input_tokens"], "output_tokens": r["output_tokens"],
            "cost": None if r["cost_unknown"] else r["cost"], "elapsed": elapsed})
    return {"cases": list(definition["cases"]), "conditions": list(definition["conditions"]), "cells": cells}
