"""B3 reader: the words of titles (issue 41): what a view's title is, and which titles are none (the
synthesis, an introduction, a note, an aside, an option); the count a reply states.
"""

from __future__ import annotations

import re
import unicodedata


_STOP_WORDS = (r"(?:synthesi[sz]\w*|recommend\w*|conclusion|in conclusion|in summary|summary|overall|final recommendation|"
               # the words that gather the views: "All things considered", "Taking all the hats off", "Put together"
               r"all things considered|taking (?:all|everything|it all|these|them|the (?:\w+ )?(?:views|perspectives|"
               r"lenses|hats))|put(?:ting)? (?:it |this |everything |them )?(?:all )?together|pulling (?:it|this|"
               r"everything) (?:all )?together|on balance|weighing (?:it all|these|them|everything))")
STOP = re.compile(r"^[>#*_]*[ \t]*(?:\d+[.)][ \t]*)?[*_]*(?:(?:my|our|the|a|final)[ \t]+)?" + _STOP_WORDS + r"\b",
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
    r"thoughts\b|word\b|call\b|takeaways?|next steps|action plan|plan of action|what (?:i|we|[\w'’]+|the \w+) "
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
INTRO_TITLE = re.compile(
    r"^(?:an? |the |my |some |quick |brief )?(?:introduction|intro|context|background|overview|preamble|framing|setting the scene|"
    r"understanding\b|situation|the situation|what'?s at stake|stakes|(?:key|core|central) (?:question|issue)|"
    r"the (?:decision|dilemma|problem|question|issue|"
    r"case(?![ \t]+(?:for|against)\b)|threat)|(?:decision|problem|situation|case) (?:summary|overview|analysis)|executive summary|"
    r"key facts|facts|(?:key |main |important |core )?considerations\b)", re.IGNORECASE)
# A part of the reply about the reply, wherever it stands: no view
META_TITLE = re.compile(r"(?:an? |the |one |some |my |important |key |main |working |underlying )?(?:note|nb|caveats?|disclaimers?|assumptions?|"
                        r"limitations?|important|a word of caution|warning|open questions?|references|sources|appendix|"
                        r"p\.?s\.?)", re.IGNORECASE)
# In the first or last section's words: it speaks of the perspectives as a set, as an introduction or a
# synthesis does and a single perspective rarely does ("all three threats" counts something else).
ABOUT_THE_SET = re.compile(
    r"\b(?:(?:these|the|all|several|three|four|five|different|following|other) (?:\w+ )?(?:perspectives|viewpoints|"
    r"lenses|views|angles)|(?:all|each of the|both) (?:three|four|five)\b(?! (?!(?:views|perspectives|lenses|angles|"
    r"viewpoints|sides|voices|roles|hats|stakeholders|parties|is|was|has|does)\b)[a-z]+s\b)|taken together|on balance|"
    r"weighing (?:these|them|it all|everything)|synthesi[sz]|in sum\b|let'?s (?:look|examine|consider))", re.IGNORECASE)

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# "three perspectives", "four different angles": the number of perspectives a reply says it gives; the end of a range
# ("You asked for 3-5 perspectives", "three to five views") is the prompt's ask echoed, no count of the reply's own
_STATED = re.compile(r"(?<![-–—])(?<![-–—][ \t])(?<!\bto[ \t])\b(two|three|four|five|six|[2-6])"
                     r"(?![ \t]*(?:[-–—]|to\b)[ \t]*(?:[2-9]|two|three|four|five|six|seven)\b)"
                     r"[ \t]+(?:[\w'-]+[ \t]+){0,2}?(?:perspectives|viewpoints|views|"
                     r"angles|lenses|sides|directions|ways of (?:looking|seeing))\b", re.IGNORECASE)
HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.*?)[ \t#]*$")
BOLD = re.compile(r"^[ \t]*(?:[-*+•][ \t]+)?(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*[:.\-–—]?[ \t]*(.*)$")
BULLET = re.compile(r"^[-*+•][ \t]+")
# a list of options, steps or phases is not a list of perspectives
NOT_A_VIEW = re.compile(r"(?:option|choice|alternative|course of action|step|phase|week|stage|scenario|pros?|cons?|"
                        r"risks?|benefits?|costs?|note|question|answer|q|a)(?:[ \t]+(?:\d{1,2}|[A-E]|one|two|three|four|"
                        r"five))?", re.IGNORECASE)  # a title that is only such a word (and its number) names no view
_CLOSING_BOLD = re.compile(r"^([^*_\n]{1,60}?)[ \t]*(?:\*\*|__)[ \t]*[:.\-–—]?[ \t]*(.*)$")
OWN_VOICE = re.compile(r"\b(?:i|i'd|i'm|i'll|my|we|we'd|we're|our|us|me)\b", re.IGNORECASE)
_ORDINAL_LEAD = re.compile(r"^[ \t]*(?:\(?\d{1,2}[.)]|\(?[A-Ea-e][.)]|\(?(?:I{1,3}|IV|VI?)[.)]|\d{1,2}[ \t]*[—–:][ \t]*|"
                           r"\d{1,2}[ \t]+-[ \t]+)[ \t]*")
INLINE_INTRO = re.compile(r"perspective|viewpoint|\bviews?\b|\blens|\bangles?\b|standpoint|\breadings\b|\bframings\b|"
                          r"\bways (?:to|of) (?:see|seeing|look|looking|read|reading|frame|framing|view|viewing)\b",
                          re.IGNORECASE)


# A part of the reply beside the views: risks, options, steps, caveats, notes, unknowns ("Risks to watch", "A note on
# uncertainty", "Limitations of this analysis", "Options on the table"), unless its title names a view
_ASIDE = re.compile(r"(?:(?:an?|the|some|key|main|my|our|important|open|next|remaining)[ \t]+)?(?:risks|pros|cons|options|"
                    r"steps|costs and benefits|trade-?offs|caveats|limitations|assumptions|uncertaint(?:y|ies)|notes|"
                    r"note on|questions|references|sources|appendix|disclaimers?|implementation|timeline|action items|"
                    r"unknowns|what (?:i|we) (?:don'?t|do not) know|counter-?(?:arguments?|points?)|objections|"
                    r"blind spots|pitfalls|what could go wrong)\b", re.IGNORECASE)
_NAMES_A_VIEW = re.compile(r"\b(?:views?|perspectives?|lens|angle|standpoint|viewpoint|officer|team|manager|lead|"
                           r"analyst|advocate|engineer|management)\b", re.IGNORECASE)


# an option, a scenario or a step by its label ("Option A: Comply", "Scenario 2 — ..."): a choice, not a view; a
# letter or a number word labels only apart from the word ("Staged formalization", "Pathone" are no "Stage D")
_OPTION = re.compile(r"(?:option|choice|alternative|scenario|step|phase|stage|path|course of action)(?:[ \t]*#?\d{1,2}|"
                     r"(?:[ \t]+#?|[ \t]*#)(?:[A-E]|one|two|three|four|five))\b", re.IGNORECASE)


def aside(title: str) -> bool:
    return bool(title) and (bool(_ASIDE.match(title)) or bool(_OPTION.match(title))) and not _NAMES_A_VIEW.search(title)


def stated_counts(text: str) -> set[int]:
    return {int(n) if n.isdigit() else _NUMBER_WORDS[n.lower()] for n in _STATED.findall(text)}


# --- where each layout starts a perspective: [(line index, title, rest of the line)] ------------------------

def synthesis_line(line: str) -> bool:
    """A heading, bold lead-in or short standalone line naming the synthesis, or a paragraph opening with one
    of the stop words."""
    if not line.strip():
        return False
    if STOP.match(line):
        return True
    title = title_of(line)
    return title is not None and bool(synth_title(title))


def synth_title(title: str) -> bool:
    """A title that names the synthesis, under any of its names, or says so in brackets ("Blue hat (synthesis)")."""
    return bool(_SYNTH_TITLE.match(title) or _SYNTH_ANYWHERE.search(title))


def title_of(line: str) -> str | None:
    """The title a heading, bold lead-in or short line stands for; None for an ordinary line of text."""
    m = HEADING.match(line)
    if m:
        return clean_title(m.group(2))
    m = BOLD.match(line)
    if m:
        return clean_title(m.group(1))
    words = line.strip().strip("*_").rstrip(":").split()
    if 0 < len(words) <= 6 and not line.strip().endswith((".", ",", ";")):
        return clean_title(line)
    return None


# A title that names the views as a set ("Perspectives", "Three different perspectives", "Views on the decision")
CONTAINER_TITLE = re.compile(r"(?:(?:the|some|my|our|different|several|key|main|other|possible|competing|multiple|"
                             r"two|three|four|five|six|[2-6])[ \t]+)*(?:perspectives|viewpoints|views|lenses|angles|"
                             r"standpoints)(?:[ \t]+(?:on|to consider|at play|considered)\b.*)?", re.IGNORECASE)


LABEL_WORD = re.compile(r"(?:perspective|viewpoint|view|lens|angle|stance)s?", re.IGNORECASE)


def alone_as_title(line: str) -> bool:
    """A short line that is a title, not a sentence: at most six words, no closing full stop, comma or colon-led
    text after it."""
    words = BULLET.sub("", line).strip().split()
    return 0 < len(words) <= 6 and not line.rstrip().endswith((".", ",", ";", "!")) and ": " not in line


def under_asides(lines: list[str]) -> set[int]:
    """The lines under a title that names a part beside the views (a heading or a bold line alone: "**Options on the
    table**", "## Risks"), to the next title: the options or risks listed there are no views."""
    under, inside = set(), False
    for i, line in enumerate(lines):
        m = HEADING.match(line) or BOLD.match(line)
        if m and (HEADING.match(line) or not m.group(2).strip()) and not BULLET.match(line.lstrip()):
            inside = aside(clean_title(m.group(2) if HEADING.match(line) else m.group(1)))
        elif inside:
            under.add(i)
    return under


def is_stop(line: str) -> bool:
    """A line where the synthesis begins: a heading, bold lead-in or short line naming it, or a plain line
    opening with a stop word."""
    return synthesis_line(line)


def title_and_rest(value: str) -> tuple[str, str]:
    """`**The Security View**: text` -> ("The Security View", "text"); `Security: text` -> ("Security", "text");
    a line with no title part is all text."""
    value = value.strip()
    if re.match(r"<?(?:https?://|www\.)", value):
        return "", value  # a link, not "https: ..."
    bold = BOLD.match(value)
    if bold:
        return clean_title(bold.group(1)), bold.group(2).strip()
    closed = _CLOSING_BOLD.match(value)
    if closed:  # "Full resistance.** Refuse ...": the bold that opened before the label closes after the title
        return clean_title(closed.group(1)).rstrip("."), closed.group(2).strip()
    head, sep, rest = value.partition(":")
    for dash in (" — ", " – ", " - "):
        if not sep:
            head, sep, rest = value.partition(dash)
    if sep and len(head) <= 60:
        return clean_title(head), rest.strip()
    if len(value) <= 60 and not value.endswith((".", "!", "?")):
        return clean_title(value), ""
    return "", value


def clean_title(value: str) -> str:
    value = _without_symbols(value.strip())
    value = _ORDINAL_LEAD.sub("", value.strip())
    value = _DECIMAL_LEAD.sub("", value)
    value = _PART_LEAD.sub("", value)
    value = value.strip().strip("*_:").strip().rstrip(":").strip()
    value = re.sub(r"(?<=[^\W\d_]{2})\.$", "", value)  # "**Leadership.** ...": the stop closes the lead-in, not the name
    named = NAMED_AS.match(value)
    return named.group(1).strip() if named else value


_PART_LEAD = re.compile(r"^(?:part|section)[ \t]+(?:\d{1,2}|[IVX]{1,4}|[A-E]|one|two|three|four|five)[ \t]*[:.—–-][ \t]+(?=\S)",
                        re.IGNORECASE)  # "Part 1: Perspectives": the part's label is not its title
_DECIMAL_LEAD = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}(?=[ \t]+[A-Z]))[ \t]+")
# "Perspective: the regulator", "Viewpoint — the customer": the word that labels the title is not the title
NAMED_AS = re.compile(r"^(?:perspective|viewpoint|view|lens|angle|stance)[ \t]*(?::|[—–]|[ \t]-)[ \t]*(\S.*)$",
                      re.IGNORECASE)


def _without_symbols(value: str) -> str:
    """A title without the emoji and symbols before it ("🔐 Security", "🧑‍💻 Engineering")."""
    while value and (unicodedata.category(value[0]) in ("So", "Sk", "Cf", "Mn") or value[0] in " \t\u200d"):
        value = value[1:]
    return value
