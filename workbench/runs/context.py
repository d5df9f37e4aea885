"""What a run program gets: the run's context and the one way to take an agent turn.

Every protocol's run program (a hindsight condition, a faultline debate, an M11
pipeline, a calibration judge call) is `async def program(ctx) -> RunOutput`.
`ctx.turn(...)` calls the gateway and emits turn_started, then (from the
gateway) token events, then turn_finished with the full text, or turn_failed;
`ctx.emit(kind, ...)` adds protocol events. Turns go through the shared
gateway, so they are logged, replayed on resume and counted the same way for
every protocol.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from workbench.events import TURN_FAILED, TURN_FINISHED, TURN_STARTED, Event, EventSink
from workbench.gateway.api import CallRequest, CallResult, GatewayError, GatewayLike, ModelSettings
from workbench.gateway.seeds import draw_settings  # noqa: F401  (re-exported: the runner's draws)
from workbench.runs.control import RunControl
from workbench.structured.reading import Reading, read


@dataclass
class RunOutput:
    """A run's final output: the text a reader sees and the protocol's structured result (JSON)."""

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
    gateway: GatewayLike
    sink: EventSink
    settings: ModelSettings      # the study's model for this run, held constant across conditions
    item: Any                    # what the run works on: a case's scenario text, or the protocol's item payload
    options: dict                # the protocol's per-condition options from the study file, defaults filled
    study_id: str | None = None
    run_id: str | None = None
    case_id: str | None = None   # the item's id (a case id for hindsight)
    condition: str = ""
    replicate: int = 0
    draw: int = 0                # the replicate index sent to the gateway (see `draw_settings`)
    control: RunControl = field(default_factory=RunControl)
    on_result: Callable[[str, CallResult], None] | None = None   # after each finished turn
    definition: dict = field(default_factory=dict)                # the study's whole definition
    # How each structured reply was read, (turn, step, reading): the runner keeps it in the store
    on_reply: Callable[[str, str, Reading], None] | None = None

    @property
    def scenario(self) -> str:
        """The hindsight case's scenario (the item, for that protocol)."""
        return self.item if isinstance(self.item, str) else ""

    def emit(self, kind: str, *, turn: str | None = None, agent: str | None = None, **payload: Any) -> None:
        self.sink.emit(Event(kind, run_id=self.run_id, turn=turn, agent=agent, payload=payload))

    async def turn(self, turn_id: str, agent: str, messages: list[dict[str, str]], *, phase: str,
                   label: str, sample: int = 0, role: str = "architecture",
                   settings: ModelSettings | None = None, schema: dict | None = None) -> str:
        """One agent turn: one gateway call. Returns the full text; raises GatewayError or RunCancelled.
        `settings`: another role's model for this turn (an extractor, a judge), else the run's. `schema`:
        the reply's JSON schema for a step that parses JSON (sent where the model decodes by schema)."""
        await self.control.checkpoint(self.run_id)
        started = time.monotonic()
        self.emit(TURN_STARTED, turn=turn_id, agent=agent, phase=phase, label=label)
        request = CallRequest(messages=messages, settings=settings or self.settings, role=role,
                              study_id=self.study_id, run_id=self.run_id, turn=turn_id, agent=agent,
                              replicate=self.draw, sample=sample, response_schema=schema,
                              metadata={"condition": self.condition, "phase": phase,
                                        # what the offline `sim` model needs (workbench/simulation)
                                        "protocol": self.definition.get("protocol"), "item": self.case_id,
                                        "replicate": self.replicate,
                                        "simulation": self.definition.get("simulation")})
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


    def read_reply(self, turn_id: str, step: str, parse: Callable[[str], Any], text: str) -> Reading:
        """Read a structured step's reply with its parser (InvalidReply: unusable), and have it counted as
        parsed, repaired or unparsed under `step` (workbench/structured)."""
        reading = read(parse, text)
        if self.on_reply is not None:
            self.on_reply(turn_id, step, reading)
        return reading


async def parallel(*coros):
    """asyncio.gather for parallel turns; on the first failure the sibling turns are cancelled
    (and awaited) before the error propagates, so no orphan call keeps running. A full disk is the
    exception: the siblings' calls are already paid for and have room kept for their records, so they
    finish and are recorded first."""
    from store.db import is_disk_full

    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        return await asyncio.gather(*tasks)
    except BaseException as exc:
        if not is_disk_full(exc):
            for t in tasks:
                t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def system(text: str) -> dict[str, str]:
    return {"role": "system", "content": text}
