"""B3 reader: prose series: paragraphs opened by an ordinal or a perspective phrase (`First, ...`, `From a
legal standpoint, ...`), parallel lead-ins (`For the lawyer, ...`), and quoted voices (`"..." — the CISO`).
"""

from __future__ import annotations

import re

from workbench.protocols.hindsight.architectures.perspectives.sections import paragraph_at
from workbench.protocols.hindsight.architectures.perspectives.titles import (
    ABOUT_THE_SET, INTRO_TITLE, OWN_VOICE, STOP, aside, clean_title, synthesis_line,
)


# "As a result, ...", "As a first step, ...", "As the situation stands, ...": stock phrases, no role taken
_NO_ROLE = (r"(?!(?:result|first step|rule|whole|consequence|matter of fact|reminder|starting point|aside|"
            r"(?:situation|case|matter|question|dilemma|problem) (?:stands|is)|(?:last|final) (?:step|resort|point))\b)")
_ANAPHORA = r"(?!(?:this|that|these|those|each|every|all|both|my|our|either|such) )"
# an adverb that names a lens ("Legally,", "Reputationally,"), not one that orders or hedges ("Finally,", "Ideally,")
_LENS_ADVERB = (r"(?!(?:final|addition|ultimate|general|personal|realistic|practical|basic|actual|ideal|natural|"
                r"specific|typical|fundamental|critical|real|usual|equal|initial|especial|essential|potential|"
                r"incidental|occasional|logical|theoretical|frank|hopeful|traditional|conditional|additional|"
                r"eventual|optional|original)ly\b)[A-Z][a-z]{2,}(?:al|ic)ly")
# people by their part ("engineers", "investors", "journalists", "residents", "the lawyer", "the security team"), not
# words that end alike ("others", "starters", "matters", "the latter")
_ROLE = (r"(?!(?:others?|starters|matters?|latter|former|order|better|rather|together|further|either|neither|"
         r"moments?|present|events?|moments|contents|comments|elements|components|requirements|agreements)\b)"
         r"(?:[\w-]+(?:ers?|ors?|ists?|ians?|ants|ents)|teams?|staff|people|public|board|management|leadership|"
         r"communit(?:y|ies)|government|press|media)\b")
# "... see it the other way round", "... views the question differently": how someone sees the matter, now
_SEES = (r" (?:sees?|views?|reads?|frames?) (?:it|this|that|things|the (?:\w+ )?(?:matter|issue|question|decision|"
         r"choice|problem|risk|situation|trade-?off))\b")
PROSE = re.compile(
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
    r"(on (?:the )?(?:one|other) hand|from where (?:the |a |an )?[^,.:;]{1,40}? (?:sits?|stands?))\b|"
    # "The CFO would probably say ...", "An outside ethicist would go further": a view in someone's voice
    r"((?:the|an?) (?:[\w'’-]+ ){0,4}?[\w'’-]+)(?= (?:would|might|will|could) (?:(?:probably|likely|certainly|also|"
    r"instead|surely|then) )?(?:say|see|argue|point|ask|insist|stress|worry|focus|want|go|view|frame|reply|counter|"
    r"object|add|note|respond|read|call|look|care|warn|urge)\b|" + _SEES + r")|"
    # "For product and customer-facing teams, ...": the people the paragraph speaks for
    r"for (?:the |an? |our |your |its |their )?" + _ANAPHORA + r"((?:[\w'’-]+ ){0,5}?" + _ROLE + r")(?=,)|"
    # "Application engineers see it the other way round.": people by their part, no article
    r"(" + _ANAPHORA + r"(?:(?!(?:how|what|why|who|would|will|could|might|should|do|does|did|if|when|the|an?)\b)"
    r"[\w'’-]+ ){0,3}?" + _ROLE + r")(?=" + _SEES + r")|"
    # "Now take the view from customer success, ...", "Next, consider the perspective of the board.": the author
    # bids the reader take a view, in the sentence that opens its paragraph
    r"(?:(?:now|next|then),?[ \t]+)?(?:take|consider|try|adopt|hear|start with|begin with)[ \t]+the[ \t]+"
    r"(?:view|perspective|standpoint|vantage point|angle)[ \t]+(?:from|of)[ \t]+" + _ANAPHORA +
    r"([^,.:;!?—–()\n]{2,60}?)(?=[ \t]*[,.:;!?—–(]|$)|"
    # "Think about it as the founder who runs both motions.", "Look at it through the eyes of the users."
    r"(?:(?:now|next|then),?[ \t]+)?(?:think about|look at|see)[ \t]+(?:it|this|things|the (?:\w+ )?(?:decision|"
    r"question|matter|choice))[ \t]+(?:as|through the eyes of|from the side of)[ \t]+((?:the|an?)[ \t]+"
    r"[^,.:;!?—–()\n]{2,60}?)(?=[ \t]*[,.:;!?—–(]|$))",
    re.IGNORECASE)
# An opening that frames the decision rather than views it
FRAMES = re.compile(r"\b(?:this is (?:a|an)|at stake|the (?:situation|decision|dilemma|question|scenario|case) "
                    r"(?:is|here)|there are (?:several|many|a few|three|four|five)|let'?s|before (?:looking|we))\b",
                    re.IGNORECASE)


def prose_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out, kinds = [], []  # kinds: which of PROSE's openings each start is
    before = []  # the paragraphs' openings before the first view: one may open the series in other words
    for i, line in enumerate(lines):
        if i and lines[i - 1].strip():
            continue  # a paragraph's first line
        if synthesis_line(line) and out:
            break
        bare = line.lstrip(" \t*_")  # "*Through the eyes of the on-call engineer*": emphasis is no text
        m = PROSE.match(bare)
        if m and not STOP.match(bare):
            phrase = next(g for g in m.groups() if g)
            if m.group(1):
                title = _ordinal_title(bare[m.end():])
                if INTRO_TITLE.match(title) or aside(title):
                    continue  # "Firstly, some context: ...": the introduction counts itself first
                inner = PROSE.match(bare[m.end():].lstrip(" \t,:"))
                if not title and inner and not inner.group(1):  # "Finally, from the commander's point of view, ..."
                    title = clean_title(next(g for g in inner.groups() if g))
            elif m.group(5):  # "A third view is about the people outside the room": the view names itself after it
                title = _named_after(bare[m.end():]) or _named_within(paragraph_at(lines, i)) or clean_title(phrase)
            else:
                title = clean_title(phrase)
            if _HAND.fullmatch(title):  # "On one hand, the security team would see ...": a side, named after it
                inner = PROSE.match(bare[m.end():].lstrip(" \t,:"))
                title = clean_title(next(g for g in inner.groups() if g)) if inner and not inner.group(1) else ""
            if not title or UNNAMED.fullmatch(title):  # "Finally, there's the perspective of *the operators*"
                title = _named_in_opening(bare[m.end():], paragraph_at(lines, i)) or title
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
        return re.split(r"(?<=[.!?])\s", paragraph_at(lines, i), maxsplit=1)[0]

    voiced = [bool(OWN_VOICE.search(first_sentence(i))) for i, _, _ in out]
    middle = {kinds[n] for n in range(1, len(out) - 1)}
    if len(middle) != 1:
        return out
    main = [n for n in range(len(out)) if kinds[n] in middle]
    if any(voiced[n] for n in main):
        return out
    first, last = first_sentence(out[0][0]), first_sentence(out[-1][0])
    odd = {n for n, says in ((0, FRAMES.search(first) or ABOUT_THE_SET.search(first) or _INTRO_SAYS.search(first)),
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
_SERIES_SECOND = re.compile(r"^(?:second(?:ly)?\b|(?:a|the) second\b|another\b|(?:now|next),?[ \t]+(?:take|consider|"
                            r"try|adopt|hear|think|look)\b)", re.IGNORECASE)


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
    sees = _HOW_SEES.match(lead)  # "Start with how a growth-stage investor would see it."
    title = _named_after(rest) or (clean_title(sees.group(1)) if sees else "") or (
        clean_title(lead) if len(lead.split()) <= 6 else "")
    return [(i, title, lines[i].strip())] + out


_HOW_SEES = re.compile(r"^(?:how|what)[ \t]+((?:an?|the)[ \t]+[\w'’ -]{2,40}?)[ \t]+(?:would|might|will|does|do)[ \t]+"
                       r"(?:see|view|read|frame|make of|say about)\b", re.IGNORECASE)
# What a view's opening calls it after its ordinal: "... is as a negotiation", "... is about the people outside the
# room", "... is that of the mission", "... is the funders'"
_NAMED_AFTER = re.compile(r"^[ \t]*,?[ \t]*(?:is|would be)[ \t]+(?:(?:as|about|that of|through|from)[ \t]+|(?=(?:the|an?)[ \t]))"
                          r"([^,.:;!?—–()\n]{2,60}?)[ \t]*(?=[,.:;!?—–(]|$)", re.IGNORECASE)
# What a view with no name in its opening calls the matter in its paragraph: "... it's extortion.", "this is a trap."
_NAMED_WITHIN = re.compile(r"\b(?:it|this)(?:'s|’s| is)[ \t]+(?:(?:simply|just|plainly|really|basically)[ \t]+)?"
                           r"((?:(?:an?|the)[ \t]+)?[\w'’-]+(?:[ \t]+[\w'’-]+){0,2}?)[ \t]*(?=[.;!]|$)", re.IGNORECASE)


# A title that is only a view's label or its place ("The first perspective", "Another view", "A third way to see it"):
# it says where a view stands, not whose it is
UNNAMED = re.compile(r"(?:(?:the|a|an|one|another|my)[ \t]+)?(?:(?:first|second|third|fourth|fifth|sixth|final|last|"
                     r"other|further|next)[ \t]+)?(?:perspective|view|viewpoint|lens|angle|way(?:[ \t]+(?:to|of)[ \t]+"
                     r"[\w ]{1,30})?)?", re.IGNORECASE)
# "On the one hand", "On the other hand": which side, not whose
_HAND = re.compile(r"on (?:the )?(?:one|other) hand", re.IGNORECASE)
# "... there's the perspective of the operators", "... is that of the users": the view named by whose it is
_WHOSE = re.compile(r"^[ \t,]*(?:[\w'’]+[ \t]+){0,4}?(?:is|there(?:'s|’s| is))[ \t]+(?:that|the[ \t]+(?:perspective|view|"
                    r"viewpoint|standpoint|angle|lens))[ \t]+of[ \t]+[*_]*([^,.:;!?—–()*_\n]{2,60}?)[ \t*_]*"
                    r"(?:(?<=[ \t*_])(?:themselves|itself|himself|herself|alone|too)[ \t]*)?(?=[,.:;!?—–(]|$)",
                    re.IGNORECASE)
# a name set in emphasis in a sentence ("... is that of *Glenda's users*."): the reply's own mark for the view's name
_EMPHASISED = re.compile(r"(?<![*_\w])(\*\*|__|\*|_)(?=[^\s*_])([^*_\n]{2,60}?)(?<=\S)\1(?![*_\w])")


def _named_in_opening(rest: str, paragraph: str) -> str:
    """The name a view's opening sentence gives it where its lead-in gives only its place: whose view it is
    ("... there is the perspective of the operators", "... I'd consider is that of the users"), or the words it sets
    in emphasis (at most six, opening with a capital or an article: a name, not a stressed word)."""
    whose = _WHOSE.match(rest)
    if whose and len(whose.group(1).split()) <= 6:
        return clean_title(whose.group(1))
    sentence = re.split(r"(?<=[.!?])[*_]*\s", paragraph, maxsplit=1)[0]
    names = [m.group(2) for m in _EMPHASISED.finditer(sentence) if len(m.group(2).split()) <= 6
             and re.match(r"[A-Z]|(?:the|an?|its|their|our|your)[ \t]", m.group(2))]  # a name, not "*much* more"
    return clean_title(names[0]) if len(names) == 1 else ""


def _named_after(rest: str) -> str:
    m = _NAMED_AFTER.match(rest)
    return clean_title(m.group(1)) if m and len(m.group(1).split()) <= 6 else ""


def _named_within(paragraph: str) -> str:
    m = _NAMED_WITHIN.search(paragraph)
    return clean_title(m.group(1)) if m else ""


# A paragraph that quotes a voice and names it after the quote: `"My job is ..."` then `— the CISO` (on its line or
# after the closing mark)
_QUOTED = re.compile(r"^[*_]*[\"“‘'].+[\"”’'][*_]*\s*(?:[—–]|--?)[ \t]*([^\n—–\"“”]{2,60}?)[ \t*_]*$", re.DOTALL)


def quoted_starts(lines: list[str]) -> list[tuple[int, str, str]]:
    out = []
    for i, line in enumerate(lines):
        if not line.strip() or (i and lines[i - 1].strip()):
            continue  # a paragraph's first line
        if synthesis_line(line) and out:
            break
        m = _QUOTED.match(paragraph_at(lines, i, joined="\n"))
        if m:
            out.append((i, clean_title(m.group(1)), line.strip()))
    return out


# "For the lawyer, ...", "For the funder, ...", "For the user, ...": paragraphs opening alike, one phrase apart
_LEAD = re.compile(r"^([^,:;.!?\n]{2,80}?)[ \t]*(?:,|:|[ \t][—–-][ \t])")
# a condition or a sentence's subject and verb is no view's template ("If Glenda complies, ...", "It is ..."); taking a
# role is ("If you are the engineer, ...")
_NOT_A_TEMPLATE = re.compile(r"^(?:if(?! (?:you(?:'re| are)|i(?:'m| am| were)|we(?:'re| are)) (?:the|an?)\b)|when|whether|unless|once|should|it|this|that|there|we|i|you|they|he|she|but|and|"
                             r"so|then|also|however|still|yet|because|since|after|before|while|although|though)\b",
                             re.IGNORECASE)


def parallel_starts(lines: list[str]) -> list[tuple[int, str, str]]:
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
            run.append((i, clean_title(" ".join(words[k:])), line))
        titles = [t for _, t, _ in run]
        if len(run) >= 3 and len({t.casefold() for t in titles}) == len(run) and len(run) > len(best) \
                and all(re.search(r"[^\W\d_]{2}", t) and not aside(" ".join(prefix) + " " + t) for t in titles):
            best = run
    return best


def _ordinal_title(after: str) -> str:
    """The view an ordinal names before a colon ("First, the investor's view: ..."), or none."""
    head, colon, _ = after.strip(" \t,").partition(":")
    return clean_title(head) if colon and 0 < len(head.split()) <= 6 else ""
