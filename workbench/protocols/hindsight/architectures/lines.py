"""Reading the structured lines the prompts ask for: numbered sections, motions, seconds, votes.

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


# A tag line: `VOTE: aye`, `**Vote**: In favour`, `SECOND — yes`, `My vote: nay`, `Final vote: aye` (a colon, dash
# or equals sign), or the key of a JSON object (`{"vote": "nay", ...}`).
def _tag_values(text: str, tag: str) -> list[str]:
    pattern = re.compile(r"^[ \t>#*_`\"“'{-]*(?:\d{1,2}[.)][ \t]+)?[*_]*(?:(?:my|final)[ \t]+)?" + tag + r"[\"”]?[ \t*_]*(?::|—|–|-|=)[ \t*_\"“]*(.*)$",
                         re.IGNORECASE | re.MULTILINE)
    return [_strip(m.group(1)) for m in pattern.finditer(text or "") if _strip(m.group(1))]


_VOTE_VALUE = [  # the value of a VOTE line, read from its first words (negations before what they negate)
    (re.compile(r"^(?:not in favou?r|opposed?|against|nay|no|reject)\b", re.IGNORECASE), "nay"),
    (re.compile(r"^(?:abstain\w*|abstention)\b", re.IGNORECASE), "abstain"),
    (re.compile(r"^(?:aye|yea|yes|for|in favou?r|support|approve)\b", re.IGNORECASE), "aye"),
]
_ANY_VOTE_WORD = re.compile(r"\b(?:aye|yea|nay|abstain\w*|in favou?r|against)\b", re.IGNORECASE)
# A vote said in words, without the tag line: "I vote aye", "I abstain", "I cannot support this motion".
_VOTE_PHRASES = [
    (re.compile(r"\bI(?:'m| am| will| shall|'ll)?[ \t]+(?:(?:hereby|formally|therefore|also|must|have to|reluctantly)"
                r"[ \t]+)?(?:vote|voting|cast my vote)[ \t]+(?:against|nay|no\b)", re.IGNORECASE), "nay"),
    (re.compile(r"\bI(?:'m| am| will| shall|'ll| must)?[ \t]+(?:(?:hereby|formally|therefore|also|must|have to)[ \t]+)?"
                r"(?:vote|voting|cast my vote)[ \t]+(?:aye|yea|yes|in favou?r|for)\b", re.IGNORECASE), "aye"),
    (re.compile(r"\bI(?:'m| am| will| shall|'ll| must)?[ \t]+(?:(?:hereby|formally|therefore|must|have to)[ \t]+)?"
                r"(?:abstain|abstaining)\b", re.IGNORECASE), "abstain"),
    (re.compile(r"\bI[ \t]+(?:oppose|reject)[ \t]+(?:the|this)[ \t]+(?:motion|amendment)\b", re.IGNORECASE), "nay"),
    (re.compile(r"\bI[ \t]+(?:cannot|can ?not|can't|do not|don't|will not|won't)[ \t]+support[ \t]+(?:the|this|that)[ \t]+"
                r"(?:motion|amendment)\b", re.IGNORECASE), "nay"),
    (re.compile(r"\bI(?:[ \t]+(?:fully|strongly|also|therefore|hereby))?[ \t]+support[ \t]+(?:the|this|that)[ \t]+"
                r"(?:motion|amendment)\b", re.IGNORECASE), "aye"),
    (re.compile(r"\bmy vote is[ \t]+(?:an?[ \t]+)?(?:nay|no|against)\b|\bcount me[ \t]+(?:against|out|as (?:a )?nay)\b",
                re.IGNORECASE), "nay"),
    (re.compile(r"\bmy vote is[ \t]+(?:an?[ \t]+)?(?:aye|yea|yes|in favou?r|for)\b|\bcount me[ \t]+(?:in favou?r|in|as "
                r"(?:an )?aye)\b", re.IGNORECASE), "aye"),
    (re.compile(r"\bmy vote is[ \t]+(?:an?[ \t]+)?(?:abstention|to abstain)\b", re.IGNORECASE), "abstain"),
    (re.compile(r"\bI(?:'m| am)[ \t]+(?:(?:firmly|strongly|therefore)[ \t]+)?(?:against|opposed)\b|\bI[ \t]+vote[ \t]+to[ \t]+"
                r"(?:reject|oppose|defeat)\b", re.IGNORECASE), "nay"),
    (re.compile(r"\bI(?:'m| am)[ \t]+(?:(?:firmly|strongly|therefore)[ \t]+)?in[ \t]+favou?r\b|\bI[ \t]+vote[ \t]+to[ \t]+"
                r"(?:adopt|approve|accept|pass|support)\b", re.IGNORECASE), "aye"),
]
# A reply that opens with its vote: "Aye.", "Nay. The motion ...", "Against.", "Aye from me — ...". The words that
# are only votes may lead a longer sentence; yes, no and for only stand alone ("Yes." but not "Yes, the funders ...").
_LEADING_VOTE = re.compile(r"^[ \t>#*_]*(aye|yea|nay|against|opposed|abstain(?:ing)?|abstention)\b|"
                          r"^[ \t>#*_]*(yes|no)[ \t]+from[ \t]+me\b", re.IGNORECASE)
_ALONE_VOTE = re.compile(r"^[ \t>#*_]*(yes|no|for|in favou?r)[ \t]*[.!]?$", re.IGNORECASE)
_VOTE_WORD = {"aye": "aye", "yea": "aye", "yes": "aye", "for": "aye", "in favour": "aye", "in favor": "aye",
              "nay": "nay", "no": "nay", "against": "nay", "opposed": "nay"}
# Words that make a reply a hedge or a condition rather than a decision.
_HEDGE = re.compile(r"\b(?:inclined|lean(?:ing)?|tempted|might|may|perhaps|maybe|possibly|undecided|unsure|not sure|"
                    r"if|unless|provided|would[ \t]+(?:\w+[ \t]+)?(?:if|once)|could|torn)\b", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:if|unless|provided|only once|on condition)\b", re.IGNORECASE)


def read_vote_value(value: str) -> str | None:
    """"aye", "nay" or "abstain" from a VOTE line's value; None when it names none, or more than one."""
    value = value.strip().strip("\"'`*_[]()").strip()
    found = [vote for pattern, vote in _VOTE_VALUE if pattern.match(value)]
    if len(found) != 1:
        return None
    first_clause = re.split(r"[.;,(—–\-]|\bbut\b", value, maxsplit=1)[0]
    others = {w.lower() for w in _ANY_VOTE_WORD.findall(first_clause)} - {"in favour", "in favor"}
    words = {"aye": {"aye", "yea"}, "nay": {"nay", "against"}, "abstain": set()}[found[0]]
    if any(o not in words and not o.startswith("abstain") or (o.startswith("abstain") and found[0] != "abstain")
           for o in others):
        return None  # "aye/nay", "abstain, leaning aye": two readings in one value
    return found[0]


def _tags_anywhere(text: str, tag: str) -> list[str]:
    """The values of `TAG:` wherever it stands in a line ("(Correction — VOTE: abstain)"), for the check that no
    tag in the reply says otherwise than its tag lines."""
    return [m.group(1) for m in re.finditer(r"\b" + tag + r"[ \t*_]*[:=][ \t*_]*([^\n)]*)", text or "", re.IGNORECASE)]


def parse_vote(text: str) -> tuple[str, str]:
    """(vote, reason): the vote from its `VOTE: ...` lines (all agreeing) or, with no such line, from one
    unhedged phrase ("I vote aye", "I abstain"); "unparsed" when there is neither, or the reply says two
    things. The reason is the rest of the reply."""
    values = _tag_values(text, "VOTE")
    if values:
        votes = {read_vote_value(v) for v in values + _tags_anywhere(text, "VOTE")}
        vote = votes.pop() if len(votes) == 1 else None
    else:
        vote = _vote_in_words(text)
    if vote is None:
        return "unparsed", (text or "").strip()
    reason_lines = [ln for ln in (text or "").splitlines()
                    if not re.match(_DECOR + r"(?:my[ \t]+)?VOTE[ \t*_]*(?::|—|–|-|=)", ln, re.IGNORECASE)]
    reason = "\n".join(reason_lines).strip()
    reason = re.sub(r"^[ \t>#*_]*REASON[ \t*_]*:[ \t*_]*", "", reason, flags=re.IGNORECASE)
    return vote, reason


def _vote_in_words(text: str) -> str | None:
    found = set()
    sentences = _sentences(text)
    lead = (_LEADING_VOTE.match(sentences[0]) or _ALONE_VOTE.match(sentences[0])) if sentences else None
    if lead:
        if _HEDGE.search(sentences[0]) or len(_ANY_VOTE_WORD.findall(sentences[0])) > 1:
            return None  # "Aye, if ...", "Aye on the principle, nay on the timeline"
        word = (lead.group(1) or lead.group(2)).lower()
        found.add("abstain" if word.startswith("abst") else _VOTE_WORD[word])
    for sentence in sentences:
        for pattern, vote in _VOTE_PHRASES:
            if pattern.search(sentence):
                if _HEDGE.search(sentence):
                    return None
                found.add(vote)
    return found.pop() if len(found) == 1 else None


# A second said in words: "I second the motion", "Seconded.", "I will not second", "I decline to second it".
_SECOND_VERB = re.compile(r"\bsecond(?:ed|ing|s)?\b(?![ \t]+(?:round|time|point|amendment|motion's|half|place|"
                          r"perspective|reading|opinion|thought|look|option|one|of|and|or|is|was|would))"
                          r"|\bsecond(?=[ \t]+(?:the|this|that|it)\b)", re.IGNORECASE)
_SECOND_AS_VERB = re.compile(
    r"(?:^|[^\w'])(?:I|I'll|I'd|I'm|we|will|would|shall|to|not|never|won't|don't|can't|wouldn't|gladly|happily|hereby|do|can|cannot|"
    r"happy to|glad to|willing to)[ \t]+(?:(?:not|hereby|gladly|happily|formally|also|still|be|certainly|"
    r"readily|in good conscience)[ \t]+)*second(?:ing)?\b|\b(?:be|am|as)[ \t]+the[ \t]+seconder\b|"
    r"^[ \t*_>#-]*second(?:ed)?[ \t]+(?:from|by)[ \t]+me\b|^[ \t*_>#-]*seconded\b|^[ \t*_>#-]*second(?:ed)?[ \t*_]*[.!]?[ \t*_]*$|"
    r"\bsecond(?:ed|ing)?[ \t]+(?:the|this|that|it)[ \t]+(?:motion|amendment)?|\bseconded\b",
    re.IGNORECASE)
_SECOND_NO = re.compile(r"\b(?:not|n't|never|no|decline[sd]?|declining|refuse[sd]?|refusing|unable|won't|cannot|"
                        r"can't|against)\b", re.IGNORECASE)
_LEADING_ANSWER = re.compile(r"^[ \t*_>#]*(yes|no|aye|nay|nope|not at this time|not now)\b"
                             r"(?![ \t]+(?:one|amendments?|motion|second|to\b))", re.IGNORECASE)
# "I decline.", "I must respectfully decline", "No second from me": a refusal as the reply's first sentence
_LEADING_DECLINE = re.compile(r"^[ \t*_>#]*(?:I[ \t]+(?:(?:must|will|have to|respectfully|politely)[ \t]+)*decline\b|"
                              r"(?:no|not a)[ \t]+second(?:er)?[ \t]+(?:from|by)[ \t]+me\b)", re.IGNORECASE)
# a turn within a sentence: what follows "but" or a semicolon is said apart from what precedes it
_CLAUSE_TURN = re.compile(r"\bbut\b|\bhowever\b|;", re.IGNORECASE)


def parse_second(text: str) -> bool | None:
    """True/False from `SECOND: yes|no` lines (all agreeing) or, with none, from what the reply says in words
    ("I second the motion", "Seconded.", "I will not second it", a leading "Yes," or "No."); None when it says
    neither, hedges ("I'm inclined to second") or says both."""
    values = _tag_values(text, "SECOND")
    if values:
        readings = {_second_value(v) for v in values + _tags_anywhere(text, "SECOND")}
        return readings.pop() if len(readings) == 1 else None
    readings = set()
    for n, sentence in enumerate(_sentences(text)):
        lead = _LEADING_ANSWER.match(sentence) if n == 0 else None
        if lead:
            readings.add(lead.group(1).lower() in ("yes", "aye"))
        if n == 0 and _LEADING_DECLINE.match(sentence) and not _HEDGE.search(sentence):
            readings.add(False)
            continue
        for clause in _CLAUSE_TURN.split(sentence):  # "Some may say yes, but I decline to second": the clause's own
            if not _SECOND_AS_VERB.search(clause):
                continue
            if _HEDGE.search(clause):
                return None
            readings.add(not _SECOND_NO.search(re.split(r"second", clause, maxsplit=1, flags=re.IGNORECASE)[0]))
    return readings.pop() if len(readings) == 1 else None


def _second_value(value: str) -> bool | None:
    word = re.match(r"[A-Za-z]+", value.strip().strip("\"'`*_[]()"))
    if not word:
        return None
    reading = {"yes": True, "aye": True, "seconded": True, "second": True, "no": False, "nay": False, "nope": False,
               "decline": False, "declined": False, "not": False}.get(word.group(0).lower())
    if reading is not None and _CONDITION.search(value):
        return None  # "yes, if the cost cap is added": a condition, not a second
    first_clause = re.split(r"[.,;:—–(]", value, maxsplit=1)[0]
    if reading is not None and re.search(r"\b(?:yes|aye|seconded)\b", first_clause, re.IGNORECASE) \
            and re.search(r"\b(?:no|nay|nope|decline[sd]?)\b", first_clause, re.IGNORECASE):
        return None  # "yes / no": both answers, neither chosen
    return reading


def _sentences(text: str) -> list[str]:
    """The reply's sentences and lines, markdown emphasis dropped."""
    flat = re.sub(r"[*_`]+", "", text or "")
    return [s.strip() for s in re.split(r"(?<=[.!?])[ \t]+|\n+", flat) if s.strip()]


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
