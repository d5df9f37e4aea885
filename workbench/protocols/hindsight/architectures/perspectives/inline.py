"""B3 reader: views in one paragraph: enumerated inline (`(a) ... (b) ...`, `first, ...; second, ...`) or
voiced by bold names (`the **optimist** says`).
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.lists import ROMAN
from workbench.protocols.hindsight.architectures.perspectives.titles import INLINE_INTRO, clean_title, title_and_rest


# (a) / (1) / (ii) within a paragraph, "1." after a sentence's end, or an ordinal ("second, the financial one")
_INLINE_MARK = re.compile(r"\(([a-e]|[1-5]|i{1,3}|iv|v)\)\s+|(?:^|(?<=[.;:!?])\s+|(?<=[.;:!?][*_])\s+)([1-5])[.)]\s+|"
                          r"\b(first|second|third|fourth|fifth)(?:ly)?,\s+", re.IGNORECASE)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


# "The **optimist** says ...; the **pessimist** says ...": a bold name then what it says, within one paragraph
_VOICED = re.compile(r"(?:^|(?<=[.;:!?])[ \t]+|\b(?:the|an?|and|while|whereas)[ \t]+)(?:\*\*|__)([^*_\n]{1,40}?)(?:\*\*|__)"
                     r"[ \t]*(?:\([^)\n]{1,40}\)[ \t]*)?,?[ \t]+(?:would[ \t]+)?(?:says?|argues?|sees?|thinks?|believes?|"
                     r"points?|warns?|notes?|counters?|insists?|fears?|wants?|asks?|replies|responds?|stresses|"
                     r"worries|focus(?:es)?|holds?|claims?|urges?|objects?|view)\b", re.IGNORECASE)


def voiced_sections(text: str) -> list[Section]:
    """A paragraph that gives each view in a bold name's voice ("The **optimist** says ...; the **pessimist** ..."):
    a perspective per name, up to the next."""
    for paragraph in re.split(r"\n[ \t]*\n", text):
        marks = list(_VOICED.finditer(paragraph))
        names = [clean_title(m.group(1)) for m in marks]
        if len(marks) < 2 or len({n.casefold() for n in names}) < len(names):
            continue
        return [Section(n + 1, names[n], paragraph[m.start(1):marks[n + 1].start() if n + 1 < len(marks) else
                                                    len(paragraph)].strip(" ;,"))
                for n, m in enumerate(marks)]
    return []


def inline_sections(text: str) -> list[Section]:
    """One paragraph that names perspectives (or follows one that does), then enumerates them (a) ... (b) ... in
    order."""
    previous = ""
    for paragraph in re.split(r"\n[ \t]*\n", text):
        marks = list(_INLINE_MARK.finditer(paragraph))
        lead_in, previous = previous + " " + paragraph[:marks[0].start()] if marks else "", paragraph
        if len(marks) < 2 or not INLINE_INTRO.search(lead_in) or "\n" in paragraph[marks[0].start():].strip():
            continue  # (marks on lines of their own are a list, read as one where it is the views)
        keys = [_inline_key(next(g for g in m.groups() if g)) for m in marks]
        if keys != list(range(1, len(keys) + 1)):
            continue
        sections = []
        for n, m in enumerate(marks):
            end = marks[n + 1].start() if n + 1 < len(marks) else len(paragraph)
            body = paragraph[m.end():end].strip().rstrip(";,").strip()
            body = re.sub(r"[;,]?\s*(?:and|or)$", "", body).strip()
            title, _ = title_and_rest(body)
            lead = re.split(r"[,:;—–(]", body, maxsplit=1)[0].strip()
            if (not title or title == body) and len(lead.split()) <= 6 and lead != body:
                title = lead  # "(a) as a negotiation, where ...": the phrase before the comma names it
            sections.append(Section(n + 1, title if title != body else "", body))
        return sections
    return []


def _inline_key(mark: str) -> int:
    mark = mark.lower()
    if mark in _ORDINALS:
        return _ORDINALS[mark]
    if mark.isdigit():
        return int(mark)
    if mark in ROMAN:
        return ROMAN[mark]
    return ord(mark) - ord("a") + 1
