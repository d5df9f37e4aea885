"""Whole-study progress for the live grid and the batch display: per-run state, totals, ETA.

The runner feeds it every event; `snapshot()` is what a `progress` event
carries. Progress is counted in model calls against each architecture's
expected call count, so a 24-call committee weighs more than a one-call B1.
The ETA divides the calls left by the rate of calls made over the network in
this session (replayed calls are instant and would flatter it).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from workbench.events import RUN_CANCELLED, RUN_FAILED, RUN_FINISHED, RUN_STARTED, TURN_FINISHED, Event



@dataclass
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
    _started: float | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("_started")
        if self._started is not None:
            d["elapsed"] = round(time.monotonic() - self._started, 1)
        return d


class StudyProgress:
    def __init__(self, runs: list[dict], expected: dict[str, int], extra_calls: int = 0) -> None:
        self.runs: dict[str, RunState] = {}
        for r in runs:
            state = RunState(r["id"], r["case_id"], r["condition"], r["replicate"], r["status"],
                             expected.get(r["id"], 1), input_tokens=r.get("input_tokens") or 0,
                             output_tokens=r.get("output_tokens") or 0, cost=r.get("cost") or 0.0,
                             cost_unknown=bool(r.get("cost_unknown")), error=r.get("error"))
            if r["status"] == "done":
                state.calls_done = state.calls_expected
            self.runs[r["id"]] = state
        self.extra_expected = extra_calls  # calls outside runs (P1 topology)
        self.extra_done = 0
        self.started = time.monotonic()
        self.network_calls = 0
        self.paused = False

    def update(self, event: Event) -> RunState | None:
        """Apply one event; returns the run state it changed, if any."""
        state = self.runs.get(event.run_id) if event.run_id else None
        if event.kind == TURN_FINISHED:
            p = event.payload
            if not p.get("replayed"):
                self.network_calls += 1
            if state is None:
                self.extra_done += 1
                return None
            state.calls_done += 1
            state.calls_expected = max(state.calls_expected, state.calls_done)
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
            state.cost, state.cost_unknown = 0.0, False
        elif event.kind in (RUN_FINISHED, RUN_FAILED, RUN_CANCELLED):
            state.status = {RUN_FINISHED: "done", RUN_FAILED: "failed", RUN_CANCELLED: "cancelled"}[event.kind]
            state.error = event.payload.get("error")
            if state._started is not None:
                state.elapsed = round(time.monotonic() - state._started, 1)
                state._started = None
            if state.status == "done":
                state.calls_done = state.calls_expected = max(state.calls_done, 1)
        else:
            return None
        return state

    def snapshot(self) -> dict:
        counts: dict[str, int] = {s: 0 for s in ("pending", "running", "done", "failed", "cancelled")}
        for s in self.runs.values():
            counts[s.status] = counts.get(s.status, 0) + 1
        expected = sum(s.calls_expected if s.status not in ("failed", "cancelled") else s.calls_done
                       for s in self.runs.values()) + self.extra_expected
        done = sum(s.calls_done for s in self.runs.values()) + self.extra_done
        elapsed = time.monotonic() - self.started
        remaining = max(expected - done, 0)
        eta = None
        if remaining == 0:
            eta = 0.0
        elif self.network_calls:
            eta = round(remaining / (self.network_calls / elapsed), 1)
        return {
            "runs": counts, "total_runs": len(self.runs), "calls_done": done, "calls_expected": expected,
            "fraction": round(done / expected, 4) if expected else 1.0, "elapsed": round(elapsed, 1),
            "eta_seconds": eta, "paused": self.paused,
            "input_tokens": sum(s.input_tokens for s in self.runs.values()),
            "output_tokens": sum(s.output_tokens for s in self.runs.values()),
            "cost": round(sum(s.cost for s in self.runs.values()), 6),
            "cost_unknown": any(s.cost_unknown for s in self.runs.values()),
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
