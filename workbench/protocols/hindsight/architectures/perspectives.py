"""Reading B3's perspectives out of a reply, whatever its layout (issue 30).

The seed's B3 prompt asks for "3-5 genuinely different perspectives" and no
layout, so models lay them out in many ways. The layouts read, tried in this
order (the first that yields two or more perspectives wins):

- labelled: `Perspective 1: ...`, `**Perspective A - Security**`, `### Viewpoint 2`
  (a number or a letter after "perspective", "viewpoint" or "view");
- headings: markdown headings, numbered or not (`### 1. Security perspective`,
  `## The Economic View`), at the heading level used most often;
- numbered: a list at the left margin numbered from 1 or lettered from A
  (`1. **The Security View**`, `2) Economic:`, `B. Legal`);
- bold: paragraphs that open with a bold lead-in (`**Security view:** ...`);
- prose: paragraphs that open with an ordinal or a perspective phrase
  (`First, ...`, `Secondly, ...`, `From a security standpoint, ...`,
  `Another perspective ...`).

A perspective runs to the next one, or to the synthesis: a heading, bold
lead-in or paragraph that opens with synthesis, recommendation, conclusion,
summary, overall or "in summary/conclusion". Text before the first
perspective (an introduction) belongs to none. A reply that yields fewer
than two perspectives is not split (`split_perspectives` returns []): B3 then
tries the copy-only extraction where the model decodes by schema (b3.py), and
otherwise flags the reply as unsplit, never as one perspective.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.protocols.hindsight.architectures.lines import Section

LAYOUTS = ("labelled", "headings", "numbered", "bold", "prose")
_DECOR = r"[ \t>*_]*"
_STOP_WORDS = r"(?:synthesi[sz]\w*|recommend\w*|conclusion|in conclusion|in summary|summary|overall|final recommendation)"
_STOP = re.compile(r"^[>#*_]*[ \t]*(?:\d+[.)][ \t]*)?[*_]*" + _STOP_WORDS + r"\b", re.IGNORECASE)
_LABELLED = re.compile(r"^[ \t>#*_]*(?:perspective|viewpoint|view)[ \t]+(\d+|[A-Ea-e])\b[ \t*_]*[:.\-–—)]?[ \t*_]*(.*)$",
                       re.IGNORECASE)
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.*?)[ \t#]*$")
_NUMBERED = re.compile(r"^(?:(\d{1,2})|([A-Ea-e]))[.)][ \t]+(.+)$")
_BOLD = re.compile(r"^[ \t]*(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*[:.\-–—]?[ \t]*(.*)$")
_PROSE = re.compile(r"^[ \t]*(?:(first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth(?:ly)?|sixth|finally|lastly)"
                    r"\b[,:]?|"
                    r"(from (?:a|an|the) [^,.:;]{1,60}?(?:perspective|standpoint|point of view|viewpoint|view|lens)\b)|"
                    r"((?:one|another|a (?:second|third|fourth|fifth|final|further)) (?:perspective|view|viewpoint)\b))",
                    re.IGNORECASE)
_ORDINAL_LEAD = re.compile(r"^[ \t]*(?:\d{1,2}[.)]|[A-Ea-e][.)])[ \t]*")


@dataclass
class Split:
    layout: str                 # one of LAYOUTS, or "" when the reply was not split
    sections: list[Section]


def split_perspectives(text: str) -> Split:
    """The perspectives of a B3 reply and the layout they were read from; no sections when fewer than two."""
    lines = (text or "").splitlines()
    for layout, starts in (("labelled", _labelled_starts), ("headings", _heading_starts),
                           ("numbered", _numbered_starts), ("bold", _bold_starts), ("prose", _prose_starts)):
        found = starts(lines)
        if len(found) >= 2:
            sections = _sections(lines, found)
            if len(sections) >= 2:
                return Split(layout, sections)
    return Split("", [])


# --- where each layout starts a perspective: [(line index, title, rest of the line)] ------------------------

def _labelled_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        m = _LABELLED.match(line)
        if m:
            title, rest = _title_and_rest(m.group(2))
            out.append((i, title, rest))
    return out


def _heading_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    found = [(i, len(m.group(1)), m.group(2)) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    kept = [(i, level, t) for i, level, t in found if not _STOP.match(t)]
    if len(kept) < 2:
        return []
    levels = [level for _, level, _ in kept]
    level = max(set(levels), key=lambda v: (levels.count(v), v))  # the most used level; deeper on a tie
    return [(i, _clean_title(t), "") for i, lv, t in kept if lv == level]


def _numbered_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out, expected = [], None
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t"):
            continue  # a nested list belongs to the perspective it is in
        m = _NUMBERED.match(line)
        if not m:
            if _STOP.match(line) and out:
                break
            continue
        key = int(m.group(1)) if m.group(1) else ord(m.group(2).upper()) - ord("A") + 1
        if expected is None and key != 1:
            continue
        if expected is not None and key != expected:
            if key == 1:  # a new list from 1 (the synthesis's steps): the perspectives ended
                break
            continue
        if _STOP.match(m.group(3)):
            break
        title, rest = _title_and_rest(m.group(3))
        out.append((i, title, rest))
        expected = key + 1
    return out


def _bold_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        if i and lines[i - 1].strip() and not _BOLD.match(lines[i - 1]):
            continue  # a lead-in opens a paragraph
        m = _BOLD.match(line)
        if m and not _STOP.match(m.group(1)):
            out.append((i, _clean_title(m.group(1)), m.group(2).strip()))
    return out


def _prose_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        if i and lines[i - 1].strip():
            continue  # a paragraph's first line
        m = _PROSE.match(line)
        if m and not _STOP.match(line):
            phrase = next(g for g in m.groups() if g)
            out.append((i, "" if m.group(1) else _clean_title(phrase), line.strip()))
    return out


# --- cutting the reply at those starts ---------------------------------------------------------------------

def _sections(lines: list[str], starts: list[tuple[int, str, str]]) -> list[Section]:
    sections = []
    for n, (i, title, rest) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        body = [rest] if rest else []
        for line in lines[i + 1:end]:
            if _is_stop(line):
                break
            body.append(line)
        text = "\n".join(body).strip()
        if text or title:
            sections.append(Section(n + 1, title, text or title))
    return sections


def _is_stop(line: str) -> bool:
    """A line where the synthesis begins: a heading, bold lead-in or plain line opening with a stop word."""
    return bool(line.strip()) and bool(_STOP.match(line))


def _title_and_rest(value: str) -> tuple[str, str]:
    """`**The Security View**: text` -> ("The Security View", "text"); `Security: text` -> ("Security", "text");
    a line with no title part is all text."""
    value = value.strip()
    bold = _BOLD.match(value)
    if bold:
        return _clean_title(bold.group(1)), bold.group(2).strip()
    head, sep, rest = value.partition(":")
    if sep and len(head) <= 60:
        return _clean_title(head), rest.strip()
    if len(value) <= 60 and not value.endswith((".", "!", "?")):
        return _clean_title(value), ""
    return "", value


def _clean_title(value: str) -> str:
    value = _ORDINAL_LEAD.sub("", value.strip())
    return value.strip().strip("*_:").strip().rstrip(":").strip()
