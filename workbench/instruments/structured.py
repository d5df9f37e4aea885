"""Instruments over structured (JSON) replies: the step's own parser, run as the step runs it.

A structured step reads a reply with its parser through `workbench.structured.reading.read`: parsed,
repaired (read, with the fixes named), refused or unparsed (asked again, then counted as an error and left
out of every table). An instrument built here reads a researcher's file the same way, so `read` shows what
the study would take as data. Unparsed or refused is the flag: that reading never enters a table, and the
step's counts say so. A corpus entry whose truth is `unusable = true` is one a careful human cannot read as
data either (a reply cut off, fewer nodes than asked): the flag is then the right reading.
"""

from __future__ import annotations

from typing import Any, Callable


def read_reply(parse: Callable[[str], Any], text: str) -> tuple[Any, dict]:
    """(value or None, the document's common keys: outcome, flagged, reason)."""
    from workbench.structured.reading import read

    reading = read(parse, text)
    reason = reading.detail if not reading.ok else (f"read after repair: {reading.detail}" if reading.detail else "")
    return reading.value, {"outcome": reading.outcome, "flagged": not reading.ok, "reason": reason}


def unusable_or(compare: Callable[[dict, dict], bool]) -> Callable[[dict, dict], bool]:
    """An `agrees` for such an instrument: a truth of `unusable = true` agrees with a flagged reading only;
    any other truth with an unflagged reading that `compare` finds equal."""

    def agrees(doc: dict, truth: dict) -> bool:
        if truth.get("unusable"):
            return bool(doc["flagged"]) and doc["outcome"] not in ("parsed", "repaired")
        return doc["outcome"] in ("parsed", "repaired") and compare(doc, truth)

    return agrees
