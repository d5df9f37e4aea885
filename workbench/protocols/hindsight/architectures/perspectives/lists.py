"""B3 reader: numbered, lettered and roman lists (of several, the one led in as views), outlines (`1.1`),
and views counted by the reply's own stated number.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.prose import PROSE
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    BOLD, BULLET, HEADING, INLINE_INTRO, META_TITLE, STOP, alone_as_title, aside, clean_title, synth_title,
    synthesis_line, title_and_rest, title_of,
)


ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
NUMBERED = re.compile(r"^(?:\(?(\d{1,2})(?:[.)]|/(?=[ \t]))|\(?([A-Ea-e])[.)]|\(?(I{1,3}|IV|VI?|i{1,3}|iv|vi?)[.)]|\((\d{1,2}|[a-e])\))"
                      r"[ \t]+(.+)$")


def numbered_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """The items of the reply's list of perspectives: where it has several lists numbered from 1 (the options
    restated, then the views), the one its lead-in line names as views ("Perspectives on them:"), else the first."""
    runs = [run for run in numbered_runs(lines) if not _led_as_aside(lines, run[0][0])]
    titled = [run for run in runs if _led_by_a_title(lines, run[0][0])]
    if len(titled) >= 2:  # a list under each of two titles or more: each view's points, the titles the views
        runs = [run for run in runs if run not in titled]
    if len(runs) > 1:
        led = [run for run in runs if led_as_views(lines, run[0][0])]
        if len(led) == 1:
            return led[0]
    return runs[0] if runs else []


def numbered_runs(lines: list[str]) -> list[list[tuple[int, str, str]]]:
    """Every list at the left margin numbered, lettered or in roman numerals from 1, up to the synthesis."""
    runs: list[list[tuple[int, str, str]]] = []
    out: list[tuple[int, str, str]] = []
    expected = None
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t"):
            continue  # a nested list belongs to the perspective it is in
        if synthesis_line(line) and not NUMBERED.match(line):
            if out or runs:
                break
            return []  # a list after the synthesis's title is its steps, not the perspectives
        m = NUMBERED.match(line)
        if not m:
            continue
        digits, letter, roman, paren, rest = m.groups()
        key = _key(digits or paren, letter, roman)
        if expected is not None and key == 1 and key != expected:
            runs.append(out)  # a new list from 1
            out, expected = [], None
        # a slip in the numbering (1, 2, 2, 3 or 1, 2, 4) keeps the list going: an item is never dropped for it
        slip = expected is not None and key in (expected - 1, expected + 1) and key > 1
        if expected is None and key != 1 or expected is not None and key != expected and not slip:
            continue
        if STOP.match(rest) or any(synth_title(t) for t in (clean_title(rest), title_and_rest(rest)[0])):
            break
        if slip and key == expected + 1 and out:
            out += _filling(lines, out[-1][0], i)  # 1., then **Business view:** at the margin, then 3)
        title, body = title_and_rest(rest)
        voice = PROSE.match(rest) if not title else None
        asked = _ASKS_A_ROLE.match(rest) if not title else None
        if voice and not voice.group(1):  # "1. From the engineers' side, ...": the phrase names the view
            title, body = clean_title(next(g for g in voice.groups() if g)), rest
        elif asked:  # "1. How would a lawyer see it? As extortion.": the role asked names the view
            title, body = clean_title(asked.group(1)), rest
        out.append((i, title, body))
        expected = max(key, expected or 0) + 1 if slip else key + 1
    runs.append(out)
    return [run for run in runs if len(run) >= 2]


def _filling(lines: list[str], before: int, after: int) -> list[tuple[int, str, str]]:
    """The item a list's skipped number stands for ("1. Technical ...", "**Business:** ...", "3) Risk ..."): the one
    paragraph between the items on each side of the gap that opens at the margin with a bold lead-in, as messy text
    writes an item whose number it forgot; none where there is no such paragraph or more than one."""
    found = []
    for j in range(before + 1, after):
        m = BOLD.match(lines[j])
        if m and not lines[j][:1].isspace() and not BULLET.match(lines[j]) and not lines[j - 1].strip():
            title = clean_title(m.group(1))
            if title and not (aside(title) or synth_title(title) or STOP.match(title) or META_TITLE.fullmatch(title)):
                found.append((j, title, m.group(2).strip()))
    return found if len(found) == 1 else []


def skips_a_number(lines: list[str]) -> bool:
    """Whether the reply's list of perspectives skips a number no paragraph stands for (1, 2, 4): a view the reader
    may have missed, its count unsure."""
    run = numbered_starts(lines)
    keys = [_key(m.group(1) or m.group(4), m.group(2), m.group(3))
            for i, _, _ in run if (m := NUMBERED.match(lines[i]))]
    return bool(keys) and len(run) < max(keys)


_ASKS_A_ROLE = re.compile(r"(?:how|what)[ \t]+(?:would|might|does|do|will)[ \t]+((?:an?|the)[ \t]+[\w' -]{1,30}?)[ \t]+"
                          r"(?:see|say|think|view|read|make of)\b[^?]*\?", re.IGNORECASE)


def led_as_views(lines: list[str], first: int) -> bool:
    """Whether the line that leads into a list (the nearest one above it) names perspectives, views or angles."""
    lead = next((line for line in reversed(lines[:first]) if line.strip()), "")
    return bool(INLINE_INTRO.search(lead))


def _led_as_aside(lines: list[str], first: int) -> bool:
    """Whether the line that leads into a list names a part beside the views ("Assumptions I'm making:", "Risks:",
    "Glenda has three options:") and no views."""
    lead = next((line for line in reversed(lines[:first]) if line.strip()), "")
    title = title_of(lead) if not lead.rstrip().endswith(":") else clean_title(lead.rstrip().rstrip(":"))
    if lead.rstrip().endswith(":") and _LISTS_ASIDES.search(lead) and not INLINE_INTRO.search(lead):
        return True
    return bool(title) and bool(aside(title) or META_TITLE.match(title))


_LISTS_ASIDES = re.compile(r"\b(?:options|choices|alternatives|courses of action|steps|risks|assumptions|questions|"
                           r"facts|scenarios|outcomes|actions)\b", re.IGNORECASE)


def _led_by_a_title(lines: list[str], first: int) -> bool:
    """Whether a list sits right under a title line (a heading, a bold line, a short line alone)."""
    lead = lines[first - 1] if first else ""
    bare = lead.strip()
    return bool(bare) and (bool(HEADING.match(lead)) or bool(re.fullmatch(r"(?:\*\*|__)[^*_]+(?:\*\*|__):?", bare))
                           or (alone_as_title(lead) and not NUMBERED.match(bare)))


def _key(number: str | None, letter: str | None, roman: str | None) -> int:
    if roman:
        return ROMAN[roman.lower()]
    value = number or letter or ""
    if value.isdigit():
        return int(value)
    return ord(value.upper()) - ord("A") + 1


_OUTLINE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?[ \t]+(\S.*)$")


def outline_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """An outline's decimal items at the margin (`1.1 Security: ...`, `1.2 ...` under `1. Perspectives`): the first
    run numbered from .1 under one parent."""
    out: list[tuple[int, str, str]] = []
    parent = None
    for i, line in enumerate(lines):
        m = _OUTLINE.match(line)
        if not m:
            continue
        major, minor = int(m.group(1)), int(m.group(2))
        if parent is None and minor == 1:
            parent = major
        elif parent is None or major != parent or minor != len(out) + 1:
            if out:
                break
            continue
        title, rest = title_and_rest(m.group(3))
        if STOP.match(m.group(3)) or synth_title(title):
            break
        out.append((i, title, rest))
    return out


def counted_sections(lines: list[str], stated: set[int]) -> list[Section]:
    """Untitled parts the reply counts itself ("Three perspectives:" over three bullets or three paragraphs): read
    only where their number is the one stated, up to the synthesis."""
    if len(stated) != 1:
        return []
    n = next(iter(stated))
    # the count is stated in the introduction (the first paragraph) or in a line that leads into the parts
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    intro_end = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
    said = next((i for i, line in enumerate(lines) if _COUNTED.search(line)
                 and (i < intro_end or line.rstrip().endswith(":"))), None)
    if said is None:
        return []
    items: list[list[str]] = []
    bullets = closed = False
    for line in lines[said + 1:]:
        if synthesis_line(line):
            closed = True
            break
        if not line.strip():
            if items and not bullets:
                items.append([])
            continue
        if BULLET.match(line) and not bullets and not any(items):
            bullets, items = True, []
        if bullets:
            if BULLET.match(line):
                items.append([BULLET.sub("", line)])
            elif line[:1] in (" ", "\t") and items:
                items[-1].append(line.strip())
            else:
                break
        else:
            if not items:
                items.append([])
            items[-1].append(line.strip())
    parts = [" ".join(p).strip() for p in items if " ".join(p).strip()]
    if len(parts) != n or not (bullets or closed):
        return []  # paragraphs count only up to a synthesis: otherwise the last may be it
    return [Section(k, "", part) for k, part in enumerate(parts, start=1)]


_COUNTED = re.compile(r"\b(two|three|four|five|six|[2-6])[ \t]+(?:[\w'-]+[ \t]+){0,2}?(?:perspectives|viewpoints|views|"
                      r"angles|lenses|standpoints)\b", re.IGNORECASE)
