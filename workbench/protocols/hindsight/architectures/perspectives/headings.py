"""B3 reader: labelled views (`Perspective 1: ...`, `### Viewpoint B`) and markdown headings at the
shallowest level that holds two or more views.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.lists import NUMBERED
from workbench.protocols.hindsight.architectures.perspectives.sections import body_text
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    ABOUT_THE_SET, BOLD, CONTAINER_TITLE, HEADING, INTRO_TITLE, META_TITLE, NAMED_AS, STOP, clean_title,
    synth_title, title_and_rest,
)


_LABELLED = re.compile(r"^[ \t>#*_\-+]*(?:perspective|viewpoint|view|lens|angle|stance)[ \t]+#?(\d+|[A-Ha-e]|one|two|three|four|"
                       r"five|six)\b(?:[ \t]+(?:of|/)[ \t]+\d)?[ \t*_]*[:.\-–—)]?[ \t*_]*(.*)$", re.IGNORECASE)
# "First Perspective — Open by Default: ...", "**The second viewpoint:** ...": the ordinal before the label, as a lead-in
_LABELLED_ORDINAL = re.compile(r"^[ \t>#*_\-+]*(?:the[ \t]+)?(first|second|third|fourth|fifth|sixth)[ \t]+(?:perspective|"
                               r"viewpoint|view|lens|angle|stance)[ \t*_]*(?:[:.—–)]|[ \t]-[ \t]|$)[ \t*_]*(.*)$",
                               re.IGNORECASE)
# "Perspective (Legal): ..."
_LABELLED_NAMED = re.compile(r"^[ \t>#*_\-+]*(?:perspective|viewpoint|view|lens|angle|stance)[ \t]*\(([^)\n]{1,40})\)"
                             r"[ \t*_]*[:.\-–—]?[ \t*_]*(.*)$", re.IGNORECASE)
# a label that a sentence runs on from, no mark after it ("Perspective 2 should be rejected"): named, not set as a title
_RUNS_ON = re.compile(r"^[ \t>*_\-+]*(?i:perspective|viewpoint|view|lens|angle|stance)[ \t]+#?(?i:\d+|[A-H]|one|two|"
                      r"three|four|five|six)[ \t]+[a-z]")
# "Precedent. If Crock wins ...": a first sentence of at most four words, then the text
_SHORT_LEAD = re.compile(r"^((?:[\w'’-]+[ \t]+){0,3}[\w'’-]+)\.[ \t]+(\S.*)$")


def one_labelled(lines: list[str]) -> Section | None:
    """The one perspective of a reply that labels a single one (`**Perspective: risk containment.**`,
    `Perspective 1: ...` and no second)."""
    found = []
    for line in lines:
        bare = line.strip().strip("*_").strip()
        m = _LABELLED_NAMED.match(line) or _LABELLED.match(line) or NAMED_AS.match(bare)
        if m:
            found.append(clean_title(re.split(r"(?<=\w)\.(?:[*_]*[ \t]|$)|\*\*", m.group(1) if m.re is not _LABELLED else
                                              m.group(2) or m.group(1), maxsplit=1)[0]))
    return Section(1, found[0], found[0]) if len(found) == 1 else None


_KEY_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "first": 1, "second": 2, "third": 3,
              "fourth": 4, "fifth": 5, "sixth": 6}


def _label_key(label: str) -> int:
    """A label's place: `3`, `C` and `three` are all the third."""
    label = label.casefold()
    return int(label) if label.isdigit() else _KEY_WORDS.get(label) or ord(label) - ord("a") + 1


def labels_in_order(lines: list[str]) -> bool:
    """Whether the reply labels its views 1, 2, 3, ... (A, B, C, ...) with no gap or repeat: its own count."""
    keys = [_label_key(m.group(1)) for line in lines if (m := _LABELLED.match(line) or _LABELLED_ORDINAL.match(line))]
    return len(keys) >= 2 and keys == list(range(1, len(keys) + 1))


def labelled_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out, titles = [], {}  # titles: each label's title, by its place
    for i, line in enumerate(lines):
        named = _LABELLED_NAMED.match(line)
        m = named or _LABELLED.match(line) or _LABELLED_ORDINAL.match(line)
        if not m:
            continue
        if named:
            title, rest = clean_title(named.group(1)), named.group(2).strip()
        else:
            title, rest = title_and_rest(m.group(2))
            short = _SHORT_LEAD.match(rest) if not title else None
            if short:  # "Angle 1: Precedent. If Crock wins ...": a short first sentence names the view
                title, rest = clean_title(short.group(1)), short.group(2)
        if len(out) >= 2 and (synth_title(title) or STOP.match(title)):
            break  # "Perspective 4: Synthesis": the synthesis under a perspective's label
        if not named:
            key = _label_key(m.group(1))
            if key in titles and _RUNS_ON.match(line):
                continue  # "Perspective 2 should be rejected: ...": a label given again as a sentence's subject names
                # its view, wherever it stands (a later view's text, the synthesis); no view starts there
            if key in titles and title.casefold() in ("", titles[key].casefold()):
                break  # "- Perspective 1 says ...": a label given again, untitled or as before, recalls its view
            titles.setdefault(key, title)
        out.append((i, title, rest))
    return out


def heading_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    found = [(i, len(m.group(1)), clean_title(m.group(2))) for i, line in enumerate(lines)
             if (m := HEADING.match(line))]
    kept = []
    for i, level, title in found:
        if STOP.match(title) or synth_title(title):
            if len(kept) >= 2 and level <= min(lv for _, lv, _ in kept):
                break  # what follows the synthesis at the views' level (caveats, next steps) is the synthesis's
            continue
        if INTRO_TITLE.match(title) and not any(lv == level for _, lv, _ in kept) or META_TITLE.fullmatch(title) \
                or CONTAINER_TITLE.fullmatch(title) or _GROUP_TITLE.fullmatch(title) and _holds_views(lines, i, level):
            continue  # an introduction under its own heading (the first at its level), a note or caveat, or the
            # views' container ("## Perspectives", repeated or not, over the bold or listed views): no view
        kept.append((i, level, title))
    if len(kept) > 2 and ABOUT_THE_SET.search(body_text(lines, kept[0][0], kept[1][0])):
        kept = kept[1:]  # an introduction under a title of its own: it speaks of the perspectives to come
    numbered = [(i, lv, title) for i, lv, title in kept
                if re.match(r"[ \t]*#+[ \t]+[*_]*\d{1,2}[.)][ \t]", lines[i])]
    if len(numbered) >= 2 and len({lv for _, lv, _ in numbered}) > 1 and [
            int(re.search(r"\d+", lines[i]).group()) for i, _, _ in numbered] == list(range(1, len(numbered) + 1)):
        return [(i, title, "") for i, _, title in numbered]  # `## 1.`, `### 2.`, `## 3.`: numbered views, levels mixed
    for level in sorted({lv for _, lv, _ in kept}):  # the shallowest level holding two views: deeper ones are parts
        at = [(i, title, "") for i, lv, title in kept if lv == level]
        if len(at) >= 2:
            return at
    return []


# A title that names a group of views ("Internal perspectives", "External views"): their container where it holds them
_GROUP_TITLE = re.compile(r"(?:[\w'’-]+[ \t]+){1,2}(?:perspectives|viewpoints|views|lenses|angles|standpoints)",
                          re.IGNORECASE)


def _holds_views(lines: list[str], i: int, level: int) -> bool:
    """Whether the heading at line i holds two or more titled parts (deeper headings, bold lead-ins, numbered items)
    before the next heading at its level or above."""
    held = 0
    for line in lines[i + 1:]:
        m = HEADING.match(line)
        if m and len(m.group(1)) <= level:
            break
        held += bool(m or BOLD.match(line) or NUMBERED.match(line))
    return held >= 2
