"""What an architecture program gets: the run's context and the one way to take an agent turn.

An architecture module (b1.py, c2.py, ...) defines:

    CONDITION = "B1"                      # the registry key
    TITLE = "Single LLM"
    async def run(ctx: RunContext) -> FinalOutput
    def expected_calls(options: dict) -> int          # for progress and ETA
    # optional:
    def check_options(raw, path, bad) -> dict         # its [architectures.X] table, defaults filled
    def replicates(study_replicates: int) -> list[int]
    DRAW_OFFSET = 0                                   # see RunContext.draw

`ctx.turn(...)` calls the gateway and emits turn_started, then (from the
gateway) token events, then turn_finished with the full text, or turn_failed.
`ctx.emit(kind, ...)` adds protocol events (perspective, motion, vote, ...).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.events import TURN_FAILED, TURN_FINISHED, TURN_STARTED, Event, EventSink
from workbench.gateway.api import CallRequest, CallResult, GatewayError, ModelSettings
from workbench.run_control import RunCancelled, RunControl


@dataclass
class FinalOutput:
    text: str
    report: dict


@dataclass
class TurnStats:
    """Totals of the calls made by one program (shared by all runs of one study invocation)."""

    calls: int = 0
    replayed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    cost_unknown: bool = False

    def add(self, result: CallResult) -> None:
        self.calls += 1
        if result.replayed:
            self.replayed += 1
            return  # a replay costs nothing now; its tokens were counted when it was made
        self.input_tokens += result.input_tokens or 0
        self.output_tokens += result.output_tokens or 0
        if result.cost is None:
            self.cost_unknown = True
        else:
            self.cost += result.cost


@dataclass
class RunContext:
    gateway: Any                 # workbench.gateway.Gateway (anything with `async call(request, sink)`)
    sink: EventSink
    settings: ModelSettings      # the study's architecture model, held constant across conditions
    scenario: str
    options: dict                # the study's [architectures] tables, by condition, defaults filled
    study_id: str | None = None
    run_id: str | None = None
    case_id: str | None = None
    condition: str = ""
    replicate: int = 0
    draw: int = 0                # the replicate index sent to the gateway (see `draw_settings`)
    control: RunControl = field(default_factory=RunControl)
    on_result: Any = None        # callback(turn_id, CallResult) after each finished turn

    def emit(self, kind: str, *, turn: str | None = None, agent: str | None = None, **payload: Any) -> None:
        self.sink.emit(Event(kind, run_id=self.run_id, turn=turn, agent=agent, payload=payload))

    async def turn(self, turn_id: str, agent: str, messages: list[dict[str, str]], *, phase: str,
                   label: str, sample: int = 0, role: str = "architecture") -> str:
        """One agent turn: one gateway call. Returns the full text; raises GatewayError or RunCancelled."""
        await self.control.checkpoint(self.run_id)
        started = time.monotonic()
        self.emit(TURN_STARTED, turn=turn_id, agent=agent, phase=phase, label=label)
        request = CallRequest(messages=messages, settings=self.settings, role=role, study_id=self.study_id,
                              run_id=self.run_id, turn=turn_id, agent=agent, replicate=self.draw,
                              sample=sample, metadata={"condition": self.condition, "phase": phase})
        try:
            result = await self.gateway.call(request, self.sink)
        except GatewayError as exc:
            self.emit(TURN_FAILED, turn=turn_id, agent=agent, phase=phase, label=label, error=str(exc))
            raise
        except BaseException as exc:  # cancelled mid-call: the turn will be re-run on resume
            self.emit(TURN_FAILED, turn=turn_id, agent=agent, phase=phase, label=label,
                      error="cancelled" if not isinstance(exc, Exception) else f"internal error: {exc}")
            raise
        self.emit(TURN_FINISHED, turn=turn_id, agent=agent, phase=phase, label=label, text=result.text,
                  input_tokens=result.input_tokens, output_tokens=result.output_tokens, cost=result.cost,
                  replayed=result.replayed, placeholder=result.placeholder, finish_reason=result.finish_reason,
                  latency_ms=result.latency_ms, elapsed=round(time.monotonic() - started, 3),
                  call_id=result.call_id)
        if self.on_result is not None:
            self.on_result(turn_id, result)
        return result.text


def check_int_options(raw: dict, path: str, bad, limits: dict[str, tuple[int, int, int]],
                      known: tuple[str, ...] = ()) -> dict[str, int]:
    """A condition's integer options from its `[architectures.X]` table: {key: (default, low, high)}.
    Unknown keys (outside `limits` and `known`) and out-of-range values are reported through `bad`,
    and a bad value falls back to its default so the rest can still be checked."""
    allowed = (*known, *limits)
    for key in raw:
        if key not in allowed:
            bad(f"{path}.{key}", f"unknown key; known keys here: {', '.join(allowed)}")
    out = {}
    for key, (default, lo, hi) in limits.items():
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            bad(f"{path}.{key}", f"must be an integer from {lo} to {hi}")
            value = default
        out[key] = value
    return out


def draw_settings(settings: ModelSettings, draw: int) -> ModelSettings:
    """The settings for one draw: with a fixed seed, draw k uses seed + k.

    Replicates are independent draws; a provider that honours seeds would
    otherwise answer identical prompts identically and P1 could only ever find
    a Basin. Draw 0 keeps the study's seed exactly.
    """
    if settings.seed is None or draw == 0:
        return settings
    return replace(settings, seed=settings.seed + draw)


async def parallel(*coros):
    """asyncio.gather for parallel turns; on the first failure the sibling turns are cancelled
    (and awaited) before the error propagates, so no orphan call keeps running."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def situation(ctx: RunContext) -> str:
    """The scenario as every condition shows it."""
    from workbench.architectures.prompts import SITUATION

    return SITUATION.format(scenario=ctx.scenario.strip())


def final_output(text: str) -> FinalOutput:
    from workbench.architectures.report import parse_report

    return FinalOutput(text=text, report=parse_report(text))


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def system(text: str) -> dict[str, str]:
    return {"role": "system", "content": text}


__all__ = ["FinalOutput", "RunCancelled", "RunContext", "TurnStats", "draw_settings", "final_output", "parallel",
           "situation",
           "system", "user"]
