"""What a run program gets: the run's context and the one way to take an agent turn.

Every protocol's run program (a hindsight condition, a faultline debate, an M11
pipeline, a calibration judge call) is `async def program(ctx) -> RunOutput`.
`ctx.turn(...)` calls the gateway and emits turn_started, then (from the
gateway) token events, then turn_finished with the full text, or turn_failed;
`ctx.emit(kind, ...)` adds protocol events. Turns go through the shared
gateway, so they are logged, replayed on resume and counted the same way for
every protocol.

A reply cut at max_tokens is handled here, once for every protocol, as the
study's `[model] on_truncation` says (workbench/runs/truncation.py). A program
that rejects a reply and asks again calls `ctx.reject(turn, reason)` first: the
next turn of that agent is then titled as a retry, with the reason. A structured
step whose reply was cut at max_tokens asks it again with the settings
`ctx.mend_cut` gives (a larger max_tokens within the window: one rule,
workbench/structured/cut.py, for every protocol and the judges).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from workbench.events import TURN_FAILED, TURN_FINISHED, TURN_REJECTED, TURN_STARTED, Event, EventSink
from workbench.gateway.api import CallRequest, CallResult, GatewayError, GatewayLike, ModelSettings
from workbench.gateway.seeds import draw_settings  # noqa: F401  (re-exported: the runner's draws)
from workbench.runs import truncation
from workbench.runs.control import RunControl
from workbench.structured.cut import asked_again, larger_budget
from workbench.structured.reading import CUT, Reading, read


@dataclass
class RunOutput:
    """A run's final output: the text a reader sees and the protocol's structured result (JSON).
    `truncated`: whether the text ends in a reply cut at max_tokens (None: the runner works it out from the
    run's cut turns). `counted_error`: the program ended in an error it counts (the run is
    `done_with_errors`); protocols may instead say so through `StudyProtocol.counted_error`."""

    text: str
    report: dict
    truncated: bool | None = None
    counted_error: str | None = None


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
    cut_texts: list[str] = field(default_factory=list)   # replies that stayed cut at max_tokens, joined parts
    _rejections: dict[str, tuple[int, str]] = field(default_factory=dict)  # agent -> (retry number, reason)
    _agent_of: dict[str, str] = field(default_factory=dict)                # turn id -> its agent
    _cut_turns: set[str] = field(default_factory=set)                      # turns whose reply stayed cut
    _cut_prompts: dict[str, int | None] = field(default_factory=dict)      # cut at max_tokens: prompt tokens

    def was_cut(self, turn_id: str) -> bool:
        """Whether this turn's reply was cut at max_tokens (and stayed so): a parser's error can say why."""
        return turn_id in self._cut_turns

    @property
    def on_truncation(self) -> str:
        return (self.definition.get("model") or {}).get("on_truncation") or "keep"

    def reject(self, turn_id: str, reason: str) -> None:
        """A reply of this turn was rejected and will be asked for again: the agent's next turn is its retry."""
        agent = self._agent_of.get(turn_id, "")
        number = self._rejections.get(agent, (0, ""))[0] + 1
        self._rejections[agent] = (number, reason)
        self.emit(TURN_REJECTED, turn=turn_id, agent=agent or None, reason=reason, retry=number)

    @property
    def scenario(self) -> str:
        """The hindsight case's scenario (the item, for that protocol)."""
        return self.item if isinstance(self.item, str) else ""

    def emit(self, kind: str, *, turn: str | None = None, agent: str | None = None, **payload: Any) -> None:
        self.sink.emit(Event(kind, run_id=self.run_id, turn=turn, agent=agent, payload=payload))

    async def turn(self, turn_id: str, agent: str, messages: list[dict[str, str]], *, phase: str,
                   label: str, sample: int = 0, role: str = "architecture",
                   settings: ModelSettings | None = None, schema: dict | None = None) -> str:
        """One agent turn: one gateway call (and its continuations under on_truncation = "continue"). Returns
        the full text; raises GatewayError (TruncatedReply under on_truncation = "fail") or RunCancelled.
        `settings`: another role's model for this turn (an extractor, a judge), else the run's. `schema`:
        the reply's JSON schema for a step that parses JSON (sent where the model decodes by schema)."""
        self._agent_of[turn_id] = agent
        retry = self._rejections.pop(agent, None)
        if retry is not None:  # the transcript titles it as the retry it is, with the rejection's reason
            label = f"{label} · retry {retry[0]}" if label else f"retry {retry[0]}"
        text, result = await self._call(turn_id, agent, messages, phase=phase, label=label, sample=sample,
                                        role=role, settings=settings, schema=schema,
                                        retry_reason=retry[1] if retry else None)
        if not truncation.is_cut(result.finish_reason):
            return text
        used = settings or self.settings
        if truncation.cut_by(result.finish_reason, result.output_tokens, used.max_tokens) == truncation.WINDOW:
            # cut by the context window, not max_tokens: marked so (turn_finished's cut_by), never continued
            if role == "architecture" and self.on_truncation == "fail":
                raise truncation.TruncatedReply(truncation.window_cut_message(
                    turn_id, agent, result.output_tokens, result.input_tokens, used.max_tokens))
            self.cut_texts.append(text)
            self._cut_turns.add(turn_id)
            return text
        # The study's choice covers the turns of the condition's own model (role "architecture"); another role's
        # step (an extractor, a judge, a classifier) keeps its reply, marked, and its parser says what failed.
        if role == "architecture" and self.on_truncation == "fail":
            raise truncation.TruncatedReply(truncation.cut_message(turn_id, agent, used.max_tokens))
        if role == "architecture" and self.on_truncation == "continue":
            parts = [text]
            for k in range(1, truncation.MAX_CONTINUATIONS + 1):
                more = [*messages, {"role": "assistant", "content": "".join(parts)},
                        user(truncation.CONTINUE_PROMPT)]
                part, result = await self._call(f"{turn_id}.continue{k}", agent, more, phase=phase,
                                                label=f"{label} · continued {k}/{truncation.MAX_CONTINUATIONS}",
                                                sample=sample, role=role, settings=settings, schema=schema)
                parts.append(part)
                if not truncation.is_cut(result.finish_reason):
                    return "".join(parts)
            text = "".join(parts)
        self.cut_texts.append(text)
        self._cut_turns.add(turn_id)
        self._cut_prompts[turn_id] = result.input_tokens
        return text

    async def _call(self, turn_id: str, agent: str, messages: list[dict[str, str]], *, phase: str, label: str,
                    sample: int, role: str, settings: ModelSettings | None, schema: dict | None,
                    retry_reason: str | None = None) -> tuple[str, CallResult]:
        """One gateway call with its turn events; returns the text and the call's result."""
        await self.control.checkpoint(self.run_id)
        started = time.monotonic()
        extra = {"retry_reason": retry_reason} if retry_reason else {}
        self.emit(TURN_STARTED, turn=turn_id, agent=agent, phase=phase, label=label, **extra)
        request = CallRequest(messages=messages, settings=settings or self.settings, role=role,
                              study_id=self.study_id, run_id=self.run_id, turn=turn_id, agent=agent,
                              replicate=self.draw, sample=sample, response_schema=schema,
                              metadata={"condition": self.condition, "phase": phase,
                                        # what the offline `sim` model needs (workbench/simmodel)
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
                  call_id=result.call_id, truncated=truncation.is_cut(result.finish_reason),
                  cut_by=truncation.cut_by(result.finish_reason, result.output_tokens,
                                           (settings or self.settings).max_tokens),
                  max_tokens=(settings or self.settings).max_tokens)
        if self.on_result is not None:
            self.on_result(turn_id, result)
        return result.text, result


    def read_reply(self, turn_id: str, step: str, parse: Callable[[str], Any], text: str) -> Reading:
        """Read a structured step's reply with its parser (InvalidReply: unusable), and have it counted as
        parsed, repaired, cut (the turn's reply stayed cut) or unparsed under `step` (workbench/structured)."""
        reading = read(parse, text, cut=self.was_cut(turn_id))
        if self.on_reply is not None:
            self.on_reply(turn_id, step, reading)
        return reading

    def mend_cut(self, turn_id: str, step: str, reading: Reading,
                 settings: ModelSettings | None = None) -> ModelSettings | None:
        """The settings a structured step asks its reply again with when `reading` is cut at max_tokens: a larger
        max_tokens within the model's window (`workbench/structured/cut.py`, the judges' rule too), the cut reading
        recorded again naming the change. None when the reply was not cut at max_tokens (a window's cut cannot be
        mended so) or no larger budget fits: asking the same again would only be cut again."""
        if reading.outcome != CUT or turn_id not in self._cut_prompts:
            return None
        used = settings or self.settings
        larger = larger_budget(used, self._cut_prompts[turn_id])
        if larger is None:
            return None
        if self.on_reply is not None:
            self.on_reply(turn_id, step, asked_again(reading, used.max_tokens, larger))
        return replace(used, max_tokens=larger)


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
