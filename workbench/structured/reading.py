"""How a structured reply was read: parsed, repaired or unparsed.

Each step keeps its own parser (the fallback when a model does not decode by schema). A parser that has to
fix a reply to accept it (the JSON object fenced or inside other text, a value it clamps or respells, a field it
fills from a synonym) says so with `repaired(why)`; `read` runs the parser and collects those notes. A context
variable carries them, so the parsers keep their signatures and are unchanged when nobody is counting.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable

PARSED, REPAIRED, UNPARSED = "parsed", "repaired", "unparsed"
OUTCOMES = (PARSED, REPAIRED, UNPARSED)


class InvalidReply(ValueError):
    """The reply cannot be used; str() says why (fed back to the retry)."""


_NOTES: ContextVar[list[str] | None] = ContextVar("structured_repairs", default=None)


def repaired(why: str) -> None:
    """Note that the parser is fixing the reply it accepts (a no-op outside `read`)."""
    notes = _NOTES.get()
    if notes is not None and why not in notes:
        notes.append(why)


@dataclass(frozen=True)
class Reading:
    value: Any
    outcome: str        # PARSED | REPAIRED | UNPARSED
    detail: str = ""    # the fixes made, or why the reply could not be used

    @property
    def ok(self) -> bool:
        return self.outcome != UNPARSED


def read(parse: Callable[[str], Any], text: str) -> Reading:
    """Run `parse` over `text`; InvalidReply makes the reply unparsed, any other exception propagates."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        value = parse(text)
    except InvalidReply as exc:
        return Reading(None, UNPARSED, str(exc))
    finally:
        _NOTES.reset(token)
    return Reading(value, REPAIRED if notes else PARSED, "; ".join(notes))
