"""A structured turn: one call, one retry with the reason if the JSON does not hold up, then an error.

An unparseable reply is never turned into a value: the caller gets None and
the error, counts it, and leaves the value missing.
"""

from __future__ import annotations

from typing import Any, Callable

from workbench.events import EXTRACTION_ERROR
from workbench.gateway.api import ModelSettings
from workbench.judges.parse import InvalidReply, extract_json
from workbench.protocols.faultline import prompts
from workbench.runs.context import RunContext, user


async def json_turn(ctx: RunContext, turn_id: str, agent: str, prompt: str, check: Callable[[dict], Any], *,
                    phase: str, label: str, role: str, settings: ModelSettings | None = None,
                    sample: int = 0) -> tuple[Any, str | None]:
    """(value, None) on success; (None, reason) after a failed retry."""
    messages = [user(prompt)]
    error = ""
    for attempt in range(2):
        tid = turn_id if attempt == 0 else f"{turn_id}:retry"
        text = await ctx.turn(tid, agent, messages, phase=phase, label=label, role=role, settings=settings,
                              sample=sample)
        try:
            return check(extract_json(text)), None
        except InvalidReply as exc:
            error = str(exc)
        if attempt == 0:
            ctx.reject(tid, error)  # the retry below is titled as one, with the reason
        messages = messages + [{"role": "assistant", "content": text}, user(prompts.RETRY.format(error=error))]
    ctx.emit(EXTRACTION_ERROR, turn=turn_id, agent=agent, step=phase, error=error)
    return None, error


def model_settings(table: dict) -> ModelSettings:
    """ModelSettings from a `[model]`-shaped dict of the faultline section (extractor, belief_graph)."""
    from workbench.runs.settings import study_model_settings

    return study_model_settings({"model": table})
