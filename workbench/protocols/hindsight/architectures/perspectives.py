"""Reading B3's perspectives out of a reply, whatever its layout (issues 30 and 41).

The seed's B3 prompt asks for "3-5 genuinely different perspectives" and no
layout, so models lay them out in many ways. The layouts read, tried in this
order (the first that yields two or more perspectives wins):

- labelled: `Perspective 1: ...`, `**Perspective A - Security**`, `### Viewpoint 2`, `Perspective One:`,
  `Perspective #1:` (a number, a letter or a number word after "perspective", "viewpoint", "view" or "lens");
- headings: markdown headings at the shallowest level that holds two or more views (`## Legal view` with
  `### What it sees` under it is one view, not two; `## Perspectives`, repeated or not, is the views' container);
- table: a markdown table whose first column is headed as the perspective (`| Perspective | ... |`), or whose
  columns are, under an empty or attribute corner, where its lead-in names views;
- numbered: a list at the left margin numbered from 1, lettered from A or in roman numerals from I
  (`1. **The Security View**`, `2) Economic:`, `(b) Legal`, `II. Ethics`, `(iii)`, `1/`); of several lists, the
  one its lead-in line names as views (a list led in as options, steps or risks, or one under each of several
  titles, is none);
- bold: paragraphs or bullets that open with a bold lead-in (`**Security view:** ...`, `- **Legal:** ...`);
- prose: paragraphs that open with an ordinal or a perspective phrase (`First, ...`, `From a security
  standpoint, ...`, `Viewed through a legal lens, ...`, `Another perspective ...`, `Wearing my SRE hat, ...`,
  `Legally, ...`), and before a second (`A second view ...`) the paragraph that opens the series in other words
  (`One way to see this is as ...`, `Start with ...`);
- parallel: three or more paragraphs whose lead-ins open alike and differ in a phrase (`For the lawyer, ...`);
- titled: lines at the margin that open with a short title (`Title: text`, `Title — text`, `- Legal` over a
  nested list, a title line alone over its paragraph, a Title Case line alone), tried after bold and before prose;
- quoted: paragraphs that quote a voice and name it after the quote (`"..."` then `— the CISO`), after titled;
- inline: one paragraph that names perspectives and enumerates them `(a) ... (b) ...`, `1. ... 2. ...` or
  `first, ...; second, ...`; voiced: one paragraph giving each view in a bold name's voice (`the **optimist** says`).

A loose layout (lead-ins rather than marks) whose count the prompt did not ask for gives way to the one other layout
that reads an asked-for count and holds every section it read. Parts beside the views (risks, options by their
label, caveats, notes, unknowns) are no views in any layout.

A reply that is a JSON object, or holds one or a ```yaml block listing the perspectives, is read from it alone.
A voice that speaks again ("LEGAL (rebuttal)") is the same perspective as its first turn.

Before any of these, decoration that hides a layout is taken off (`_normalised`: setext headings, blockquotes, emoji
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
another asked-for count, is flagged with the reason. B3 then tries the copy-only
extraction where the model decodes by schema (b3.py) and otherwise flags the reply, never taking it as data.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from workbench.protocols.hindsight.architectures.lines import Section

LAYOUTS = ("labelled", "headings", "table", "numbered", "bold", "titled", "quoted", "prose", "parallel", "inline",
           "voiced")
ASKED = (3, 5)  # the shipped B3 prompt (prompts.B3_PROMPT) asks for "3-5 genuinely different perspectives"

_STOP_WORDS = (r"(?:synthesi[sz]\w*|recommend\w*|conclusion|in conclusion|in summary|summary|overall|final recommendation|"
               # the words that gather the views: "All things considered", "Taking all the hats off", "Put together"
               r"all things considered|taking (?:all|everything|it all|these|them|the (?:\w+ )?(?:views|perspectives|"
               r"lenses|hats))|put(?:ting)? (?:it |this |everything |them )?(?:all )?together|pulling (?:it|this|"
               r"everything) (?:all )?together|on balance|weighing (?:it all|these|them|everything))")
_STOP = re.compile(r"^[>#*_]*[ \t]*(?:\d+[.)][ \t]*)?[*_]*(?:(?:my|our|the|a|final)[ \t]+)?" + _STOP_WORDS + r"\b",
                   re.IGNORECASE)
# A title (heading, bold lead-in, short line) that names the synthesis, under the many names models give it.
_SYNTH_TITLE = re.compile(
    # a role's possessive leads only the plainest names ("Moderator's synthesis"): "The CFO's take" is a view
    r"^(?:the )?[\w-]+['’]s (?:final |overall )?(?:synthesi[sz]\w*|verdict|conclu\w*|summary|bottom line)|"
    # a title about the views as a set: "Where they disagree", "How the three fit together", "Comparing them"
    r"^(?:where|how|what|why)\b.*\b(?:they|them|these|those|both|all three|the (?:three|four|five|views|perspectives|"
    r"lenses)|each (?:view|perspective|lens))\b|^(?:comparing|contrasting|across|between)\b|"
    r"^(?:(?:so|then|and|now|ok|okay|well)\b,? )?(?:the |my |a |our |final |overall |proposed |suggested |recommended )*"
    r"(?:synthesi[sz]\w*|recommend\w*|conclu\w*|summary|summari[sz]\w*|overall|verdict|bottom line|"
    r"bringing\b|putting\b|pulling\b|tying\b|weighing\b|balancing\b|on balance|taken together|integrat\w*|"
    r"reconcil\w*|(?:the )?(?:way|path) forward|course of action|decision\b(?!-)|advice|take\b|answer\b|"
    r"thoughts\b|word\b|call\b|takeaways?|next steps|action plan|plan of action|what (?:i|we|glenda\S*|the \w+) "
    r"(?:would|should) do|here'?s what|tl;?dr|net[- ]net|upshot|in short|all things considered|to sum up|"
    r"summing up|wrap\w*|closing\b|landing\b|consensus|common ground|where (?:they|it all|this) (?:agree|lands?|leaves)|"
    r"(?:so,? )?what (?:now|next)\b|what (?:would|should|must|could|can) [\w'’ -]{1,30}? do\b|(?:so,? )?where (?:does|do) (?:that|this|it) leave|"
    r"(?:my|our) (?:two cents|view|take|position|advice|call|pick|vote|proposal|suggestion|stance)\b|"
    r"where (?:i|we) (?:land|stand|come down|end up)\b|(?:net|final) (?:assessment|judg(?:e)?ment)|judg(?:e)?ment call|"
    r"what to do\b|where (?:i|we|this) come[s]? out|(?:balanced|final|integrated|combined|holistic|unified) "
    r"(?:view|perspective|take|picture|assessment)\b|resolution\b|net$|(?:the )?plan$|(?:moving|going) forward\b|"
    # the answer up front or at the end: "Quick take", "Short answer", "Action", "How to respond"
    r"quick take|short answer|(?:the )?short version|in brief\b|bluf\b|at a glance|actions?$|response$|"
    r"how to (?:respond|proceed|move forward|handle (?:it|this)|play (?:it|this))\b)|"
    # "Proposed approach", "Suggested plan": a plan the author proposes (a view may be called "Strategy" alone)
    r"^(?:the |my |our )?(?:proposed|suggested|preferred|chosen) (?:approach|plan|path|response|course|strategy|"
    r"option)\b", re.IGNORECASE)
# "Blue hat (synthesis)", "Blue Hat (Process & Recommendation)": the synthesis named last in brackets
_SYNTH_ANYWHERE = re.compile(r"\((?:[^()\n]{0,40}?(?:&|\band\b|\+|/|,)[ \t]*)?(?:synthesi[sz]\w*|recommend\w*|conclusion|"
                             r"summary|verdict|overall)\)", re.IGNORECASE)
_INTRO_TITLE = re.compile(
    r"^(?:an? |the |my |some |quick |brief )?(?:introduction|intro|context|background|overview|preamble|framing|setting the scene|"
    r"understanding\b|situation|the situation|what'?s at stake|stakes|(?:key|core|central) (?:question|issue)|"
    r"the (?:decision|dilemma|problem|question|issue|"
    r"case|threat)|(?:decision|problem|situation|case) (?:summary|overview|analysis)|executive summary|"
    r"key facts|facts|(?:key |main |important |core )?considerations\b)", re.IGNORECASE)
# A part of the reply about the reply, wherever it stands: no view
_META_TITLE = re.compile(r"(?:an? |the |one |some |my |important |key |main |working |underlying )?(?:note|nb|caveats?|disclaimers?|assumptions?|"
                         r"limitations?|important|a word of caution|warning|open questions?|references|sources|appendix|"
                         r"p\.?s\.?)", re.IGNORECASE)
# In the first or last section's words: it speaks of the perspectives as a set, as an introduction or a
# synthesis does and a single perspective rarely does.
_ABOUT_THE_SET = re.compile(
    r"\b(?:(?:these|the|all|several|three|four|five|different|following|other) (?:\w+ )?(?:perspectives|viewpoints|"
    r"lenses|views|angles)|(?:all|each of the|both) (?:three|four|five)\b|taken together|on balance|weighing (?:these|"
    r"them|it all|everything)|synthesi[sz]|in sum\b|let'?s (?:look|examine|consider))", re.IGNORECASE)

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# "three perspectives", "four different angles": the number of perspectives a reply says it gives
_STATED = re.compile(r"\b(two|three|four|five|six|[2-6])[ \t]+(?:[\w'-]+[ \t]+){0,2}?(?:perspectives|viewpoints|views|"
                     r"angles|lenses|sides|directions|ways of (?:looking|seeing))\b", re.IGNORECASE)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}
_LABELLED = re.compile(r"^[ \t>#*_\-+]*(?:perspective|viewpoint|view|lens|angle|stance)[ \t]+#?(\d+|[A-Ha-e]|one|two|three|four|"
                       r"five|six)\b(?:[ \t]+(?:of|/)[ \t]+\d)?[ \t*_]*[:.\-–—)]?[ \t*_]*(.*)$", re.IGNORECASE)
# "Perspective (Legal): ..."
_LABELLED_NAMED = re.compile(r"^[ \t>#*_\-+]*(?:perspective|viewpoint|view|lens|angle|stance)[ \t]*\(([^)\n]{1,40})\)"
                             r"[ \t*_]*[:.\-–—]?[ \t*_]*(.*)$", re.IGNORECASE)
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.*?)[ \t#]*$")
_NUMBERED = re.compile(r"^(?:\(?(\d{1,2})(?:[.)]|/(?=[ \t]))|\(?([A-Ea-e])[.)]|\(?(I{1,3}|IV|VI?|i{1,3}|iv|vi?)[.)]|\((\d{1,2}|[a-e])\))"
                       r"[ \t]+(.+)$")
_BOLD = re.compile(r"^[ \t]*(?:[-*+•][ \t]+)?(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*[:.\-–—]?[ \t]*(.*)$")
_BULLET = re.compile(r"^[-*+•][ \t]+")
_ARROWS = "→⇒➜➔➤▶►▸‣◦▪•"
# `Title: text` or `Title — text` at a line's start (after a bullet): the titled layout's lead-in
_TITLED = re.compile(r"^(?:[-*+•][ \t]+)?([A-Z][^:.!?;,—–\n]{0,50}?)[ \t]*(?::|[ \t][—–][ \t]|[ \t]-[ \t])[ \t]*(\S.*)$")
# a list of options, steps or phases is not a list of perspectives
_NOT_A_VIEW = re.compile(r"(?:option|choice|alternative|course of action|step|phase|week|stage|scenario|pros?|cons?|"
                         r"risks?|benefits?|costs?|note|question|answer|q|a)(?:[ \t]+(?:\d{1,2}|[A-E]|one|two|three|four|"
                         r"five))?", re.IGNORECASE)  # a title that is only such a word (and its number) names no view
_CLOSING_BOLD = re.compile(r"^([^*_\n]{1,60}?)[ \t]*(?:\*\*|__)[ \t]*[:.\-–—]?[ \t]*(.*)$")
_OWN_VOICE = re.compile(r"\b(?:i|i'd|i'm|i'll|my|we|we'd|we're|our|us|me)\b", re.IGNORECASE)
# "Precedent. If Crock wins ...": a first sentence of at most four words, then the text
_SHORT_LEAD = re.compile(r"^((?:[\w'’-]+[ \t]+){0,3}[\w'’-]+)\.[ \t]+(\S.*)$")
# "As a result, ...", "As a first step, ...", "As the situation stands, ...": stock phrases, no role taken
_NO_ROLE = (r"(?!(?:result|first step|rule|whole|consequence|matter of fact|reminder|starting point|aside|"
            r"(?:situation|case|matter|question|dilemma|problem) (?:stands|is)|(?:last|final) (?:step|resort|point))\b)")
_ANAPHORA = r"(?!(?:this|that|these|those|each|every|all|both|my|our|either|such) )"
# an adverb that names a lens ("Legally,", "Reputationally,"), not one that orders or hedges ("Finally,", "Ideally,")
_LENS_ADVERB = (r"(?!(?:final|addition|ultimate|general|personal|realistic|practical|basic|actual|ideal|natural|"
                r"specific|typical|fundamental|critical|real|usual|equal|initial|especial|essential|potential|"
                r"incidental|occasional|logical|theoretical|frank|hopeful|traditional|conditional|additional|"
                r"eventual|optional|original)ly\b)[A-Z][a-z]{2,}(?:al|ic)ly")
_PROSE = re.compile(
    r"^[ \t]*(?:(first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?|fifth(?:ly)?|sixth|finally|lastly)\b[,:]?|"
    r"((?:(?:viewed|seen|looked at|considered|read) )?(?:from|through) " + _ANAPHORA +
    r"[^,.:;]{1,60}?(?:perspective|standpoint|point of view|viewpoint|view|lens|angle|eyes|chair|seat|side|vantage "
    r"point|position|desk|shoes)\b(?:[ \t]+of[ \t]+[^,.:;*_\n]{1,40})?)|"
    # "Wearing my SRE hat, ...", "Legally, ...": a hat or a lens's adverb names the view
    r"(wearing (?:my|the|a|an|our|their) [^,.:;]{1,40}? hat)\b|(" + _LENS_ADVERB + r")(?=,)|"
    r"((?:one|another|a (?:second|third|fourth|fifth|final|further)|the (?:first|second|third|fourth|fifth|"
    r"final|last)) (?:perspective|view|viewpoint|lens|angle)\b|"
    # "A third way to see it is as ...": a way of seeing, counted from the second (the first: _SERIES_FIRST)
    r"(?:another|a (?:second|third|fourth|fifth|final|further)|the (?:second|third|fourth|fifth|final|last)) way "
    r"(?:to|of) (?:see|seeing|look at|looking at|read|reading|frame|framing|think about|thinking about) "
    r"(?:it|this|things|the \w+)\b)|"
    r"(as (?:the|a|an|our|your) " + _ANAPHORA + _NO_ROLE + r"[^,.:;]{1,40}?)(?=,)|"
    r"(on the (?:one|other) hand|from where (?:the |a |an )?[^,.:;]{1,40}? (?:sits?|stands?))\b|"
    # "The CFO would probably say ...", "An outside ethicist would go further": a view in someone's voice
    r"((?:the|an?) (?:[\w'’-]+ ){0,4}?[\w'’-]+)(?= (?:would|might|will|could) (?:(?:probably|likely|certainly|also|"
    r"instead|surely|then) )?(?:say|see|argue|point|ask|insist|stress|worry|focus|want|go|view|frame|reply|counter|"
    r"object|add|note|respond|read|call|look|care|warn|urge)\b))",
    re.IGNORECASE)
_ORDINAL_LEAD = re.compile(r"^[ \t]*(?:\(?\d{1,2}[.)]|\(?[A-Ea-e][.)]|\(?(?:I{1,3}|IV|VI?)[.)]|\d{1,2}[ \t]*[—–:][ \t]*|"
                           r"\d{1,2}[ \t]+-[ \t]+)[ \t]*")
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t:|\-]+\|?[ \t]*$")
_TABLE_HEAD = re.compile(r"^(?:perspective|viewpoint|view|lens|angle|stakeholder|standpoint|vantage|role|who|party|"
                         r"parties|actor|persona|voice|seat|discipline|function|team|department|expert|advisor|hat)s?\b",
                         re.IGNORECASE)
# (a) / (1) / (ii) within a paragraph, "1." after a sentence's end, or an ordinal ("second, the financial one")
_INLINE_MARK = re.compile(r"\(([a-e]|[1-5]|i{1,3}|iv|v)\)\s+|(?:^|(?<=[.;:!?])\s+|(?<=[.;:!?][*_])\s+)([1-5])[.)]\s+|"
                          r"\b(first|second|third|fourth|fifth)(?:ly)?,\s+", re.IGNORECASE)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_INLINE_INTRO = re.compile(r"perspective|viewpoint|\bviews?\b|\blens|\bangles?\b|standpoint|\breadings\b|\bframings\b|"
                           r"\bways (?:to|of) (?:see|seeing|look|looking|read|reading|frame|framing|view|viewing)\b",
                           re.IGNORECASE)


@dataclass
class Split:
    layout: str                 # one of LAYOUTS, or "" when the reply was not split
    sections: list[Section]


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


def split_perspectives(text: str) -> Split:
    """The perspectives of a B3 reply and the layout they were read from; no sections when fewer than two."""
    return next(_splits(_answer_of(text)), Split("", []))


_TRACE = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|$)|\[/?INST\]|<\|[\w-]+\|>|</?s>", re.IGNORECASE | re.DOTALL)


# the prompt's instruction echoed on a line of its own ("**Give 3-5 genuinely different perspectives on this decision,
# then synthesize a recommendation.**"), as small models do: the model's copy of the call, no title of a view
_ECHOED_CALL = re.compile(r"^[ \t>*_#-]*(?:please[ \t]+)?(?:give|provide|list|offer|present)\b[^\n]*\bperspectives\b"
                          r"[^\n]*\b(?:synthesi[sz]e|recommendation)\b[^\n]*$\n?", re.IGNORECASE | re.MULTILINE)


def _answer_of(text: str) -> str:
    """The reply without a reasoning trace (`<think>…</think>`), the chat template's tokens a small model echoes
    (`[/INST]`, `<|im_end|>`) and the prompt's instruction echoed on a line of its own: none is the answer."""
    return _ECHOED_CALL.sub("", _TRACE.sub("", text or ""))


def _splits(text: str):
    """Every layout's split of the reply with two or more perspectives, in the order the layouts are tried."""
    listed = _json_sections(text or "")
    if listed is not None:
        layout, sections = listed
        if len(sections) >= 2:
            yield Split(layout, sections)
        return  # a JSON or YAML reply has no other layout: its lines are code
    lines = _normalised(text or "")
    for layout, starts in (("labelled", _labelled_starts), ("headings", _heading_starts),
                           ("table", _table_starts), ("numbered", _numbered_starts), ("outline", _outline_starts),
                           ("bold", _bold_starts), ("titled", _titled_starts), ("quoted", _quoted_starts),
                           ("prose", _prose_starts),
                           ("parallel", _parallel_starts)):
        found = [f for f in starts(lines) if layout == "labelled" or not _aside(f[1])]
        found = _without_odd_closing(_without_fields(found) if layout in ("bold", "titled") else found)
        if len(found) >= 2:
            sections = _table_sections(lines, found) if layout == "table" else _sections(lines, found)
            sections = _with_continuations(sections)
            if len(sections) >= 2:
                yield Split(layout, sections)
    counted = _counted_sections(lines, _stated(text or ""))
    if len(counted) >= 2:
        yield Split("counted", counted)
    inline = _inline_sections("\n".join(lines))
    if len(inline) >= 2:
        yield Split("inline", inline)
    voiced = _voiced_sections("\n".join(lines))
    if len(voiced) >= 2:
        yield Split("voiced", voiced)


# A part of the reply beside the views: risks, options, steps, caveats, notes, unknowns ("Risks to watch", "A note on
# uncertainty", "Limitations of this analysis", "Options on the table"), unless its title names a view
_ASIDE = re.compile(r"(?:(?:an?|the|some|key|main|my|our|important|open|next|remaining)[ \t]+)?(?:risks|pros|cons|options|"
                    r"steps|costs and benefits|trade-?offs|caveats|limitations|assumptions|uncertaint(?:y|ies)|notes|"
                    r"note on|questions|references|sources|appendix|disclaimers?|implementation|timeline|action items|"
                    r"unknowns|what (?:i|we) (?:don'?t|do not) know|counter-?(?:arguments?|points?)|objections|"
                    r"blind spots|pitfalls|what could go wrong)\b", re.IGNORECASE)
_NAMES_A_VIEW = re.compile(r"\b(?:views?|perspectives?|lens|angle|standpoint|viewpoint|officer|team|manager|lead|"
                           r"analyst|advocate|engineer|management)\b", re.IGNORECASE)


# an option, a scenario or a step by its label ("Option A: Comply", "Scenario 2 — ..."): a choice, not a view
_OPTION = re.compile(r"(?:option|choice|alternative|scenario|step|phase|stage|path|course of action)[ \t]*#?"
                     r"(?:\d{1,2}|[A-E]|one|two|three|four|five)\b", re.IGNORECASE)


def _aside(title: str) -> bool:
    return bool(title) and (bool(_ASIDE.match(title)) or bool(_OPTION.match(title))) and not _NAMES_A_VIEW.search(title)


def _other_counts(text: str, layout: str) -> list[int]:
    return [len(s.sections) for s in _splits(text) if s.layout != layout]


_FENCED = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)
_LIST_KEYS = ("perspectives", "viewpoints", "views", "lenses", "angles", "stakeholders", "voices")
_NAME_KEYS = ("name", "title", "perspective", "viewpoint", "view", "lens", "label", "role", "stakeholder")


def _json_sections(text: str) -> tuple[str, list[Section]] | None:
    """A reply whose perspectives are a JSON object (the whole reply, or a fenced block in it) or a ```yaml block:
    listed under a key such as "perspectives" (a section per item, titled by its name), or given as name → text (a
    section per name but the synthesis's). (layout, sections), or None when the reply holds no such object."""
    import json

    layout, data = "yaml", _yaml_fenced(text)
    if data is None:
        layout = "json"
        fenced = _FENCED.search(text)
        body = fenced.group(1).strip() if fenced else text.strip()
        if not body.startswith("{"):
            return None
        try:
            data = json.loads(body)
        except ValueError:
            return None
    if not isinstance(data, dict):
        return None
    items = next((data[k] for k in data if str(k).casefold() in _LIST_KEYS), None)
    if items is None and len(data) >= 2 and all(isinstance(v, (str, dict)) for v in data.values()):
        items = [{"name": k, "text": v if isinstance(v, str) else json.dumps(v)} for k, v in data.items()
                 if not (_synth_title(k) or _STOP.match(k))]
    if not isinstance(items, list):
        return None
    sections = []
    for n, item in enumerate(items, start=1):
        if isinstance(item, dict):
            title = next((str(v) for k, v in item.items() if str(k).casefold() in _NAME_KEYS and isinstance(v, str)),
                         "")
            rest = " ".join(str(v) for k, v in item.items() if str(k).casefold() not in _NAME_KEYS)
            sections.append(Section(n, title.strip(), rest.strip() or title.strip()))
        else:
            sections.append(Section(n, "", str(item)))
    return layout, sections


_YAML_FENCED = re.compile(r"```ya?ml[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)


def _yaml_fenced(text: str):
    """The mapping of a ```yaml block that lists the perspectives (a small model's way), or None. Only a fence named
    YAML is read as YAML: plain `Title: text` lines would parse as a mapping too."""
    fenced = _YAML_FENCED.search(text)
    if not fenced:
        return None
    import yaml

    try:
        data = yaml.safe_load(fenced.group(1))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) and any(str(k).casefold() in _LIST_KEYS for k in data) else None


def _without_fields(found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
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


def _without_odd_closing(found: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The starts less a last one whose title is the odd one out as the author's own voice or a question ("What I'd
    do", "So which way?") where no other title is: the synthesis under a name no list foresees."""
    if len(found) < 3:
        return found
    odd = [bool(_OWN_VOICE.search(title) or title.rstrip().endswith("?")) for _, title, _ in found]
    return found[:-1] if odd[-1] and not any(odd[:-1]) else found


def read_perspectives(text: str, asked: tuple[int, int] = ASKED) -> Reading:
    """The split of a B3 reply and, when it may not be taken as data, why: never a miscounted split unflagged.

    Doubts about the reading come first (unsure); a count the reader stands by but the prompt did not ask for is
    flagged as such (sure): either way it is no data."""
    text = _answer_of(text)
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
        one = _one_labelled(_normalised(text))
        if one is not None and not _stated(text):
            return Reading(Split("labelled", [one]), f"1 perspective read where the prompt asked for {wanted}",
                           unsure=False)
        return Reading(split, "no layout the parser reads")
    if split.layout == "numbered" and not any(s.title for s in sections) and not _speaks_of_views(text):
        return Reading(Split("", []), "no perspectives: a numbered list of steps, questions or points, and the reply "
                                      "speaks of no perspectives or views", unsure=False)
    split, doubt = _without_framing(split)
    sections = split.sections
    doubt = doubt or _doubt(text, split, asked)
    if doubt:
        return Reading(split, doubt)
    if not low <= len(sections) <= high:
        return Reading(split, f"{len(sections)} perspectives read where the prompt asked for {wanted}", unsure=False)
    return Reading(split, "", unsure=False)


# A section that recommends rather than views: its first words are a decision or an instruction
_DECIDES = re.compile(
    r"^(?:[\w'’-]+[ \t]+){0,3}?(?:i (?:would|'d|recommend|suggest|advise|propose|come down)|i'd|my (?:recommendation|advice|"
    r"call|suggestion)|we should|(?:she|he|they|glenda|the \w+) should|the (?:best|right|wisest|sensible) (?:course|option|"
    r"path|move|call|answer)|on balance|overall|all things considered|taken together|therefore|so,)\b|"
    r"^(?:refuse|resist|reject|comply|accept|decline|proceed|go ahead|delay|pause|slow|stop|keep|adopt|batch|stage|split|"
    r"publish|disclose|brief|tell|report|negotiate|hold|wait|take|do not|don't|move|migrate|roll|start|run|canary|"
    r"invest|choose|pick|combine|pursue|prepare|fix|close)\b", re.IGNORECASE)
# An opening that frames the decision rather than views it
_FRAMES = re.compile(r"\b(?:this is (?:a|an)|at stake|the (?:situation|decision|dilemma|question|scenario|case) "
                     r"(?:is|here)|there are (?:several|many|a few|three|four|five)|let'?s|before (?:looking|we))\b",
                     re.IGNORECASE)


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
            (0, _FRAMES.search(sections[0].text), "the introduction"))
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
    better = [s for s in _splits(text) if s.layout != split.layout and low <= len(s.sections) <= high
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
    stated = _stated(text)
    if stated and len(sections) not in stated:
        said = " or ".join(str(n) for n in sorted(stated))
        return f"{len(sections)} perspectives read where the reply says it gives {said}"
    if split.layout == "numbered" and not any(s.title for s in sections):
        return "a numbered list with no titles: steps or questions rather than perspectives?"
    titles = [t.casefold() for t in (s.title for s in sections) if t]
    if len(set(titles)) < len(titles):
        return "two perspectives share a title (sub-headings read as perspectives?)"
    if split.layout in ("headings", "bold", "table") and _ABOUT_THE_SET.search(sections[-1].text):
        return f"the last section ('{sections[-1].title}') reads like the synthesis"
    if len(sections) >= 3 and _names_the_others(sections[-1], sections[:-1]):
        return f"the last section ('{sections[-1].title}') names the others, as a synthesis does"
    if len(sections) >= 3 and _names_the_others(sections[0], sections[1:]):
        return f"the first section ('{sections[0].title}') names the others, as an introduction does"
    if split.layout in ("headings", "bold", "table") and _ABOUT_THE_SET.search(sections[0].text):
        return f"the first section ('{sections[0].title}') reads like an introduction"
    low, high = asked
    if not low <= len(sections) <= high and split.layout == "prose":
        return (f"{len(sections)} perspectives read from paragraph openings, where the prompt asked for "
                f"{low}-{high}: the paragraphs between them may hold others")
    if not low <= len(sections) <= high:
        # a count the prompt did not ask for is sure only where no other layout of the reply reads one it did
        other = {c for c in _other_counts(text, split.layout) if low <= c <= high}
        if other:
            return (f"{len(sections)} perspectives read as {split.layout}, but the reply's "
                    f"{'/'.join(str(c) for c in sorted(other))} other parts read otherwise")
    elif split.layout in _LOOSE:
        # a loose layout's count stands only where no other layout reads another count the prompt asked for
        other = {c for c in _other_counts(text, split.layout) if low <= c <= high and c != len(sections)}
        if other:
            return (f"{len(sections)} perspectives read as {split.layout}, but another layout of the reply reads "
                    f"{'/'.join(str(c) for c in sorted(other))}")
    return ""


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


def _stated(text: str) -> set[int]:
    return {int(n) if n.isdigit() else _NUMBER_WORDS[n.lower()] for n in _STATED.findall(text)}


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
    return any(_INLINE_INTRO.search(s) or _PROSE.match(s.strip(" \t*_#>-")) or _VOICE.search(s) for s in own) \
        or any(_TABLE_ROW.match(line) for line in text.splitlines())  # a table's rows or columns may be the views


# a view in someone's voice: a quotation's attribution ("— the treasurer"), "looking at this as a lawyer"
_VOICE = re.compile(r"[\"”'][ \t]*[—–-][ \t]*(?:the|an?)[ \t]+[\w' -]{2,40}$|\b(?:how|what)[ \t]+(?:would|might|does|do|"
                    r"will)[ \t]+(?:an?|the)[ \t]+[\w' -]{1,30}?[ \t]+(?:see|say|think|view|read|make of)\b|"
                    r"\b(?:looking at|seen|viewed|read)[ \t]+"
                    r"(?:(?:this|it)[ \t]+)?as[ \t]+(?:an?|the)[ \t]+\w+", re.IGNORECASE)


def _one_labelled(lines: list[str]) -> Section | None:
    """The one perspective of a reply that labels a single one (`**Perspective: risk containment.**`,
    `Perspective 1: ...` and no second)."""
    found = []
    for line in lines:
        bare = line.strip().strip("*_").strip()
        m = _LABELLED_NAMED.match(line) or _LABELLED.match(line) or _NAMED_AS.match(bare)
        if m:
            found.append(_clean_title(re.split(r"(?<=\w)\.(?:[*_]*[ \t]|$)|\*\*", m.group(1) if m.re is not _LABELLED else
                                               m.group(2) or m.group(1), maxsplit=1)[0]))
    return Section(1, found[0], found[0]) if len(found) == 1 else None


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


# --- where each layout starts a perspective: [(line index, title, rest of the line)] ------------------------

def _synthesis_line(line: str) -> bool:
    """A heading, bold lead-in or short standalone line naming the synthesis, or a paragraph opening with one
    of the stop words."""
    if not line.strip():
        return False
    if _STOP.match(line):
        return True
    title = _title_of(line)
    return title is not None and bool(_synth_title(title))


def _synth_title(title: str) -> bool:
    """A title that names the synthesis, under any of its names, or says so in brackets ("Blue hat (synthesis)")."""
    return bool(_SYNTH_TITLE.match(title) or _SYNTH_ANYWHERE.search(title))


def _title_of(line: str) -> str | None:
    """The title a heading, bold lead-in or short line stands for; None for an ordinary line of text."""
    m = _HEADING.match(line)
    if m:
        return _clean_title(m.group(2))
    m = _BOLD.match(line)
    if m:
        return _clean_title(m.group(1))
    words = line.strip().strip("*_").rstrip(":").split()
    if 0 < len(words) <= 6 and not line.strip().endswith((".", ",", ";")):
        return _clean_title(line)
    return None


def _labelled_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        named = _LABELLED_NAMED.match(line)
        m = named or _LABELLED.match(line)
        if not m:
            continue
        if named:
            title, rest = _clean_title(named.group(1)), named.group(2).strip()
        else:
            title, rest = _title_and_rest(m.group(2))
            short = _SHORT_LEAD.match(rest) if not title else None
            if short:  # "Angle 1: Precedent. If Crock wins ...": a short first sentence names the view
                title, rest = _clean_title(short.group(1)), short.group(2)
        if len(out) >= 2 and (_synth_title(title) or _STOP.match(title)):
            break  # "Perspective 4: Synthesis": the synthesis under a perspective's label
        out.append((i, title, rest))
    return out


def _heading_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    found = [(i, len(m.group(1)), _clean_title(m.group(2))) for i, line in enumerate(lines)
             if (m := _HEADING.match(line))]
    kept = []
    for i, level, title in found:
        if _STOP.match(title) or _synth_title(title):
            if len(kept) >= 2 and level <= min(lv for _, lv, _ in kept):
                break  # what follows the synthesis at the views' level (caveats, next steps) is the synthesis's
            continue
        if _INTRO_TITLE.match(title) and not any(lv == level for _, lv, _ in kept) or _META_TITLE.fullmatch(title) \
                or _CONTAINER_TITLE.fullmatch(title) or _GROUP_TITLE.fullmatch(title) and _holds_views(lines, i, level):
            continue  # an introduction under its own heading (the first at its level), a note or caveat, or the
            # views' container ("## Perspectives", repeated or not, over the bold or listed views): no view
        kept.append((i, level, title))
    if len(kept) > 2 and _ABOUT_THE_SET.search(_body(lines, kept[0][0], kept[1][0])):
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


# A title that names the views as a set ("Perspectives", "Three different perspectives", "Views on the decision")
_CONTAINER_TITLE = re.compile(r"(?:(?:the|some|my|our|different|several|key|main|other|possible|competing|multiple|"
                              r"two|three|four|five|six|[2-6])[ \t]+)*(?:perspectives|viewpoints|views|lenses|angles|"
                              r"standpoints)(?:[ \t]+(?:on|to consider|at play|considered)\b.*)?", re.IGNORECASE)


# A title that names a group of views ("Internal perspectives", "External views"): their container where it holds them
_GROUP_TITLE = re.compile(r"(?:[\w'’-]+[ \t]+){1,2}(?:perspectives|viewpoints|views|lenses|angles|standpoints)",
                          re.IGNORECASE)


def _holds_views(lines: list[str], i: int, level: int) -> bool:
    """Whether the heading at line i holds two or more titled parts (deeper headings, bold lead-ins, numbered items)
    before the next heading at its level or above."""
    held = 0
    for line in lines[i + 1:]:
        m = _HEADING.match(line)
        if m and len(m.group(1)) <= level:
            break
        held += bool(m or _BOLD.match(line) or _NUMBERED.match(line))
    return held >= 2


def _body(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start + 1:end])


def _table_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """Rows of the first markdown table whose first column holds the perspectives."""
    for i in range(len(lines) - 1):
        head = _TABLE_ROW.match(lines[i])
        if not (head and _TABLE_RULE.match(lines[i + 1]) and "-" in lines[i + 1]):
            continue
        header = [_clean_title(c) for c in head.group(1).split("|")]
        # a row number's column before the perspective's (`| # | Perspective | ... |`) names nothing
        key = 1 if len(header) > 2 and re.fullmatch(r"#|no\.?|n[or]?|", header[0], re.IGNORECASE) \
            and _TABLE_HEAD.match(header[1]) else 0
        if not _TABLE_HEAD.match(header[key]):
            # a table of options or costs is not of perspectives; one with an empty or attribute corner whose lead-in
            # names views ("a side-by-side comparison of three perspectives") has a view per column
            return _table_columns(lines, i, header)
        out = []
        for j in range(i + 2, len(lines)):
            row = _TABLE_ROW.match(lines[j])
            if not row:
                break
            cells = [c.strip() for c in row.group(1).split("|")][key:]
            title = _clean_title(cells[0])
            if _synth_title(title) or _STOP.match(title):
                continue
            out.append((j, title, " ".join(c for c in cells[1:] if c)))
        return out
    return []


_CORNER = re.compile(r"(?:|aspect|dimension|criteri(?:on|a)|question|factor|attribute|topic|issue|concern|lens|"
                     r"perspective ?(?:→|->)?)", re.IGNORECASE)


def _table_columns(lines: list[str], i: int, header: list[str]) -> list[tuple[int, str, str]]:
    """The columns of a table as perspectives (title: its header; text: its cells), where its corner is empty or names
    an attribute, its lead-in names views, and no column is headed as an option, a cost or a risk."""
    titles = header[1:]
    if not (_CORNER.fullmatch(header[0]) and len(titles) >= 2 and _led_as_views(lines, i)) \
            or any(not t or _NOT_A_VIEW.fullmatch(t) for t in titles):
        return []
    rows = []
    for j in range(i + 2, len(lines)):
        row = _TABLE_ROW.match(lines[j])
        if not row:
            break
        rows.append([c.strip() for c in row.group(1).split("|")])
    return [(i, title, " ".join(r[k + 1] for r in rows if len(r) > k + 1 and r[k + 1])) for k, title in enumerate(titles)]


def _numbered_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """The items of the reply's list of perspectives: where it has several lists numbered from 1 (the options
    restated, then the views), the one its lead-in line names as views ("Perspectives on them:"), else the first."""
    runs = [run for run in _numbered_runs(lines) if not _led_as_aside(lines, run[0][0])]
    titled = [run for run in runs if _led_by_a_title(lines, run[0][0])]
    if len(titled) >= 2:  # a list under each of two titles or more: each view's points, the titles the views
        runs = [run for run in runs if run not in titled]
    if len(runs) > 1:
        led = [run for run in runs if _led_as_views(lines, run[0][0])]
        if len(led) == 1:
            return led[0]
    return runs[0] if runs else []


def _numbered_runs(lines: list[str]) -> list[list[tuple[int, str, str]]]:
    """Every list at the left margin numbered, lettered or in roman numerals from 1, up to the synthesis."""
    runs: list[list[tuple[int, str, str]]] = []
    out: list[tuple[int, str, str]] = []
    expected = None
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t"):
            continue  # a nested list belongs to the perspective it is in
        if _synthesis_line(line) and not _NUMBERED.match(line):
            if out or runs:
                break
            return []  # a list after the synthesis's title is its steps, not the perspectives
        m = _NUMBERED.match(line)
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
        if _STOP.match(rest) or any(_synth_title(t) for t in (_clean_title(rest), _title_and_rest(rest)[0])):
            break
        title, body = _title_and_rest(rest)
        voice = _PROSE.match(rest) if not title else None
        asked = _ASKS_A_ROLE.match(rest) if not title else None
        if voice and not voice.group(1):  # "1. From the engineers' side, ...": the phrase names the view
            title, body = _clean_title(next(g for g in voice.groups() if g)), rest
        elif asked:  # "1. How would a lawyer see it? As extortion.": the role asked names the view
            title, body = _clean_title(asked.group(1)), rest
        out.append((i, title, body))
        expected = max(key, expected or 0) + 1 if slip else key + 1
    runs.append(out)
    return [run for run in runs if len(run) >= 2]


_ASKS_A_ROLE = re.compile(r"(?:how|what)[ \t]+(?:would|might|does|do|will)[ \t]+((?:an?|the)[ \t]+[\w' -]{1,30}?)[ \t]+"
                          r"(?:see|say|think|view|read|make of)\b[^?]*\?", re.IGNORECASE)


def _led_as_views(lines: list[str], first: int) -> bool:
    """Whether the line that leads into a list (the nearest one above it) names perspectives, views or angles."""
    lead = next((line for line in reversed(lines[:first]) if line.strip()), "")
    return bool(_INLINE_INTRO.search(lead))


def _only_untitled_lists(text: str) -> bool:
    """Whether the reply's numbered lists, those led as asides among them, hold no titled item, and the reply speaks
    of no perspectives or views: a list of risks, questions or references, no views."""
    runs = _numbered_runs(_normalised(text))
    return bool(runs) and not any(title for run in runs for _, title, _ in run) and not _speaks_of_views(text)


def _led_as_aside(lines: list[str], first: int) -> bool:
    """Whether the line that leads into a list names a part beside the views ("Assumptions I'm making:", "Risks:",
    "Glenda has three options:") and no views."""
    lead = next((line for line in reversed(lines[:first]) if line.strip()), "")
    title = _title_of(lead) if not lead.rstrip().endswith(":") else _clean_title(lead.rstrip().rstrip(":"))
    if lead.rstrip().endswith(":") and _LISTS_ASIDES.search(lead) and not _INLINE_INTRO.search(lead):
        return True
    return bool(title) and bool(_aside(title) or _META_TITLE.match(title))


_LISTS_ASIDES = re.compile(r"\b(?:options|choices|alternatives|courses of action|steps|risks|assumptions|questions|"
                           r"facts|scenarios|outcomes|actions)\b", re.IGNORECASE)


def _led_by_a_title(lines: list[str], first: int) -> bool:
    """Whether a list sits right under a title line (a heading, a bold line, a short line alone)."""
    lead = lines[first - 1] if first else ""
    bare = lead.strip()
    return bool(bare) and (bool(_HEADING.match(lead)) or bool(re.fullmatch(r"(?:\*\*|__)[^*_]+(?:\*\*|__):?", bare))
                           or (_alone_as_title(lead) and not _NUMBERED.match(bare)))


def _key(number: str | None, letter: str | None, roman: str | None) -> int:
    if roman:
        return _ROMAN[roman.lower()]
    value = number or letter or ""
    if value.isdigit():
        return int(value)
    return ord(value.upper()) - ord("A") + 1


_OUTLINE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?[ \t]+(\S.*)$")


def _outline_starts(lines: list[str]) -> list[tuple[int, str, str]]:
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
        title, rest = _title_and_rest(m.group(3))
        if _STOP.match(m.group(3)) or _synth_title(title):
            break
        out.append((i, title, rest))
    return out


def _counted_sections(lines: list[str], stated: set[int]) -> list[Section]:
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
        if _synthesis_line(line):
            closed = True
            break
        if not line.strip():
            if items and not bullets:
                items.append([])
            continue
        if _BULLET.match(line) and not bullets and not any(items):
            bullets, items = True, []
        if bullets:
            if _BULLET.match(line):
                items.append([_BULLET.sub("", line)])
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


def _bold_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        m = _BOLD.match(line)
        if not m:
            continue
        title = _clean_title(m.group(1))
        if _STOP.match(m.group(1)) or _synth_title(title):
            if out:
                break  # the synthesis: no perspective follows it
            continue
        before = lines[i - 1] if i else ""
        bullet = bool(_BULLET.match(line))
        opens = (not before.strip() or bool(_BOLD.match(before)) or before.rstrip().endswith(":")
                 or (bullet and (bool(_BULLET.match(before.lstrip())) or before[:1] in (" ", "\t"))))
        if not opens:
            continue  # a lead-in opens a paragraph or a bullet of the top list
        if not out and _INTRO_TITLE.match(title) or _META_TITLE.fullmatch(title) or _CONTAINER_TITLE.fullmatch(title):
            continue  # (a bold "**Perspectives**" over the views is their container, as a heading is)
        out.append((i, title, m.group(2).strip()))
    top = [f for f in out if not _BULLET.match(lines[f[0]].lstrip()) and not _aside(f[1])]
    if len(top) >= 2 and len(top) < len(out):
        return top  # lead-ins at the margin over bulleted ones: the bullets are parts of each view
    return out


def _titled_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """Lines at the margin (plain or bulleted) that open with a short title: `Title: text`, `Title — text`, or the
    title alone with its text on the next line or in a nested list (`- Legal` then `  - ...`)."""
    out = []
    for i, line in enumerate(lines):
        if not line.strip() or line[:1] in (" ", "\t") or _HEADING.match(line) or line.lstrip("*_")[:1] in "\"“‘" \
                or re.search(r"https?://|www\.", line):
            continue  # (a quotation is what someone says, a link where to read more: no title)
        before = lines[i - 1] if i else ""
        after = lines[i + 1] if i + 1 < len(lines) else ""
        lead = _TITLED.match(line)
        if lead:
            title, rest = _clean_title(lead.group(1)), lead.group(2).strip()
        elif _alone_as_title(line) and after.strip() and not (line.rstrip().endswith(":") and _TITLED.match(after)):
            # (a line ending in a colon over titled lines leads into them: "Stakeholders:" over "- Funders — ...")
            title, rest = _clean_title(_BULLET.sub("", line)), ""
        elif _title_case_alone(lines, i):  # "Blast Radius And Rollback", a paragraph of its own over the view's
            title, rest = _clean_title(line), ""
        else:
            continue
        if _LABEL_WORD.fullmatch(title) and 0 < len(rest.split()) <= 6:
            title, rest = _clean_title(rest), ""  # "- Perspective: Platform team": the label names the view
        if len(title.split()) > 5 or _NOT_A_VIEW.fullmatch(title) or not re.search(r"[^\W\d_]", title):
            continue
        opens = (not before.strip() or before[:1] in (" ", "\t") or before.rstrip().endswith(":")
                 or bool(out and out[-1][0] == i - 1))
        if not opens:
            continue
        if _STOP.match(line) or _synth_title(title):
            if out:
                break
            continue
        if not out and _INTRO_TITLE.match(title) or _META_TITLE.fullmatch(title):
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
            and bool(after.strip()) and not _alone_as_title(after))


_LABEL_WORD = re.compile(r"(?:perspective|viewpoint|view|lens|angle|stance)s?", re.IGNORECASE)


def _alone_as_title(line: str) -> bool:
    """A short line that is a title, not a sentence: at most six words, no closing full stop, comma or colon-led
    text after it."""
    words = _BULLET.sub("", line).strip().split()
    return 0 < len(words) <= 6 and not line.rstrip().endswith((".", ",", ";", "!")) and ": " not in line


def _normalised(text: str) -> list[str]:
    """The reply's lines with the decoration that hides a layout taken off: a setext heading (a title underlined
    with === or ---) as a `#`/`##` heading, a blockquote's `>`, emoji and symbols before a title (`🛡️ Security`),
    and an arrow or symbol bullet (`→ Legal: ...`) as `- `."""
    out: list[str] = []
    for line in _one_label_a_line(_from_html(text)).splitlines():
        if re.fullmatch(r"[ \t]*(?:```|~~~)[\w-]*[ \t]*", line):
            out.append("")
            continue  # a code fence is no title
        underline = re.fullmatch(r"[ \t]*(=+|-+)[ \t]*", line)
        if underline and len(line.strip()) >= 3 and out and _alone_as_title(out[-1]) \
                and not (_HEADING.match(out[-1]) or _BULLET.match(out[-1])):
            out[-1] = ("# " if line.strip()[0] == "=" else "## ") + out[-1].strip()
            continue
        if re.fullmatch(r"[ \t]*(?:-{3,}|\*{3,}|_{3,}|(?:[-*_][ \t]){2,}[-*_])[ \t]*", line):
            out.append("")
            continue  # a horizontal rule separates, like a blank line
        line = re.sub(r"^[ \t]*>[ \t]?", "", line)
        line = re.sub(r"^([ \t]*)(\d)\ufe0f?\u20e3", r"\1\2.", line)  # a keycap digit ("1️⃣") as the number it shows
        indent = line[:len(line) - len(line.lstrip())]
        rest = line.lstrip()
        if rest and rest[0] in _ARROWS:
            line = indent + "- " + rest[1:].lstrip()
        else:
            stripped = rest
            while stripped and unicodedata.category(stripped[0]) in ("So", "Sk", "Cf", "Mn"):
                stripped = stripped[1:]
            if stripped != rest and stripped.strip():
                line = indent + stripped.lstrip()
        out.append(line)
    return out


_HTML_TAG = re.compile(r"</?(?:h[1-6]|p|strong|b|em|i|u|li|ol|ul|br|div|span|section|blockquote)\b[^>\n]*>",
                       re.IGNORECASE)


def _from_html(text: str) -> str:
    """HTML as small models write it, as the markdown it stands for: <h3> a `###` heading, <strong> bold, <li> of
    an <ol> a numbered line, of a <ul> a bullet, <p> and <br> line breaks."""
    if not _HTML_TAG.search(text):
        return text
    flags = re.IGNORECASE | re.DOTALL
    text = re.sub(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>",
                  lambda m: "\n\n" + "#" * int(m.group(1)) + " " + " ".join(m.group(2).split()) + "\n\n", text,
                  flags=flags)
    text = re.sub(r"<(strong|b)\b[^>]*>(.*?)</\1\s*>", r"**\2**", text, flags=flags)
    text = re.sub(r"</?(?:em|i|u|span)\b[^>]*>", "", text, flags=re.IGNORECASE)

    def numbered(m: re.Match) -> str:
        items = re.findall(r"<li\b[^>]*>(.*?)(?=</li\s*>|<li\b|$)", m.group(1), flags=flags)
        return "\n" + "\n".join(f"{n}. {' '.join(item.split())}" for n, item in enumerate(items, start=1)) + "\n"

    text = re.sub(r"<ol\b[^>]*>(.*?)(?:</ol\s*>|$)", numbered, text, flags=flags)
    text = re.sub(r"<li\b[^>]*>", "\n- ", text, flags=re.IGNORECASE)
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.IGNORECASE)
    text = _HTML_TAG.sub("\n", text)
    return "\n".join(line.strip() if not line.strip() or not line.startswith((" ", "\t")) or
                     not _BULLET.match(line.strip()) else line for line in text.splitlines())


_LABEL_IN_LINE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][*_\"”']))[ \t]+(?=[*_]*(?:perspective|viewpoint|view|angle|lens)[ \t]+"
                            r"#?(?:\d|one|two|three|four|five|six|[A-H])\b[ \t*_]*[:.—–-])", re.IGNORECASE)


def _one_label_a_line(text: str) -> str:
    """`Perspective 1: ... Perspective 2: ...` run together in one paragraph, as a line per label."""
    return "\n".join(_LABEL_IN_LINE.sub("\n", line) if len(_LABELLED_ANY.findall(line)) >= 2 else line
                     for line in text.splitlines())


_LABELLED_ANY = re.compile(r"\b(?:perspective|viewpoint|view|angle|lens)[ \t]+#?(?:\d|one|two|three|four|five|six|[A-H])\b"
                           r"[ \t*_]*[:.—–-]", re.IGNORECASE)


def _prose_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out, kinds = [], []  # kinds: which of _PROSE's openings each start is
    before = []  # the paragraphs' openings before the first view: one may open the series in other words
    for i, line in enumerate(lines):
        if i and lines[i - 1].strip():
            continue  # a paragraph's first line
        if _synthesis_line(line) and out:
            break
        bare = line.lstrip(" \t*_")  # "*Through the eyes of the on-call engineer*": emphasis is no text
        m = _PROSE.match(bare)
        if m and not _STOP.match(bare):
            phrase = next(g for g in m.groups() if g)
            if m.group(1):
                title = _ordinal_title(bare[m.end():])
                if _INTRO_TITLE.match(title) or _aside(title):
                    continue  # "Firstly, some context: ...": the introduction counts itself first
            elif m.group(5):  # "A third view is about the people outside the room": the view names itself after it
                title = _named_after(bare[m.end():]) or _named_within(_paragraph(lines, i)) or _clean_title(phrase)
            else:
                title = _clean_title(phrase)
            out.append((i, title, line.strip()))
            kinds.append(next(k for k, g in enumerate(m.groups()) if g))
        elif not out and bare.strip():
            before.append((i, bare))
    return _series_opened(lines, _without_odd_voice(lines, out, kinds), before)


def _without_odd_voice(lines: list[str], out: list[tuple[int, str, str]], kinds: list[int]) -> list[tuple[int, str, str]]:
    """The prose starts less a first or last one that opens unlike all the others ("As an AI assistant, I ...", "As a
    result, I would ...", where the views open "From a legal standpoint, ...") and speaks in the author's voice in its
    first sentence where none of theirs does: the introduction or the synthesis."""
    if len(out) < 3:
        return out

    def first_sentence(i: int) -> str:
        return re.split(r"(?<=[.!?])\s", _paragraph(lines, i), maxsplit=1)[0]

    voiced = [bool(_OWN_VOICE.search(first_sentence(i))) for i, _, _ in out]
    middle = {kinds[n] for n in range(1, len(out) - 1)}
    if len(middle) != 1:
        return out
    main = [n for n in range(len(out)) if kinds[n] in middle]
    if any(voiced[n] for n in main):
        return out
    first, last = first_sentence(out[0][0]), first_sentence(out[-1][0])
    odd = {n for n, says in ((0, _FRAMES.search(first) or _ABOUT_THE_SET.search(first) or _INTRO_SAYS.search(first)),
                             (len(out) - 1, _AUTHOR_DECIDES.search(last)))
           if kinds[n] not in middle and voiced[n] and says}
    kept = [start for n, start in enumerate(out) if n not in odd]
    return kept if len(kept) >= 2 else out


# the author introducing the views, or deciding after them (a role's "I'd say" is a view's voice)
_INTRO_SAYS = re.compile(r"\b(?:here (?:are|is)|angles|ways|sides|i (?:don'?t|do not|can'?t|cannot) take sides)\b",
                         re.IGNORECASE)
_AUTHOR_DECIDES = re.compile(r"\b(?:(?:i|we)(?:'d| would| should) (?:recommend|refuse|resist|comply|go|choose|advise|"
                             r"suggest|side)|i (?:recommend|agree|come down|land)|my (?:recommendation|advice))\b",
                             re.IGNORECASE)


# The first of a series opened in other words than an ordinal ("One way to see this is as ...", "Start with ...")
_SERIES_FIRST = re.compile(
    r"^(?:(?:one|a first|the first|an obvious|the obvious|the most obvious) (?:way|reading|framing)(?: (?:to|of) "
    r"(?:see|seeing|look at|looking at|read|reading|frame|framing|think about|thinking about|view|viewing|approach|"
    r"approaching) (?:this|it|the \w+|things))?|(?:(?:let(?:'s| us| me) )?(?:start|begin)(?: with)?|starting with|"
    r"to (?:start|begin)(?: with)?)(?=[ \t,:]))", re.IGNORECASE)
# ... when the first view the ordinals read is the second ("A second view ...", "Second, ...", "Another view ...")
_SERIES_SECOND = re.compile(r"^(?:second(?:ly)?\b|(?:a|the) second\b|another\b)", re.IGNORECASE)


def _series_opened(lines: list[str], out: list[tuple[int, str, str]],
                   before: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
    """The views read from ordinals, and before them the paragraph that opens the series in other words ("One way
    to see this is as a negotiation." then "A second view ...", "A third view ..."): a second needs a first."""
    if not out or not _SERIES_SECOND.match(lines[out[0][0]].lstrip(" \t*_")):
        return out
    opener = next(((i, bare) for i, bare in reversed(before) if _SERIES_FIRST.match(bare)), None)
    if opener is None:
        return out
    i, bare = opener
    rest = bare[_SERIES_FIRST.match(bare).end():]
    lead = re.split(r"[,.:;]", rest.strip(" \t,:"), maxsplit=1)[0]  # "Start with the lawyer's view: ..."
    title = _named_after(rest) or (_clean_title(lead) if len(lead.split()) <= 6 else "")
    return [(i, title, lines[i].strip())] + out


# What a view's opening calls it after its ordinal: "... is as a negotiation", "... is about the people outside the
# room", "... is that of the mission", "... is the funders'"
_NAMED_AFTER = re.compile(r"^[ \t]*,?[ \t]*(?:is|would be)[ \t]+(?:(?:as|about|that of|through|from)[ \t]+|(?=(?:the|an?)[ \t]))"
                          r"([^,.:;!?—–()\n]{2,60}?)[ \t]*(?=[,.:;!?—–(]|$)", re.IGNORECASE)
# What a view with no name in its opening calls the matter in its paragraph: "... it's extortion.", "this is a trap."
_NAMED_WITHIN = re.compile(r"\b(?:it|this)(?:'s|’s| is)[ \t]+(?:(?:simply|just|plainly|really|basically)[ \t]+)?"
                           r"((?:(?:an?|the)[ \t]+)?[\w'’-]+(?:[ \t]+[\w'’-]+){0,2}?)[ \t]*(?=[.;!]|$)", re.IGNORECASE)


def _named_after(rest: str) -> str:
    m = _NAMED_AFTER.match(rest)
    return _clean_title(m.group(1)) if m and len(m.group(1).split()) <= 6 else ""


def _named_within(paragraph: str) -> str:
    m = _NAMED_WITHIN.search(paragraph)
    return _clean_title(m.group(1)) if m else ""


def _paragraph(lines: list[str], i: int, joined: str = " ") -> str:
    """The paragraph that opens at line i."""
    end = next((j for j in range(i, len(lines)) if not lines[j].strip()), len(lines))
    return joined.join(line.strip() for line in lines[i:end])


# A paragraph that quotes a voice and names it after the quote: `"My job is ..."` then `— the CISO` (on its line or
# after the closing mark)
_QUOTED = re.compile(r"^[*_]*[\"“‘'].+[\"”’'][*_]*\s*(?:[—–]|--?)[ \t]*([^\n—–\"“”]{2,60}?)[ \t*_]*$", re.DOTALL)


def _quoted_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        if not line.strip() or (i and lines[i - 1].strip()):
            continue  # a paragraph's first line
        if _synthesis_line(line) and out:
            break
        m = _QUOTED.match(_paragraph(lines, i, joined="\n"))
        if m:
            out.append((i, _clean_title(m.group(1)), line.strip()))
    return out


# "For the lawyer, ...", "For the funder, ...", "For the user, ...": paragraphs opening alike, one phrase apart
_LEAD = re.compile(r"^([^,:;.!?\n]{2,80}?)[ \t]*(?:,|:|[ \t][—–-][ \t])")
# a condition or a sentence's subject and verb is no view's template ("If Glenda complies, ...", "It is ..."); taking a
# role is ("If you are the engineer, ...")
_NOT_A_TEMPLATE = re.compile(r"^(?:if(?! (?:you(?:'re| are)|i(?:'m| am| were)|we(?:'re| are)) (?:the|an?)\b)|when|whether|unless|once|should|it|this|that|there|we|i|you|they|he|she|but|and|"
                             r"so|then|also|however|still|yet|because|since|after|before|while|although|though)\b",
                             re.IGNORECASE)


def _parallel_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    """Three or more paragraphs in a row whose lead-ins (the words before a comma, colon or dash) share their first
    words and differ after them: a view per paragraph, titled by what differs (the synthesis opens otherwise)."""
    leads = []
    for i, line in enumerate(lines):
        if line.strip() and not (i and lines[i - 1].strip()):
            m = _LEAD.match(line.strip(" \t*_>"))
            words = m.group(1).split() if m and len(m.group(1).split()) <= 10 else []
            leads.append((i, words, line.strip()))
    best: list[tuple[int, str, str]] = []
    for n in range(len(leads) - 2):
        three = [[w.casefold() for w in words] for _, words, _ in leads[n:n + 3]]
        k = 0
        while k < min(len(w) for w in three) - 1 and len({w[k] for w in three}) == 1:
            k += 1
        prefix = three[0][:k]
        if not prefix or _NOT_A_TEMPLATE.match(" ".join(prefix)):
            continue
        run = []
        for i, words, line in leads[n:]:
            if len(words) <= k or [w.casefold() for w in words[:k]] != prefix:
                break
            run.append((i, _clean_title(" ".join(words[k:])), line))
        titles = [t for _, t, _ in run]
        if len(run) >= 3 and len({t.casefold() for t in titles}) == len(run) and len(run) > len(best) \
                and all(re.search(r"[^\W\d_]{2}", t) and not _aside(" ".join(prefix) + " " + t) for t in titles):
            best = run
    return best


def _ordinal_title(after: str) -> str:
    """The view an ordinal names before a colon ("First, the investor's view: ..."), or none."""
    head, colon, _ = after.strip(" \t,").partition(":")
    return _clean_title(head) if colon and 0 < len(head.split()) <= 6 else ""


# --- cutting the reply at those starts ---------------------------------------------------------------------

def _sections(lines: list[str], starts: list[tuple[int, str, str]]) -> list[Section]:
    sections = []
    compact = all(not any(not ln.strip() for ln in _trimmed(lines[i + 1:nxt[0]]))
                  for (i, _, _), nxt in zip(starts, starts[1:]))
    for n, (i, title, rest) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        body = [rest] if rest else []
        opens_synthesis = False
        for line in lines[i + 1:end]:
            if _is_stop(line):
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


def _with_continuations(sections: list[Section]) -> list[Section]:
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


def _table_sections(lines: list[str], starts: list[tuple[int, str, str]]) -> list[Section]:
    return [Section(n, title, rest or title) for n, (_, title, rest) in enumerate(starts, start=1)]


# "The **optimist** says ...; the **pessimist** says ...": a bold name then what it says, within one paragraph
_VOICED = re.compile(r"(?:^|(?<=[.;:!?])[ \t]+|\b(?:the|an?|and|while|whereas)[ \t]+)(?:\*\*|__)([^*_\n]{1,40}?)(?:\*\*|__)"
                     r"[ \t]*(?:\([^)\n]{1,40}\)[ \t]*)?,?[ \t]+(?:would[ \t]+)?(?:says?|argues?|sees?|thinks?|believes?|"
                     r"points?|warns?|notes?|counters?|insists?|fears?|wants?|asks?|replies|responds?|stresses|"
                     r"worries|focus(?:es)?|holds?|claims?|urges?|objects?|view)\b", re.IGNORECASE)


def _voiced_sections(text: str) -> list[Section]:
    """A paragraph that gives each view in a bold name's voice ("The **optimist** says ...; the **pessimist** ..."):
    a perspective per name, up to the next."""
    for paragraph in re.split(r"\n[ \t]*\n", text):
        marks = list(_VOICED.finditer(paragraph))
        names = [_clean_title(m.group(1)) for m in marks]
        if len(marks) < 2 or len({n.casefold() for n in names}) < len(names):
            continue
        return [Section(n + 1, names[n], paragraph[m.start(1):marks[n + 1].start() if n + 1 < len(marks) else
                                                    len(paragraph)].strip(" ;,"))
                for n, m in enumerate(marks)]
    return []


def _inline_sections(text: str) -> list[Section]:
    """One paragraph that names perspectives (or follows one that does), then enumerates them (a) ... (b) ... in
    order."""
    previous = ""
    for paragraph in re.split(r"\n[ \t]*\n", text):
        marks = list(_INLINE_MARK.finditer(paragraph))
        lead_in, previous = previous + " " + paragraph[:marks[0].start()] if marks else "", paragraph
        if len(marks) < 2 or not _INLINE_INTRO.search(lead_in) or "\n" in paragraph[marks[0].start():].strip():
            continue  # (marks on lines of their own are a list, read as one where it is the views)
        keys = [_inline_key(next(g for g in m.groups() if g)) for m in marks]
        if keys != list(range(1, len(keys) + 1)):
            continue
        sections = []
        for n, m in enumerate(marks):
            end = marks[n + 1].start() if n + 1 < len(marks) else len(paragraph)
            body = paragraph[m.end():end].strip().rstrip(";,").strip()
            body = re.sub(r"[;,]?\s*(?:and|or)$", "", body).strip()
            title, _ = _title_and_rest(body)
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
    if mark in _ROMAN:
        return _ROMAN[mark]
    return ord(mark) - ord("a") + 1


def _is_stop(line: str) -> bool:
    """A line where the synthesis begins: a heading, bold lead-in or short line naming it, or a plain line
    opening with a stop word."""
    return _synthesis_line(line)


def _title_and_rest(value: str) -> tuple[str, str]:
    """`**The Security View**: text` -> ("The Security View", "text"); `Security: text` -> ("Security", "text");
    a line with no title part is all text."""
    value = value.strip()
    if re.match(r"<?(?:https?://|www\.)", value):
        return "", value  # a link, not "https: ..."
    bold = _BOLD.match(value)
    if bold:
        return _clean_title(bold.group(1)), bold.group(2).strip()
    closed = _CLOSING_BOLD.match(value)
    if closed:  # "Full resistance.** Refuse ...": the bold that opened before the label closes after the title
        return _clean_title(closed.group(1)).rstrip("."), closed.group(2).strip()
    head, sep, rest = value.partition(":")
    for dash in (" — ", " – ", " - "):
        if not sep:
            head, sep, rest = value.partition(dash)
    if sep and len(head) <= 60:
        return _clean_title(head), rest.strip()
    if len(value) <= 60 and not value.endswith((".", "!", "?")):
        return _clean_title(value), ""
    return "", value


def _clean_title(value: str) -> str:
    value = _without_symbols(value.strip())
    value = _ORDINAL_LEAD.sub("", value.strip())
    value = _DECIMAL_LEAD.sub("", value)
    value = _PART_LEAD.sub("", value)
    value = value.strip().strip("*_:").strip().rstrip(":").strip()
    value = re.sub(r"(?<=[^\W\d_]{2})\.$", "", value)  # "**Leadership.** ...": the stop closes the lead-in, not the name
    named = _NAMED_AS.match(value)
    return named.group(1).strip() if named else value


_PART_LEAD = re.compile(r"^(?:part|section)[ \t]+(?:\d{1,2}|[IVX]{1,4}|[A-E]|one|two|three|four|five)[ \t]*[:.—–-][ \t]+(?=\S)",
                        re.IGNORECASE)  # "Part 1: Perspectives": the part's label is not its title
_DECIMAL_LEAD = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}(?=[ \t]+[A-Z]))[ \t]+")
# "Perspective: the regulator", "Viewpoint — the customer": the word that labels the title is not the title
_NAMED_AS = re.compile(r"^(?:perspective|viewpoint|view|lens|angle|stance)[ \t]*(?::|[—–]|[ \t]-)[ \t]*(\S.*)$",
                       re.IGNORECASE)


def _without_symbols(value: str) -> str:
    """A title without the emoji and symbols before it ("🔐 Security", "🧑‍💻 Engineering")."""
    while value and (unicodedata.category(value[0]) in ("So", "Sk", "Cf", "Mn") or value[0] in " \t\u200d"):
        value = value[1:]
    return value
