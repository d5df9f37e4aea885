"""B3 reader: every layout's split of a reply, tried in order (the first with two or more perspectives is
the reader's first choice; the package's __init__ chooses and flags).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.blocks import json_sections
from workbench.protocols.hindsight.architectures.perspectives.headings import heading_starts, labelled_starts
from workbench.protocols.hindsight.architectures.perspectives.inline import inline_sections, voiced_sections
from workbench.protocols.hindsight.architectures.perspectives.leadins import bold_starts, titled_starts
from workbench.protocols.hindsight.architectures.perspectives.lists import (
    counted_sections, numbered_starts, outline_starts,
)
from workbench.protocols.hindsight.architectures.perspectives.prose import (
    parallel_starts, prose_starts, quoted_starts,
)
from workbench.protocols.hindsight.architectures.perspectives.sections import (
    sections_from, with_continuations, without_fields, without_odd_closing,
)
from workbench.protocols.hindsight.architectures.perspectives.tables import table_sections, table_starts
from workbench.protocols.hindsight.architectures.perspectives.text import answer_of, normalised
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    HEADING, aside, stated_counts, synthesis_line, under_asides,
)


LAYOUTS = ("labelled", "headings", "table", "numbered", "bold", "titled", "quoted", "prose", "parallel", "inline",
           "voiced")


@dataclass
class Split:
    layout: str                 # one of LAYOUTS, or "" when the reply was not split
    sections: list[Section]


def split_perspectives(text: str) -> Split:
    """The perspectives of a B3 reply and the layout they were read from; no sections when fewer than two."""
    return next(splits(answer_of(text)), Split("", []))


def splits(text: str):
    """Every layout's split of the reply with two or more perspectives, in the order the layouts are tried."""
    listed = json_sections(text or "")
    if listed is not None:
        layout, sections = listed
        if len(sections) >= 2:
            yield Split(layout, sections)
        return  # a JSON or YAML reply has no other layout: its lines are code
    lines = normalised(text or "")
    asides = under_asides(lines)
    for layout, starts in (("labelled", labelled_starts), ("headings", heading_starts),
                           ("table", table_starts), ("numbered", numbered_starts), ("outline", outline_starts),
                           ("bold", bold_starts), ("titled", titled_starts), ("quoted", quoted_starts),
                           ("prose", prose_starts),
                           ("parallel", parallel_starts)):
        found = [f for f in starts(lines) if layout == "labelled" or not (aside(f[1]) or f[0] in asides)]
        found = without_odd_closing(without_fields(found) if layout in ("bold", "titled") else found)
        found = _before_a_closing_heading(lines, found) if layout != "headings" else found
        if len(found) >= 2:
            sections = table_sections(lines, found) if layout == "table" else sections_from(lines, found)
            sections = with_continuations(sections)
            if len(sections) >= 2:
                yield Split(layout, sections)
    counted = counted_sections(lines, stated_counts(text or ""))
    if len(counted) >= 2:
        yield Split("counted", counted)
    inline = inline_sections("\n".join(lines))
    if len(inline) >= 2:
        yield Split("inline", inline)
    voiced = voiced_sections("\n".join(lines))
    if len(voiced) >= 2:
        yield Split("voiced", voiced)


def _before_a_closing_heading(lines: list[str], found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The starts less those after the first heading that names the synthesis ("## Bottom Line") where no heading
    stands among the views before it: the heading closes them, and a bold lead-in after it ("**Suggested timeline:**")
    is the synthesis's."""
    if not found:
        return found
    for i in range(found[0][0] + 1, len(lines)):
        if HEADING.match(lines[i]):
            return [f for f in found if f[0] < i] if synthesis_line(lines[i]) else found
    return found


def other_counts(text: str, layout: str) -> list[int]:
    return [len(s.sections) for s in splits(text) if s.layout != layout]
