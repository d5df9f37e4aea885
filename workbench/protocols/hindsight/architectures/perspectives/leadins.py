"""B3 reader: lead-ins: bold (`**Legal:** ...`, `- **Legal:**`) and titled lines (`Title: text`,
`Title — text`, a title line alone over its paragraph).
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.perspectives.titles import (
    BOLD, BULLET, CONTAINER_TITLE, HEADING, INTRO_TITLE, LABEL_WORD, META_TITLE, NOT_A_VIEW, STOP,
    alone_as_title, aside, clean_title, synth_title,
)


# `Title: text` or `Title — text` at a line's start (after a bullet): the titled layout's lead-in
_TITLED = re.compile(r"^(?:[-*+•][ \t]+)?([A-Z][^:.!?;,—–\n]{0,50}?)[ \t]*(?::|[ \t][—–][ \t]|[ \t]-[ \t])[ \t]*(\S.*)$")


def bold_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        m = BOLD.match(line)
        if not m:
            continue
        title = clean_title(m.group(1))
        if STOP.match(m.group(1)) or synth_title(title):
            if out:
                break  # the synthesis: no perspective follows it
            continue
        before = lines[i - 1] if i else ""
        bullet = bool(BULLET.match(line))
        opens = (not before.strip() or bool(BOLD.match(before)) or before.rstrip().endswith(":")
                 or (bullet and (bool(BULLET.match(before.lstrip())) or before[:1] in (" ", "\t"))))
        if not opens:
            continue  # a lead-in opens a paragraph or a bullet of the top list
        if not out and INTRO_TITLE.match(title) or META_TITLE.fullmatch(title) or CONTAINER_TITLE.fullmatch(title):
            continue  # (a bold "**Perspectives**" over the views is their container, as a heading is)
        out.append((i, title, m.group(2).strip()))
    top = [f for f in out if not BULLET.match(lines[f[0]].lstrip()) and not aside(f[1])]
    if len(top) >= 2 and len(top) < len(out):
        return top  # lead-ins at the margin over bulleted ones: the bullets are parts of each view
    return out if len(out) >= 2 else _italic_starts(lines) or out


# "*The privacy advocate* starts from ...": a paragraph that opens with an italic name (no bold lead-ins in the reply)
_ITALIC = re.compile(r"^(?:\*(?=[^\s*])|_(?=[^\s_]))([^*_\n]{2,80}?)(?<=\S)[*_](?![*_\w])[ \t]*[:.\-–—,]?[ \t]*(.*)$")


def _italic_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        m = _ITALIC.match(line)
        if not m or (i and lines[i - 1].strip()):
            continue  # a paragraph's first line, at the margin
        title = clean_title(m.group(1))
        if STOP.match(m.group(1)) or synth_title(title):
            if out:
                break
            continue
        if len(title.split()) > 8 or META_TITLE.fullmatch(title) or not out and INTRO_TITLE.match(title):
            continue
        out.append((i, title, m.group(2).strip()))
    return out


def titled_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """Lines at the margin (plain or bulleted) that open with a short title: `Title: text`, `Title — text`, or the
    title alone with its text on the next line or in a nested list (`- Legal` then `  - ...`)."""
    out = []
    for i, line in enumerate(lines):
        if not line.strip() or line[:1] in (" ", "\t") or HEADING.match(line) or line.lstrip("*_")[:1] in "\"“‘" \
                or re.search(r"https?://|\bwww\.\w", line):
            continue  # (a quotation is what someone says, a link where to read more: no title)
        before = lines[i - 1] if i else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        lead = _TITLED.match(line)
        if lead:
            title, rest = clean_title(lead.group(1)), lead.group(2).strip()
        elif alone_as_title(line) and after.strip() and not (line.rstrip().endswith(":") and _TITLED.match(after)):
            # (a line ending in a colon over titled lines leads into them: "Stakeholders:" over "- Funders — ...")
            title, rest = clean_title(BULLET.sub("", line)), ""
        elif _title_case_alone(lines, i):  # "Blast Radius And Rollback", a paragraph of its own over the view's
            title, rest = clean_title(line), ""
        else:
            continue
        if LABEL_WORD.fullmatch(title) and 0 < len(rest.split()) <= 6:
            title, rest = clean_title(rest), ""  # "- Perspective: Platform team": the label names the view
        if len(title.split()) > 5 or NOT_A_VIEW.fullmatch(title) or not re.search(r"[^\W\d_]", title):
            continue
        opens = (not before.strip() or before[:1] in (" ", "\t") or before.rstrip().endswith(":")
                 or bool(out and out[-1][0] == i - 1))
        if not opens:
            continue
        if STOP.match(line) or synth_title(title):
            if out:
                break
            continue
        if not out and INTRO_TITLE.match(title) or META_TITLE.fullmatch(title):
            continue
        out.append((i, title, rest))
    return out


def _title_case_alone(lines: list[str], i: int) -> bool:
    """A line in Title Case (every word of four letters or more capitalised), at most six words without a closing
    stop, standing as a paragraph of its own over a paragraph of text: a title without markup."""
    line = lines[i].strip()
    words = line.split()
    after = lines[i + 2] if i + 2 < len(lines) else ""
    return (0 < len(words) <= 6 and not line.endswith((".", ",", ";", ":", "!", "?")) and words[0][:1].isupper()
            and all(w[:1].isupper() for w in words if len(re.sub(r"\W", "", w)) >= 4)
            and not (i and lines[i - 1].strip()) and i + 1 < len(lines) and not lines[i + 1].strip()
            and bool(after.strip()) and not alone_as_title(after))
