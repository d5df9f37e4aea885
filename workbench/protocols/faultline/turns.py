"""A structured turn: one call, one retry with the reason if the JSON does not hold up, then an error. A reply
cut at max_tokens is retried with a larger max_tokens within the window (`RunContext.mend_cut`).

An unparseable reply is never turned into a value: the caller gets None and
the error, counts it, and leaves the value missing.
"""

from __future__ import annotations

from typing import Any, Callable

from workbench.events import EXTRACTION_ERROR
from workbench.gateway.api import ModelSettings
from workbench.protocols.faultline import prompts
from workbench.runs.context import RunContext, user
from workbench.structured.cut import within
from workbench.structured.reply_object import reply_object

RETRY = ":retry"  # a structured turn's retry: its turn id is the first's with this after it


async def json_turn(ctx: RunContext, turn_id: str, agent: str, prompt: str, check: Callable[[dict], Any], *,
                    step: str, phase: str, label: str, role: str, settings: ModelSettings | None = None,
                    sample: int = 0, schema: dict | None = None) -> tuple[Any, str | None]:
    """(value, None) on success; (None, reason) after a failed retry. `schema`: the reply's JSON schema
    (`schemas.py`), sent with both attempts where the model decodes by schema; `step`: the name each reply
    is counted under (parsed, repaired or unparsed)."""
    messages = [user(prompt)]
    error = ""
    for attempt in range(2):
        tid = turn_id if attempt == 0 else f"{turn_id}{RETRY}"
        text = await ctx.turn(tid, agent, messages, phase=phase, label=label, role=role, settings=settings,
                              sample=sample, schema=schema)
        reading = ctx.read_reply(tid, step, lambda reply: check(reply_object(reply)), text)
        if reading.ok:
            return reading.value, None
        error = reading.detail
        if attempt == 0:
            mended = ctx.mend_cut(tid, step, reading, settings)  # cut at max_tokens: asked again with more room
            if mended is not None:
                settings, error = mended, error + within(mended.max_tokens)
            ctx.reject(tid, error)  # the retry below is titled as one, with the reason
        messages = messages + [{"role": "assistant", "content": text}, user(prompts.RETRY.format(error=error))]
    ctx.emit(EXTRACTION_ERROR, turn=turn_id, agent=agent, step=phase, error=error)
    return None, error


def model_settings(table: dict) -> ModelSettings:
    """ModelSettings from a `[model]`-shaped dict of the faultline section (extractor, belief_graph)."""
    from workbench.runs.settings import study_model_settings

    return study_model_settings({"model": table})


def structured_settings(settings: ModelSettings, max_tokens: int) -> ModelSettings:
    """A structured step's settings: the debate's model with room for what the step writes (never less
    than the study gives a turn)."""
    from dataclasses import replace

    return replace(settings, max_tokens=max(settings.max_tokens, max_tokens))
