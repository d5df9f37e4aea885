"""B3 reader: from the starts a layout found to sections (each runs to the next or to the synthesis), less
the fields each view repeats and an odd closing title; a voice speaking again joins its first turn.
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.titles import is_stop


def without_fields(found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The starts less the fields each perspective repeats (`**Sees:**`, `**Would do:**` under every view): titles
    that recur once per perspective, in the same order, are parts of it. Where the titles do not fall into that
    pattern, unchanged (and two views sharing a title are flagged). For unnumbered lead-ins only: a numbered label
    or heading says it is a view."""
    names = [t.casefold() for _, t, _ in found]
    once = [f for f, n in zip(found, names) if names.count(n) == 1]
    if len(once) < 2 or len(once) == len(found) or names.count(names[0]) > 1:
        return found
    groups: list[list[str]] = []
    for n in names:
        if names.count(n) == 1:
            groups.append([])
        else:
            groups[-1].append(n)
    # a pattern chance cannot make: the same fields under three views or more, or two fields or more under each
    fields = all(g == groups[0] for g in groups) and (len(groups[0]) >= 2 or (groups[0] and len(once) >= 3))
    return once if fields else found


# the author in a title: "What I'd do", "Where we land" ("our" names a party as often: "Our customers")
_AUTHOR_IN_TITLE = re.compile(r"\b(?:i|i'd|i'm|i'll|my|we|we'd|we're|us|me)\b", re.IGNORECASE)


# a name and a tagline after it: "The membership: don't punish the honest", "Finance — where's the money?"
_HEAD = re.compile(r"^([^:—–\n]{2,40}?)[ \t]*(?::|[ \t][—–][ \t])[ \t]*\S")


def odd_voice(titles: list[str]) -> list[bool]:
    """Which titles speak in the author's voice or ask a question ("What I'd do", "So which way?")."""
    return [bool(_AUTHOR_IN_TITLE.search(title) or title.rstrip().endswith("?")) for title in titles]


def without_odd_closing(found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The starts less a last one whose title is the odd one out as the author's own voice or a question ("What I'd
    do", "So which way?") where no other title is: the synthesis under a name no list foresees."""
    if len(found) < 3:
        return found
    titles = [title for _, title, _ in found]
    heads = [_HEAD.match(title) for title in titles]
    if all(heads):  # "The secretariat: what can we actually enforce?" among "The board: protect the standard": the
        titles = [h.group(1) for h in heads]  # tagline speaks in its view's voice; the name before it is the title
    odd = odd_voice(titles)
    return found[:-1] if odd[-1] and not any(odd[:-1]) else found


def body_text(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start + 1:end])


def paragraph_at(lines: list[str], i: int, joined: str = " ") -> str:
    """The paragraph that opens at line i."""
    end = next((j for j in range(i, len(lines)) if not lines[j].strip()), len(lines))
    return joined.join(line.strip() for line in lines[i:end])


# --- cutting the reply at those starts ---------------------------------------------------------------------

def sections_from(lines: list[str], starts: list[tuple[int, str, str]]) -> list[Section]:
    sections = []
    compact = all(not any(not ln.strip() for ln in _trimmed(lines[i + 1:nxt[0]]))
                  for (i, _, _), nxt in zip(starts, starts[1:]))
    for n, (i, title, rest) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        body = [rest] if rest else []
        opens_synthesis = False
        for line in lines[i + 1:end]:
            if is_stop(line):
                opens_synthesis = not "".join(body).strip()
                break
            if compact and n + 1 == len(starts) and not line.strip() and "".join(body).strip():
                break  # every other view is one paragraph: what follows the last one's is not that view's
            body.append(line)
        text = "\n".join(body).strip()
        if opens_synthesis and n + 1 == len(starts) and len(starts) > 2:
            break  # a last title whose text opens as a synthesis does ("On balance, ...") is the synthesis's title
        if text or title:
            sections.append(Section(n + 1, title, text or title))
    return sections


# "LEGAL (rebuttal)", "Finance, continued", "The CFO — round 2": an earlier voice speaking again
_CONTINUES = re.compile(r"^(.+?)[ \t]*(?:\(|\[|,|[—–-])[ \t]*(?:rebuttal|reply|response|continued|cont(?:'|’)?d\.?|"
                        r"again|round (?:2|3|two|three)|second round|closing)[ \t]*[)\]]?$", re.IGNORECASE)


def with_continuations(sections: list[Section]) -> list[Section]:
    """The sections with each that marks an earlier voice speaking again (a debate's rebuttals) joined to that voice's:
    a perspective is a voice, not a turn."""
    out: list[Section] = []
    for section in sections:
        again = _CONTINUES.match(section.title)
        earlier = next((s for s in out if again and s.title.casefold() == again.group(1).strip().casefold()), None)
        if earlier is not None:
            earlier.text = f"{earlier.text}\n\n{section.text}"
        else:
            out.append(Section(len(out) + 1, section.title, section.text))
    return out


def _trimmed(block: list[str]) -> list[str]:
    """A block of lines without its leading and trailing blank lines."""
    while block and not block[-1].strip():
        block = block[:-1]
    while block and not block[0].strip():
        block = block[1:]
    return block
