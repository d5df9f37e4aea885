"""How a structured reply was read: parsed, repaired, refused, cut or unparsed.

Each step keeps its own parser (the fallback when a model does not decode by schema). A parser that has to
fix a reply to accept it (the JSON object fenced or inside other text, a value it clamps or respells, a field it
fills from a synonym) says so with `repaired(why)`; `read` runs the parser and collects those notes. A context
variable carries them, so the parsers keep their signatures and are unchanged when nobody is counting.

A reply that parses but whose content a step's check refuses (a judge's quote that is not in the response it
judged) raises `RefusedReply`: it is `refused`, apart from `unparsed`, so the counts do not say a reply failed
to parse when a model answered in the right shape with the wrong text (issue 25 item 7). A refused reply gets
one corrective retry that says why (`workbench/judges/calls.py`).

A reply that does not parse because the server stopped it at `max_tokens` (finish reason `length`) is `cut`,
apart from `unparsed` (issue 40): the model was not wrong, the budget was short, and its retry changes the
budget (or asks less per call) instead of asking the same again.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable

PARSED, REPAIRED, REFUSED, UNPARSED, CUT = "parsed", "repaired", "refused", "unparsed", "cut"
OUTCOMES = (PARSED, REPAIRED, REFUSED, CUT, UNPARSED)


class InvalidReply(ValueError):
    """The reply cannot be used; str() says why (fed back to the retry)."""


class RefusedReply(InvalidReply):
    """The reply parsed, but a check refused what it says (a quote not found in the text it must come from)."""


_NOTES: ContextVar[list[str] | None] = ContextVar("structured_repairs", default=None)


def repaired(why: str) -> None:
    """Note that the parser is fixing the reply it accepts (a no-op outside `read`)."""
    notes = _NOTES.get()
    if notes is not None and why not in notes:
        notes.append(why)


@dataclass(frozen=True)
class Reading:
    value: Any
    outcome: str        # PARSED | REPAIRED | REFUSED | CUT | UNPARSED
    detail: str = ""    # the fixes made, or why the reply could not be used

    @property
    def ok(self) -> bool:
        return self.outcome in (PARSED, REPAIRED)


def read(parse: Callable[[str], Any], text: str, *, cut: bool = False) -> Reading:
    """Run `parse` over `text`; RefusedReply makes the reply refused, any other InvalidReply unparsed (cut, when
    `cut`: the reply was stopped at max_tokens), any other exception propagates. A cut reply that parses is
    taken."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        value = parse(text)
    except RefusedReply as exc:
        return Reading(None, REFUSED, str(exc))
    except InvalidReply as exc:
        if cut:
            return Reading(None, CUT, f"cut at max_tokens: {exc}")
        return Reading(None, UNPARSED, str(exc))
    finally:
        _NOTES.reset(token)
    return Reading(value, REPAIRED if notes else PARSED, "; ".join(notes))
