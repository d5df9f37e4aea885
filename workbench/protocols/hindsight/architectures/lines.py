"""Reading the structured lines the prompts ask for: numbered sections, motions, amendments (seconds and votes are
read by motion_replies.py).

A reply that does not contain the asked-for line is reported as unparsed
(None); nothing is guessed from free prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DECOR = r"^[ \t>#*_]*"


@dataclass
class Section:
    number: int
    title: str
    text: str


def numbered_sections(text: str, word: str, stop_words: tuple[str, ...] = ()) -> list[Section]:
    """Split `text` at heading lines `WORD n: title` (e.g. `PERSPECTIVE 2: Regulators`).

    A section runs to the next such heading, or to a line starting with one of
    `stop_words` (e.g. SYNTHESIS, RECOMMENDATION). Returns [] if no heading is found.
    """
    heading = re.compile(_DECOR + re.escape(word) + r"\s+(\d+)[ \t*_]*[:.\-–—)]?[ \t*_]*(.*)$",
                         re.IGNORECASE)
    stop = re.compile(_DECOR + r"(" + "|".join(re.escape(w) for w in stop_words) + r")\b",
                      re.IGNORECASE) if stop_words else None
    sections: list[Section] = []
    current: Section | None = None
    body: list[str] = []
    for line in (text or "").splitlines():
        m = heading.match(line)
        if m:
            if current is not None:
                current.text = "\n".join(body).strip()
                sections.append(current)
            current = Section(int(m.group(1)), _strip(m.group(2)), "")
            body = []
            continue
        if stop is not None and stop.match(line):
            if current is not None:
                current.text = "\n".join(body).strip()
                sections.append(current)
            current, body = None, []
            continue
        if current is not None:
            body.append(line)
    if current is not None:
        current.text = "\n".join(body).strip()
        sections.append(current)
    return [s for s in sections if s.text or s.title]


def _strip(value: str) -> str:
    return value.strip().strip("*_").strip()


def tagged_lines(text: str, tag: str) -> list[str]:
    """The values of every `TAG: value` line (any case, markdown decoration allowed)."""
    pattern = re.compile(_DECOR + re.escape(tag) + r"[ \t*_]*:[ \t*_]*(.*)$", re.IGNORECASE | re.MULTILINE)
    return [_strip(m.group(1)) for m in pattern.finditer(text or "") if _strip(m.group(1))]


def first_tagged(text: str, tag: str) -> str | None:
    values = tagged_lines(text, tag)
    return values[0] if values else None


_NONE = re.compile(r"^(none|no amendments?|n/?a|-)\.?$", re.IGNORECASE)


def parse_amendments(text: str) -> list[str]:
    """Every `AMENDMENT: ...` line that proposes something (not "none")."""
    return [v for v in tagged_lines(text, "AMENDMENT") if not _NONE.match(v)]


# The minutes head each speech with a bracketed line, "[Devil's advocate, debate round 1]" or "[Strategist]".
_SPEECH_HEADER = re.compile(r"^[ \t*_]*\[([^\]\n]+)\][ \t*_:]*$")
_QUOTE_MARK = re.compile(r"^[ \t]*>")


def own_and_quoted(text: str, speaker: str) -> tuple[str, str]:
    """(the speaker's own words, what the reply quotes) of one debate reply.

    A small model shown the minutes copies speeches from them, header and all, and an `AMENDMENT:` line
    inside such a copy is another member's, not the speaker's. Quoted: a block that opens with a minutes
    speech header naming anyone but the speaker, up to the next blank line or the speaker's own header,
    and markdown quote lines ("> ..."). A copy that runs past a blank line is caught by the next check
    (an amendment already moved is ruled out of order).
    """
    own: list[str] = []
    quoted: list[str] = []
    quoting = False
    me = speaker.casefold()
    for line in (text or "").splitlines():
        header = _SPEECH_HEADER.match(line)
        if header:
            quoting = not header.group(1).strip().casefold().startswith(me)
            (quoted if quoting else own).append(line)
            continue
        if not line.strip():
            quoting = False
        (quoted if quoting or _QUOTE_MARK.match(line) else own).append(line)
    return "\n".join(own), "\n".join(quoted)


def same_text(text: str) -> str:
    """An amendment or motion as compared for sameness: case and whitespace folded, and the markdown,
    quotes and final full stop a model wraps around the same words dropped."""
    folded = " ".join((text or "").casefold().split())
    return folded.strip(" \"'`*_").rstrip(".;").strip(" \"'`*_")
