"""Reading B3's perspectives out of a reply, whatever its layout (issues 30 and 41).

The seed's B3 prompt asks for "3-5 genuinely different perspectives" and no
layout, so models lay them out in many ways. The layouts read, tried in this
order (the first that yields two or more perspectives wins):

- labelled: `Perspective 1: ...`, `**Perspective A - Security**`, `### Viewpoint 2`, `Perspective One:`,
  `Perspective #1:`, `First Perspective — Open data:` (a number, a letter or a number word after "perspective",
  "viewpoint", "view" or "lens", or an ordinal before it); a label given again untitled (`- Perspective 1 says ...`
  in a recap) recalls its view;
- headings: markdown headings at the shallowest level that holds two or more views (`## Legal view` with
  `### What it sees` under it is one view, not two; `## Perspectives`, repeated or not, is the views' container);
- table: a markdown table whose first column is headed as the perspective (`| Perspective | ... |`), or whose
  columns are, under an empty or attribute corner, where its lead-in names views;
- numbered: a list at the left margin numbered from 1, lettered from A or in roman numerals from I
  (`1. **The Security View**`, `2) Economic:`, `(b) Legal`, `II. Ethics`, `(iii)`, `1/`); of several lists, the
  one its lead-in line names as views (a list led in as options, steps or risks, or one under each of several
  titles, is none);
- bold: paragraphs or bullets that open with a bold lead-in (`**Security view:** ...`, `- **Legal:** ...`), or, with
  none, paragraphs that open with an italic name (`*The privacy advocate* starts from ...`);
- prose: paragraphs that open with an ordinal or a perspective phrase (`First, ...`, `From a security
  standpoint, ...`, `Viewed through a legal lens, ...`, `Another perspective ...`, `Wearing my SRE hat, ...`,
  `Legally, ...`, `For product teams, ...`, `Application engineers see it ...`, a bid to take a view: `Now take the view
  from ...`, `Finally, think about it as ...`), and before a second (`A second view ...`, `Now take ...`) the paragraph
  that opens the series in other words (`One way to see this is as ...`, `Start with how an investor would see it`); a
  view opened by its place is named by whose it is (`The first perspective is that of *the users*`);
- parallel: three or more paragraphs whose lead-ins open alike and differ in a phrase (`For the lawyer, ...`);
- titled: lines at the margin that open with a short title (`Title: text`, `Title — text`, `- Legal` over a
  nested list, a title line alone over its paragraph, a Title Case line alone), tried after bold and before prose;
- quoted: paragraphs that quote a voice and name it after the quote (`"..."` then `— the CISO`), after titled;
- inline: one paragraph that names perspectives and enumerates them `(a) ... (b) ...`, `1. ... 2. ...` or
  `first, ...; second, ...`; voiced: one paragraph giving each view in a bold name's voice (`the **optimist** says`).

A loose layout (lead-ins rather than marks) whose count the prompt did not ask for gives way to the one other layout
that reads an asked-for count and holds every section it read. Parts beside the views (risks, options by their
label, caveats, notes, unknowns, and what is listed under such a title) are no views in any layout; nor is what
follows a heading that names the synthesis where no heading stands among the views.

A reply that is a JSON object, or holds one or a ```yaml block listing the perspectives, is read from it alone.
A voice that speaks again ("LEGAL (rebuttal)") is the same perspective as its first turn.

Before any of these, decoration that hides a layout is taken off (`text.normalised`: setext headings, blockquotes, emoji
and arrow bullets).

A perspective runs to the next one, or to the synthesis: a heading, bold lead-in or short line whose title is
a synthesis under any of the names models give it (`## Bringing it together`, `**Final verdict**`, `My
recommendation`), or a paragraph opening with synthesis, recommendation, conclusion, summary or overall. An
introduction (text before the first perspective, or a first heading such as `## Understanding the situation`)
belongs to none; so does a last title in the author's voice or a question where no other title is ("What I'd do",
"So which way?"), and a last (first) section whose words decide (frame the decision) under a title shaped unlike
the views' ("Glenda's path" after "The lawyer", "The editor"). A reply that yields fewer than two perspectives is
not split (`split_perspectives` returns []).

`read_perspectives` adds the checks that keep a wrong split out of the data (issue 41): a split whose count is
not the number the prompt asked for, whose titles repeat (sub-headings read as views), or whose first or last
section reads like the introduction or the synthesis, or that a loose layout reads where another layout reads
another asked-for count, is flagged with the reason; so is a split read from running text with a view it found no
name for (its count stood by: a place is no name). B3 then tries the copy-only
extraction where the model decodes by schema (b3.py) and otherwise flags the reply, never taking it as data.

This module chooses and flags; each layout family reads in its own module of this package: layouts (the order
they are tried in), headings (labelled, headings), tables, lists (numbered, outline, counted), leadins (bold,
titled), prose (prose, parallel, quoted), inline (inline, voiced), blocks (JSON, YAML); text makes the reply
readable, titles holds the words of titles (synthesis, introduction, asides), sections cuts sections, and split
is the copy-only extraction for a reply no layout reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.protocols.hindsight.architectures.lines import Section
from workbench.protocols.hindsight.architectures.perspectives.headings import labels_in_order, one_labelled
from workbench.protocols.hindsight.architectures.perspectives.layouts import (
    Split, other_counts, splits, split_perspectives,
)
from workbench.protocols.hindsight.architectures.perspectives.lists import numbered_runs, skips_a_number
from workbench.protocols.hindsight.architectures.perspectives.prose import FRAMES, PROSE, UNNAMED
from workbench.protocols.hindsight.architectures.perspectives.sections import odd_voice
from workbench.protocols.hindsight.architectures.perspectives.tables import TABLE_ROW
from workbench.protocols.hindsight.architectures.perspectives.text import answer_of, normalised
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    ABOUT_THE_SET, INLINE_INTRO, stated_counts, synthesis_line,
)


ASKED = (3, 5)  # the shipped B3 prompt (prompts.B3_PROMPT) asks for "3-5 genuinely different perspectives"


@dataclass
class Reading:
    """A split and whether it may be taken as data: `reason` says why it is flagged ("" when it is not).

    `unsure` says the reader does not stand by its count (no layout read, layouts that disagree, a title that
    repeats, a count other than the one the reply states). A flag without it is a sure count that the prompt did
    not ask for (two views, seven, none at all: an empty reply or a refusal): right as a reading, still no data."""

    split: Split
    reason: str
    unsure: bool = True

    @property
    def flagged(self) -> bool:
        return bool(self.reason)


def read_perspectives(text: str, asked: tuple[int, int] = ASKED) -> Reading:
    """The split of a B3 reply and, when it may not be taken as data, why: never a miscounted split unflagged.

    Doubts about the reading come first (unsure); a count the reader stands by but the prompt did not ask for is
    flagged as such (sure): either way it is no data."""
    text = answer_of(text)
    low, high = asked
    split = _chosen(text, split_perspectives(text), asked)
    sections = split.sections
    wanted = str(low) if low == high else f"{low}-{high}"
    if not sections:
        if _only_untitled_lists(text):
            return Reading(split, "no perspectives: numbered lists of risks, steps, questions or references, and the "
                                  "reply speaks of no perspectives or views", unsure=False)
        none = _no_perspectives(text)
        if none:
            return Reading(split, f"no perspectives: {none}", unsure=False)
        one = one_labelled(normalised(text))
        if one is not None and not stated_counts(text):
            return Reading(Split("labelled", [one]), f"1 perspective read where the prompt asked for {wanted}",
                           unsure=False)
        return Reading(split, "no layout the parser reads")
    if split.layout == "numbered" and not any(s.title for s in sections) and not _speaks_of_views(text):
        return Reading(Split("", []), "no perspectives: a numbered list of steps, questions or points, and the reply "
                                      "speaks of no perspectives or views", unsure=False)
    split, doubt = _without_framing(_without_deciding_tail(split))
    sections = split.sections
    doubt = doubt or _doubt(text, split, asked)
    if doubt:
        return Reading(split, doubt)
    if not low <= len(sections) <= high:
        return Reading(split, f"{len(sections)} perspectives read where the prompt asked for {wanted}", unsure=False)
    nameless = _nameless(split)
    if nameless:
        return Reading(split, nameless, unsure=False)
    return Reading(split, "", unsure=False)


# layouts that read a view's name from the words of its opening, not from a title the reply sets apart
_NAMED_IN_WORDS = ("prose", "parallel", "quoted", "inline", "voiced")


def _nameless(split: Split) -> str:
    """Why a split read from running text may not be taken as data although its count stands: a view whose opening
    gave no name the reader could take ("Third, the exposure exists ...") or only its place ("The first perspective
    I'd consider ..."). The count is read from the openings; a title is not a name, and a wrong name is no data."""
    if split.layout not in _NAMED_IN_WORDS:
        return ""
    unnamed = [n for n, s in enumerate(split.sections, start=1) if not s.title.strip() or UNNAMED.fullmatch(s.title)]
    if not unnamed:
        return ""
    which = ", ".join(str(n) for n in unnamed)
    return f"perspective {which} read from running text without a name (its opening gives only its place)"


# A section that recommends rather than views: its first words are a decision or an instruction
_DECIDES = re.compile(
    r"^(?:[\w'’-]+[ \t]+){0,3}?(?:i (?:would|'d|recommend|suggest|advise|propose|come down)|i'd|my (?:recommendation|advice|"
    r"call|suggestion)|we should|(?:she|he|they|the \w+) should|the (?:best|right|wisest|sensible) (?:course|option|"
    r"path|move|call|answer)|on balance|overall|all things considered|taken together|therefore|so,)\b|"
    r"^(?:refuse|resist|reject|comply|accept|decline|proceed|go ahead|delay|pause|slow|stop|keep|adopt|batch|stage|split|"
    r"publish|disclose|brief|tell|report|negotiate|hold|wait|take|do not|don't|move|migrate|roll|start|run|canary|"
    r"invest|choose|pick|combine|pursue|prepare|fix|close)\b", re.IGNORECASE)


def _without_deciding_tail(split: Split) -> Split:
    """The split less a last section whose title alone speaks in the author's voice or asks ("Glenda: what should we
    do?", kept as a view's tagline where every title has one) and whose text decides ("I would refuse ..."): the
    synthesis under a view's title shape. A view that asks in its own voice and argues ("The secretariat: what can we
    enforce?" over what the staff can verify) stays."""
    sections = split.sections
    if split.layout not in ("headings", "bold", "titled", "numbered") or len(sections) < 3:
        return split
    odd = odd_voice([s.title for s in sections])
    if odd[-1] and not any(odd[:-1]) and _DECIDES.match(sections[-1].text.strip()):
        return Split(split.layout, sections[:-1])
    return split


def _title_shape(title: str, counted: bool) -> tuple:
    words = title.split()
    shape = (bool(words) and words[0].casefold() in ("the", "a", "an", "my", "our"), bool(re.search(r"['’]s\b", title)),
             bool(re.search(r"\b(?:views?|perspectives?|lens|angle|standpoint|viewpoint)\b", title, re.IGNORECASE)))
    return shape + (min(len(words), 3),) if counted else shape


def _odd_title(sections: list[Section], k: int, counted: bool) -> bool:
    """Whether section k's title is the odd one out in shape (an article, a possessive, a view word; and, `counted`,
    its number of words) among titles that otherwise all share one."""
    others = {_title_shape(s.title, counted) for n, s in enumerate(sections) if n != k}
    return len(others) == 1 and bool(sections[k].title) and _title_shape(sections[k].title, counted) not in others


def _without_framing(split: Split) -> tuple[Split, str]:
    """The split less a last section that recommends (its first words a decision) under a title unlike the views'
    ("Glenda's path" after "The lawyer", "The accountant", "The editor"), and a first that frames the decision
    ("This is a hard one ...") under a title unlike theirs: the synthesis and the introduction by position, wording
    and title together. Where the titles differ only in length, the doubt is said (flagged), the section kept."""
    sections = split.sections
    if split.layout not in ("headings", "bold", "titled", "numbered") or len(sections) < 4:
        return split, ""
    doubt = ""
    ends = ((len(sections) - 1, _DECIDES.match(sections[-1].text.strip()), "the synthesis"),
            (0, FRAMES.search(sections[0].text), "the introduction"))
    for k, sign, what in ends:
        if not sign or len(sections) < 4:
            continue
        if _odd_title(sections, k, counted=False):
            sections = sections[:-1] if k else sections[1:]
        elif _odd_title(sections, k, counted=True):
            doubt = doubt or f"the {'last' if k else 'first'} section ('{sections[k].title}') may be {what}"
    return (split if sections is split.sections else Split(split.layout, sections)), doubt


def _chosen(text: str, split: Split, asked: tuple[int, int]) -> Split:
    """The first layout's split, or, where that is a loose layout reading a count the prompt did not ask for, the one
    other layout that reads an asked-for count and holds every section the first read (titled lines that missed a
    long title, where the paragraphs' parallel openings read them all)."""
    low, high = asked
    if split.layout not in _LOOSE or low <= len(split.sections) <= high:
        return split
    better = [s for s in splits(text) if s.layout != split.layout and low <= len(s.sections) <= high
              and all(any(_holds(o, mine) for o in s.sections) for mine in split.sections)]
    return better[0] if len({len(s.sections) for s in better}) == 1 else split


def _holds(section: Section, other: Section) -> bool:
    """Whether a section holds another's title (or, untitled, its first words)."""
    mark = (other.title or other.text[:40]).casefold()
    return mark in (section.title + " " + section.text).casefold()


_ONE_MORE = re.compile(r"\b(?:bonus|additional|extra|another|one more|a further|a (?:fourth|fifth|sixth))[ \t]+"
                       r"(?:[\w-]+[ \t]+)?(?:perspective|viewpoint|view|lens|angle)\b", re.IGNORECASE)
_SWOT = {"strengths", "weaknesses", "opportunities", "threats"}


def _doubt(text: str, split: Split, asked: tuple[int, int]) -> str:
    """Why the split's count may be wrong ("" when nothing says so)."""
    sections = split.sections
    more = _ONE_MORE.search(text)
    if more and not any(more.group(0).casefold() in (s.title + " " + s.text).casefold() for s in sections):
        return f"the reply adds a perspective ('{more.group(0)}') outside the sections read"
    if len(sections) >= 3 and {re.sub(r"\W+", " ", s.title).strip().casefold() for s in sections} <= _SWOT:
        return "the sections are a SWOT analysis's quadrants: views, or an analysis instead of them?"
    if len(sections) >= 3 and sections[-1].text == sections[-1].title and all(s.text != s.title for s in sections[:-1]):
        return f"the last section ('{sections[-1].title}') has a title and no text: the reply may be cut off"
    stated = stated_counts(text)
    if stated and len(sections) not in stated:
        said = " or ".join(str(n) for n in sorted(stated))
        return f"{len(sections)} perspectives read where the reply says it gives {said}"
    if split.layout == "numbered" and not any(s.title for s in sections):
        return "a numbered list with no titles: steps or questions rather than perspectives?"
    if split.layout == "numbered" and skips_a_number(normalised(text)):
        return "the list of perspectives skips a number: a view written without its number may be missed"
    titles = [t.casefold() for t in (s.title for s in sections) if t]
    if len(set(titles)) < len(titles):
        return "two perspectives share a title (sub-headings read as perspectives?)"
    if split.layout in ("headings", "bold", "table") and ABOUT_THE_SET.search(sections[-1].text):
        return f"the last section ('{sections[-1].title}') reads like the synthesis"
    # the reply's own labels in order (`Perspective 1` ... `Perspective 4`) say each section is a view, whatever
    # words of the others it uses: a synthesis under a label is read by its title
    own = own_count(split, text)
    if len(sections) >= 3 and not own and _names_the_others(sections[-1], sections[:-1]):
        return f"the last section ('{sections[-1].title}') names the others, as a synthesis does"
    if len(sections) >= 3 and not own and _names_the_others(sections[0], sections[1:]):
        return f"the first section ('{sections[0].title}') names the others, as an introduction does"
    if split.layout in ("headings", "bold", "table") and ABOUT_THE_SET.search(sections[0].text):
        return f"the first section ('{sections[0].title}') reads like an introduction"
    low, high = asked
    if not low <= len(sections) <= high and split.layout == "prose" \
            and not _every_paragraph_opens_a_view(text, split):
        return (f"{len(sections)} perspectives read from paragraph openings, where the prompt asked for "
                f"{low}-{high}: the paragraphs between them may hold others")
    if not low <= len(sections) <= high and not own:
        # a count the prompt did not ask for is sure only where no other layout of the reply reads one it did (or the
        # reply labels or numbers its titled views 1, 2, ... 6 itself: another layout's five then missed one)
        other = {c for c in other_counts(text, split.layout) if low <= c <= high}
        if other:
            return (f"{len(sections)} perspectives read as {split.layout}, but the reply's "
                    f"{'/'.join(str(c) for c in sorted(other))} other parts read otherwise")
    elif split.layout in _LOOSE:
        # a loose layout's count stands only where no other layout reads another count the prompt asked for
        other = {c for c in other_counts(text, split.layout) if low <= c <= high and c != len(sections)}
        if other:
            return (f"{len(sections)} perspectives read as {split.layout}, but another layout of the reply reads "
                    f"{'/'.join(str(c) for c in sorted(other))}")
    return ""


def _every_paragraph_opens_a_view(text: str, split: Split) -> bool:
    """Whether each paragraph before the synthesis opens one of the views read (two sides, "On one hand ..." and "On
    the other hand ...", then "My recommendation ..."): no paragraph is left that could hold a view the openings
    missed, so a count the prompt did not ask for is sure."""
    lines = normalised(text)
    openings = [lines[i].strip() for i in range(len(lines)) if lines[i].strip() and not (i and lines[i - 1].strip())]
    before = []
    for line in openings:
        if synthesis_line(line):
            break
        before.append(line)
    return len(before) == len(split.sections) and all(s.text.startswith(line)
                                                      for s, line in zip(split.sections, before))


def own_count(split: Split, text: str) -> bool:
    """Whether the reply counts the views itself: labels in order (`Perspective 1`, `2`, ... or `A`, `B`, ...), or a
    numbered list whose every item is titled."""
    if split.layout == "labelled":
        return labels_in_order(normalised(text))
    return split.layout == "numbered" and all(s.title for s in split.sections)


# layouts read from lead-ins rather than from marks that number or head the views
_LOOSE = ("bold", "titled", "quoted", "prose", "parallel", "counted", "inline", "voiced")


_GENERIC = {"perspective", "perspectives", "view", "views", "viewpoint", "lens", "angle", "stance", "the", "from",
            "side", "voice", "case", "with", "about", "their", "what", "that", "this", "team", "head", "lead"}


def _names_the_others(section: Section, others: list[Section]) -> bool:
    """Whether a section's text names two or more of the other sections by a distinctive word of their titles ("The
    legal and financial views both ..."), as a synthesis or an introduction does and one view rarely does."""
    def words(title: str) -> set[str]:
        return {w for w in re.findall(r"[a-z]{4,}", title.casefold()) if w not in _GENERIC}

    def said(word: str, text: str) -> bool:
        return bool(re.search(r"\b" + re.escape(word[:max(4, len(word) - 3)]), text.casefold()))

    mine = words(section.title)
    # a title's word names that view only where the remaining views do not use it too: words every view shares
    # (one lens repeated by anchoring) are common ground, not a synthesis looking back
    return sum(1 for other in others
               if any(said(w, section.text) and not any(said(w, o.text) for o in others if o is not other)
                      for w in words(other.title) - mine)) >= 2


# A reply that gives no perspectives for sure: nothing but markup, or a short refusal.
_REFUSAL = re.compile(r"^\W*(?:i'?m sorry|sorry\b|i apologi[sz]e|unfortunately,? i|as an ai\b|i (?:am |'m )?(?:cannot|can'?t|"
                      r"am unable to|'m unable to|(?:am |'m )?not able to|won'?t|will not|must decline|decline)\b)",
                      re.IGNORECASE)


def _no_perspectives(text: str) -> str:
    """Why a reply no layout splits gives no perspectives for sure ("" when it may give some in a way not read)."""
    words = re.findall(r"[^\W_]+", re.sub(r"<[^>\n]*>", " ", text))
    if not words:
        return "an empty reply"
    if _speaks_of_views(text):
        return ""
    if _REFUSAL.match(text.strip()):
        return "a refusal"
    sentences = [s for s in re.split(r"(?<=[.!?:])[ \t]+|\n+", re.sub(r"<[^>\n]*>", " ", text)) if s.strip(" \t*_")]
    if len(sentences) == 1 and len(words) <= 25:
        return "a one-sentence reply that speaks of no perspectives or views"
    if sentences and _INSTRUCTION.match(sentences[-1]):
        return "the reply ends by restating the prompt's instruction, and speaks of no perspectives of its own"
    return ""  # prose without a layout may hold views nothing marks: doubted, not counted


# An instruction echoed from the prompt ("Give 3-5 genuinely different perspectives ...") is not the reply's own talk
_INSTRUCTION = re.compile(r"^[ \t>*_#-]*(?:please[ \t]+)?(?:give|provide|list|offer|present|consider|synthesi[sz]e|write|"
                          r"identify|describe|analy[sz]e|outline)\b", re.IGNORECASE)


def _speaks_of_views(text: str) -> bool:
    """Whether the reply, outside an instruction it echoes, names perspectives, views or angles, or gives a view in
    someone's voice ("The CFO would say", "From a legal standpoint")."""
    own = [s for s in re.split(r"(?<=[.!?:])[ \t]+|\n+", text) if s.strip() and not _INSTRUCTION.match(s)]
    return any(INLINE_INTRO.search(s) or PROSE.match(s.strip(" \t*_#>-")) or _VOICE.search(s) for s in own) \
        or any(TABLE_ROW.match(line) for line in text.splitlines())  # a table's rows or columns may be the views


# a view in someone's voice: a quotation's attribution ("— the treasurer"), "looking at this as a lawyer"
_VOICE = re.compile(r"[\"”'][ \t]*[—–-][ \t]*(?:the|an?)[ \t]+[\w' -]{2,40}$|\b(?:how|what)[ \t]+(?:would|might|does|do|"
                    r"will)[ \t]+(?:an?|the)[ \t]+[\w' -]{1,30}?[ \t]+(?:see|say|think|view|read|make of)\b|"
                    r"\b(?:looking at|seen|viewed|read)[ \t]+"
                    r"(?:(?:this|it)[ \t]+)?as[ \t]+(?:an?|the)[ \t]+\w+", re.IGNORECASE)


def parse_asked(value) -> tuple[int, int]:
    """`--asked 3` or `--asked 3-5` (or a (low, high) pair) as (low, high); ValueError names a bad value."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        low, high = int(value[0]), int(value[1])
    else:
        m = re.fullmatch(r"\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*", str(value))
        if not m:
            raise ValueError(f"--asked must be a number or a range like 3-5, not {value!r}")
        low = int(m.group(1))
        high = int(m.group(2) or low)
    if not 1 <= low <= high:
        raise ValueError(f"--asked {value!r}: the range must run upwards from 1")
    return low, high


def _only_untitled_lists(text: str) -> bool:
    """Whether the reply's numbered lists, those led as asides among them, hold no titled item, and the reply speaks
    of no perspectives or views: a list of risks, questions or references, no views."""
    runs = numbered_runs(normalised(text))
    return bool(runs) and not any(title for run in runs for _, title, _ in run) and not _speaks_of_views(text)
