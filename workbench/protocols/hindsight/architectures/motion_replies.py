"""A committee member's second and vote, read from their reply whatever its format (issue 41).

A reply is first taken as the member said it: up to the end of its turn (what a small model writes after
`<|im_end|>` is a turn it made up), without the instruction or its options echoed ("VOTE: aye, VOTE: nay or VOTE:
abstain"), a compliance opener ("Certainly! Here's my answer:") or a reasoning trace, with an options label
("YES/NO: No") read as the answer's label and an opening stage direction ("(The Auditor seconds the motion.)") as
the speaker's own act. Then it is read in two passes, and both must agree:

- tag lines in any format: `SECOND: yes`, `**Vote** — Nay`, `vote = aye`, `vote aye`, `Second? Yes.`,
  `My vote: in favour`, `Decision: abstain`, `Answer: VOTE: nay`, a JSON key (`{"vote": "nay"}`, `"second":
  true`), a check mark, a thumb or `+1` / `-1` / `0` for the value, a struck-through value withdrawn (`VOTE:
  ~~aye~~ nay`), a refusal with what would change it kept (`SECOND: no (would second if amended)`), and of
  several tags the one labelled final (`Final: VOTE: nay`) where no other is;
- statements in the member's own words, sentence by sentence and clause by clause: "I second the motion", "You
  have my second", "I will not be seconding it", "I'll pass", "I vote against", "Count me in favour", "I abstain",
  "The motion has my support", "I'm a no", or a reply that opens with its answer ("Aye.", "No, I won't.",
  "Respectfully, nay.", "+1 — let's debate it"), the answer word standing apart from what follows it (not "No organization should ...").

Only the member's own statements on this motion count: a question ("Should I second?"), a sentence about someone
else ("Others may vote nay"), a gerund ("Abstaining is not an option"), or what the member would do on another
motion or ballot ("I'd vote aye on an amended version", "I'd second a motion for a smaller team", "I'll still vote
for the pilot itself") says nothing, so a reason that mentions the other answer leaves the tag standing. A hedged
or conditional statement ("I'm inclined to second", "aye if the cap is added") makes the reply unreadable, as do two
readings that differ, and two tag lines that differ under a bare label ("VOTE: aye", then "Correction: VOTE: nay":
writers split on which stands); where the member says it changes its answer between them ("Correcting my vote:",
"I want to withdraw that", "Scratch that"), the later stands, as every outside writer read it. A change of mind
stated in words ("SECOND: yes. On reflection I can't second this", "so I'll change my vote to abstain") reads
what is said from it on: every outside writer read that as the answer. Nothing is guessed:
a reply that says neither is None (a second) or "unparsed" (a vote), asked again once, then counted unreadable,
never as "no".
"""

from __future__ import annotations

import json
import re
import unicodedata

YES, NO, ABSTAIN = "yes", "no", "abstain"
NOT_CAST = "not cast"  # a vote said not to be cast: an abstention where negated, nothing where not

# --- the text as read: markup, symbols and reasoning traces off ------------------------------------------------

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.IGNORECASE | re.DOTALL)
# (not <s>…</s>: `</s>` ends a Llama turn)
_STRUCK = re.compile(r"~~[^~\n]+~~|<(del|strike)>[^<\n]*</\1>", re.IGNORECASE)
_TAG_HTML = re.compile(r"</?[a-z][^>\n]*>", re.IGNORECASE)
# a chat template's tokens a small model writes out ("<|im_end|>", "[/INST]"; "<eos>" is HTML-like above)
_TEMPLATE_TOKEN = re.compile(r"<\|[^|\n]{1,30}\|>|\[/?INST\]", re.IGNORECASE)
# the end of the model's turn: what a small model writes after it is a turn it made up ("<|im_end|><|im_start|>user
# Vote again: ...")
_END_OF_TURN = re.compile(r"<\|(?:im_end|eot_id|end|endoftext)\|>|<end_of_turn>|</s>|<eos>", re.IGNORECASE)
_ARROWS = {"→": ":", "⇒": ":", "->": ":", "=>": ":"}


# a thumb, tick or cross as a tag's value ("VOTE: 👎"); alone, with no tag, it is no answer (read, it would be a
# guess)
_MARK_VALUE = re.compile(r"((?:second|vote)\w*[*_ \t]*[:=—–-][*_ \t]*)(👍|✅|✔️?|☑️?|👎|❌|✖️?|✗|✘)",
                         re.IGNORECASE)
# a checklist's ticked box is the answer ("- [x] Aye"); an unticked one says nothing
_CHECKED = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[[xX✓✔]\][ \t]*(.+)$", re.MULTILINE)
_UNCHECKED = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[[ \t]?\][ \t]*.*$", re.MULTILINE)
_TABLE_LINE = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$")
_TABLE_TAG = re.compile(r"[*_ ]*(?:second\w*|vote|voting|decision|answer)[*_ ]*", re.IGNORECASE)


def _plain(text: str) -> str:
    """The reply up to the end of its turn, without reasoning traces, HTML, template tokens, markdown emphasis and
    symbols; an arrow as a tag's separator, a table's cells as tag lines."""
    text = _THINK.sub(" ", text or "")
    text = next((turn for turn in _END_OF_TURN.split(text) if turn.strip()), "")
    text = _STRUCK.sub(" ", text)  # "VOTE: ~~aye~~ nay": struck-through words are withdrawn
    text = _TAG_HTML.sub(" ", _TEMPLATE_TOKEN.sub(" ", text))
    text = _MARK_VALUE.sub(lambda m: m.group(1) + (" yes" if m.group(2)[0] in "👍✅✔☑" else " no"), text)
    text = _tables_as_tags(text)
    text = _CHECKED.sub(r"answer: \1", _UNCHECKED.sub("", text))
    for mark, word in _ARROWS.items():
        text = text.replace(mark, word)
    text = "".join(c for c in text if unicodedata.category(c) not in ("So", "Sk", "Cf", "Cs", "Co"))
    text = re.sub(r"[*_`~]+", "", text)
    text = re.sub(r"^[ \t]*(?:#{1,6}|>+|[-+•][ \t])[ \t]*", "", text, flags=re.MULTILINE)
    return text.replace("’", "'").replace("“", '"').replace("”", '"')


def _tables_as_tags(text: str) -> str:
    """A markdown table as tag lines: `header: cell` per row where a column is headed as the tag (`| Vote | Reason |`
    over `| Nay | ... |`), else a two-column table's rows as `key: value` (`| Second | No |`)."""
    out: list[str] = []
    header: list[str] | None = None
    for line in text.splitlines():
        row = _TABLE_LINE.match(line)
        if not row:
            header = None
            out.append(line)
            continue
        cells = [c.strip() for c in row.group(1).split("|")]
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            continue
        if header is None:
            header = cells
            out.append("")
            continue
        if any(_TABLE_TAG.fullmatch(h) for h in header):
            out += [f"{h}: {c}" for h, c in zip(header, cells) if h and c]
        elif len(cells) == 2:
            out.append(f"{cells[0]}: {cells[1]}")
    return "\n".join(out)


# --- what is said around the answer and is not it: the options echoed, a compliance opener ----------------

# the answers to choose from: listed each once, with nothing else on the line, they are the instruction echoed
_OPTIONS = {"second": r"yes|no|aye|nay", "vote": r"aye|nay|abstain|yes|no|for|against"}
_ECHO_FILLER = re.compile(r"second|vote|or|and|either|reply|with|one|line|answer|options?|choose|from|then")
# the options as a label, the answer after it ("YES/NO: No"): the label starts the member's answer
_OPTIONS_LABEL = re.compile(r"\b(?:yes|aye)[ \t]*/[ \t]*(?:no|nay)(?:[ \t]*/[ \t]*abstain)?[ \t]*:[ \t]*",
                            re.IGNORECASE)
# a chat model's compliance opener before its answer ("Certainly. Here's my answer:"): politeness, not a yes
_COMPLIANCE = re.compile(r"^[ \t]*(?:certainly|sure|of course|absolutely|ok(?:ay)?|alright|great|understood)"
                         r"[ \t]*[.!,]*[ \t]*(?=here(?:'s|[ \t]+is|[ \t]+are)\b)", re.IGNORECASE | re.MULTILINE)
# a stage direction that opens the reply, in the third person: the speaker's own act ("(The Auditor seconds the
# motion.)")
_STAGE_DIRECTION = re.compile(r"\A[ \t\n]*\((?:the[ \t]+)?[A-Z][\w'-]*(?:[ \t]+[A-Z][\w'-]*){0,3}[ \t]+"
                              r"(?P<verb>seconds|votes|abstains|declines)\b(?P<rest>[^()\n;:]{0,60})\)[ \t]*$",
                              re.MULTILINE)


def _without_echoes(kind: str, text: str) -> str:
    """The reply without the lines that only list the options ("VOTE: aye, VOTE: nay or VOTE: abstain")."""
    kept = []
    for line in text.splitlines():
        words = re.findall(r"[a-z']+", line.lower())
        options = [w for w in words if re.fullmatch(_OPTIONS[kind], w)]
        if (len(options) >= 2 and len(set(options)) == len(options)
                and all(w in options or _ECHO_FILLER.fullmatch(w) for w in words)):
            continue
        kept.append(line)
    return "\n".join(kept)


def _as_said(kind: str, text: str) -> str:
    """The reply as the member's own words: the instruction's options echoed and a compliance opener off, an options
    label as the answer's, an opening stage direction in the first person."""
    text = _OPTIONS_LABEL.sub("\nanswer: ", _COMPLIANCE.sub("", _without_echoes(kind, text)))
    return _STAGE_DIRECTION.sub(lambda m: f"I {m.group('verb')[:-1]}{m.group('rest')}.", text)


# --- what a value says: "Aye", "in favour", "not in favour", "Affirmative", "decline" ----------------------------

_WORDS = {
    "second": [
        (NO, r"no|n|nay|nope|negative|not|never|decline[sd]?|declining|refuse[sd]?|pass|false|withh[eo]ld\w*|none|"
             r"nothing|don'?t|won'?t|cannot|can'?t|unable|unwilling|reject\w*|oppose[sd]?|against"),
        (YES, r"yes|y|aye|yea|yep|yeah|seconded|second|seconding|affirmative|agreed?|sure|gladly|happily|absolutely|"
              r"certainly|definitely|of course|true|ok|okay|willing|happy to"),
    ],
    "vote": [
        (NO, r"not in favou?r|no|n|nay|nope|negative|against|oppose[sd]?|opposing|reject\w*|disapprove[sd]?|"
             r"vote no|false|contra"),
        (ABSTAIN, r"abstain\w*|abstention|present|neither|neutral|recuse[sd]?"),
        (YES, r"yes|y|aye|yea|yay|yep|for|in favou?r|support\w*|approve[sd]?|affirmative|agree[sd]?|true|pro|"
              r"endorse[sd]?|accept\w*"),
    ],
}
_CONDITION = re.compile(r"\b(?:if|unless|provided|providing|as long as|only once|on condition|assuming|pending|"
                        r"were it not|but for|only with(?:out)?)\b",
                        re.IGNORECASE)
_DOUBT = (r"inclined|lean(?:s|ing)?|tempted|maybe|perhaps|possibly|probably|undecided|unsure|not sure|uncertain|torn|"
          r"on the fence|tentative\w*|for now")
_HEDGE = re.compile(r"\b(?:" + _DOUBT + r"|might|could)\b", re.IGNORECASE)
_DOUBTS = re.compile(r"\b(?:" + _DOUBT + r")\b", re.IGNORECASE)  # anywhere in a tag's value, not only its first words


# a refusal, then what the member would do were the motion changed: "no (would second if amended)", "nay; I'd
# vote aye if the cap were added" (the motion as moved is refused; a yes or an abstention with a condition is not read)
_REFUSAL_UNTIL = re.compile(r"(?:no|nay|against)\b[ \t]*[(,;:.—–-]+[ \t]*(?:(?:but|though|although)[ \t]+)?"
                            r"(?:I[ \t]*(?:'d|would)|would)[ \t]+(?:second|support|back|vote|reconsider|"
                            r"change)\b", re.IGNORECASE)
_REASON_STARTS = re.compile(r"\b(?:because|since|given that)\b", re.IGNORECASE)
# Apache-style votes: "+1" for, "-1" against, "0" neither
_SIGNED = re.compile(r"(?P<sign>[+\-−–±]?)(?P<digit>[01])(?![\d.,/]?\d)")


def _signed(kind: str, value: str) -> str | None:
    m = _SIGNED.match(value)
    if not m or (m.group("digit") == "1" and not m.group("sign")):
        return None  # a bare "1" may be the first of the options
    if m.group("digit") == "0":
        return ABSTAIN if kind == "vote" else None
    return YES if m.group("sign") == "+" else NO


def _value(kind: str, value: str) -> str | None:
    """The reading of a tag's value from its first words; None when it names none, hedges, or names two."""
    value = value.strip().strip("\"'[]()<>.:!").strip()
    if not value or re.match(r"n/?a\b|tbd\b|none\b", value, re.IGNORECASE):
        return None  # "N/A", "TBD": no answer
    first_clause = re.split(r"[.;,(—–]|\s-\s|\bbut\b|\bbecause\b|\bas\b", value, maxsplit=1)[0]
    answer = _REASON_STARTS.split(value, maxsplit=1)[0]  # "no, because if they reject ...": the reason's "if"
    if (_CONDITION.search(answer) and not _REFUSAL_UNTIL.match(value)) or _DOUBTS.search(answer) or \
            _HEDGE.search(first_clause):
        return None  # "yes, if the cost cap is added first", "abstain, perhaps"
    found = [reading for reading, words in _WORDS[kind] if re.match(r"(?:" + words + r")\b", value, re.IGNORECASE)]
    if not found and _signed(kind, value):
        found = [_signed(kind, value)]
    if not found:
        return _in_words(kind, value)  # "Second: I second the motion", "Vote: I am against it"
    # a value of bare words only ("yes, no", "aye / nay") is read whole: its comma is no clause break
    scope = value if re.fullmatch(r"(?:[\w']+[ \t]*[,/|&]?[ \t]*){1,4}", value) else first_clause
    others = {reading for reading, words in _WORDS[kind]
              if re.search(r"\b(?:" + words + r")\b", scope, re.IGNORECASE)}
    if kind == "vote" and found[0] == NO:
        others.discard(YES)  # "not in favour", "against the motion's support of ..."
    if kind == "second" and found[0] == NO:
        others.discard(YES)  # "no, I won't second", "not seconded"
    if others - {found[0]}:
        return None  # "aye/nay", "yes / no"
    return found[0]


# --- tag lines ----------------------------------------------------------------------------------------------

_TAG_NAMES = {
    "second": r"second(?:ed|ing)?|(?:final )?answer|decision|response|reply",
    "vote": r"vote|voting|ballot|(?:final )?answer|decision|position",
}
_SEPARATOR = r"[ \t]*(?:\?|:|=|—|–|-|\bis\b)[ \t:=]*\n?[ \t]*"  # the value may stand on the next line
# the answer words that may follow the tag with no separator: nothing else ("Second, no one ...", "vote for it" are
# read as statements)
_BARE_VALUES = {"second": r"yes|no|aye|nay|yea|yep|nope", "vote": r"aye|nay|abstain|yes|no|yea"}


def _tag_values(kind: str, text: str) -> list[tuple[int, int, str]]:
    """(start, end, value) of every tag in the reply: at a line's start (`Vote: aye`, `1. SECOND — no`,
    `My vote = nay`), or `VOTE:` / `SECOND=` within a line ("(Correction — VOTE: abstain)")."""
    names = _TAG_NAMES[kind]
    # the tag may carry the prompt's options ("SECOND (yes/no): no") or stand in brackets ("[VOTE] aye")
    line_tag = re.compile(r"^[ \t\"'{(\[]*(?:\d{1,2}[.)][ \t]+)?(?:(?:my|final|the|our|member'?s?)[ \t]+)?(?:" + names +
                          r")[\"']?(?:[ \t]*[(\[][^)\]\n]{0,30}[)\]])?" + _SEPARATOR + r"(\S.*)$|"
                          r"^[ \t]*\[(?:" + names + r")\][ \t:=]*(\S.*)$|"
                          # the separator left out, the answer word after the tag ("second no", "vote aye")
                          r"^[ \t]*(?:" + kind + r")[ \t]+((?:" + _BARE_VALUES[kind] + r")\b.*)$",
                          re.IGNORECASE | re.MULTILINE)
    # a label before the tag is a label ("Answer: SECOND: no", "Final answer: VOTE: abstain"): the inner tag's value
    nested = re.compile(r"(?:" + names + r")" + _SEPARATOR + r"(\S.*)$", re.IGNORECASE)

    def innermost(value: str) -> str:
        while inner := nested.match(value):
            value = inner.group(1)
        return value

    found = [(m.start(), m.end(), innermost(m.group(1) or m.group(2) or m.group(3))) for m in line_tag.finditer(text)]
    # (a tag in quotation marks within a line is the prompt's instruction echoed: 'Reply with one line "SECOND: no"')
    inside = re.compile(r"(?<![\w'\"“])(?:" + ("second" if kind == "second" else "vote") +
                        r")[ \t]*[:=][ \t]*([^\n)\]\"”]+)", re.IGNORECASE)
    found += [(m.start(), m.end(), m.group(1)) for m in inside.finditer(text)
              if not any(start <= m.start(1) < end for start, end, _ in found)]
    return sorted(found)


def _json_values(kind: str, text: str) -> list[tuple[int, int, str]]:
    """The value of the `second` or `vote` key of a JSON object in the reply (true and false as yes and no)."""
    key = {"second": ("second", "seconded", "seconding"), "vote": ("vote",)}[kind]
    out = []
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            data = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for k, v in data.items():
            if str(k).casefold() in key:
                out.append((m.start(), m.end(), {True: "yes", False: "no"}[v] if isinstance(v, bool) else str(v)))
    return out


# --- statements in the member's own words --------------------------------------------------------------------

_I = r"(?:\bI|\bwe)"
_AUX = (r"(?:[ \t]*(?:'ll|'d|'m|'ve)\b|[ \t]+(?:will|shall|would|should|am|do|must|can|hereby|formally|also|"
        r"therefore|fully|strongly|"
        r"firmly|still|gladly|happily|readily|respectfully|reluctantly|be|going to|have to|need to|want to|wish to|"
        r"choose to|agree to|intend to|plan to|prefer to|decide to|decided to|happy to|glad to|willing to|"
        r"prepared to|ready to|able to|pleased to|proud to|certainly|definitely|in good conscience|now|simply|just|not|"
        r"never|n't|unable to|unwilling to|refuse to|decline to|cannot|can't|won't|wouldn't|don't|do not|"
        r"rather not|prefer not to|choose not to|must not|will not|shall not|am not|'m not|cannot in good conscience|"
        r"going to have to|'ll have to|have decided to|'ve decided to))*")
_NEGATION = re.compile(r"\b(?:not|never|n't|cannot|unable|unwilling|refuse|decline|rather not|no longer|withh[eo]ld|"
                       r"hesitate)\b|n't\b", re.IGNORECASE)

# what the motion gets from the member: "The motion has my support", "It does not have my second", "You have my vote"
_MOTION_AS_SUBJECT = (r"\b(?:motion|amendment|proposal|resolution|it|this|you)(?:[ \t]+(?:does|do|did|will|would|"
                      r"shall|not|never|certainly|definitely|also|now|still|won't|doesn't|don't|cannot|can't))*"
                      r"[ \t]+")
_BACKING = (r"(?:full[ \t]+|firm[ \t]+|strong[ \t]+|wholehearted[ \t]+|unreserved[ \t]+)?(?:support|backing|"
            r"endorsement|approval|vote)\b(?![ \t]+against)")

_SECOND_SAID = [  # (pattern, reading when not negated)
    # the motion's lot: "This motion lacks a second from me", "It gets a second from me"
    (re.compile(r"\b(?:lacks?|lacking|without)[ \t]+(?:a[ \t]+second[ \t]+from[ \t]+me|my[ \t]+second)\b",
                re.IGNORECASE), NO),
    (re.compile(_MOTION_AS_SUBJECT + r"(?:has|have|gets?|getting|earns?|earned)[ \t]+a[ \t]+second[ \t]+from[ \t]+"
                r"me\b", re.IGNORECASE), YES),
    # the second left to others ("I'll leave that to other members"), or not the member's place ("it isn't right for
    # me to second")
    (re.compile(r"\bleav(?:e|ing)[ \t]+(?:that|it|this|the second(?:ing)?|seconding(?:[ \t]+it)?)[ \t]+(?:to|for)[ \t]+"
                r"(?:others|other members|another member|someone else|the others|the rest|(?:my )?colleagues)\b",
                re.IGNORECASE), NO),
    (re.compile(r"\b(?:appropriate|right|proper|fitting|my place)[ \t]+for[ \t]+me\b[^.;]{0,60}?\bto[ \t]+"
                r"second\b", re.IGNORECASE), YES),
    (re.compile(_I + _AUX + r"[ \t]+(?:be[ \t]+)?second(?:s|ing)?\b(?![ \t]+(?:round|time|point|half|place|thought|"
                r"look|option|one|opinion|reading|of|and|or))", re.IGNORECASE), YES),
    (re.compile(r"(?:^|[,;:—–][ \t]*|\b(?:so|then|yes|sure|gladly|happily|ok|okay|and|agreed)[ \t,.!—–]*[ \t]*)"
                r"(?:motion[ \t]+|amendment[ \t]+)?seconded\b", re.IGNORECASE), YES),
    (re.compile(r"\b(?:let me|count me as|put me down as|consider (?:it|this|the motion) )[ \t]*second(?:ed|ing)?\b",
                re.IGNORECASE), YES),
    (re.compile(r"\b(?:have|has|give|gives|giving|lend|lending|offer|offering|get|gets|got|with|add|adding)[ \t]+"
                r"(?:it[ \t]+|the motion[ \t]+|this[ \t]+)?my[ \t]+second\b", re.IGNORECASE), YES),
    (re.compile(r"\b(?:be|am|as|being)[ \t]+(?:(?:the|its|a|your)[ \t]+)?seconder\b", re.IGNORECASE), YES),
    (re.compile(r"^[ \t]*second(?:ed)?[ \t]+(?:from|by)[ \t]+me\b|^[ \t]*(?:happy|glad|willing|pleased|ready|"
                r"prepared|proud|more than happy)[ \t]+to(?:[ \t]+second\b|[ \t]*[.!]?[ \t]*$)", re.IGNORECASE), YES),
    (re.compile(r"^[ \t]*(?:(?:gladly|happily|readily|hereby|formally|motion|amendment)[ \t]+)?second(?:ed|ing|s)?\b"
                r"(?![ \t]*[,:=]|[ \t]+(?:round|time|point|half|place|thought|look|option|one|opinion|reading|"
                r"of|and|or|"
                r"is|was|step|stage|phase|question|issue|concern|reason|perspective|to|does|doesn't|do|means?|"
                r"implies|isn't|"
                r"would|will|can|should|might|only|just|here)\b)", re.IGNORECASE), YES),
    (re.compile(r"^[ \t]*(?:not|no longer|do not|don't|will not|won't|shall not|cannot|can't)[ \t]+second(?:ing|ed)?\b|"
                r"^[ \t]*not[ \t]+(?:at this (?:time|stage|point)|"
                r"now|yet|today|this time|from me)\b", re.IGNORECASE), NO),
    (re.compile(r"\b(?:no|not a)[ \t]+second(?:er)?\b(?![ \t]+(?:round|time|thought))|"
                r"\bwithh[eo]ld(?:ing)?[ \t]+my[ \t]+second\b|\bnot[ \t]+seconded\b", re.IGNORECASE), NO),
    (re.compile(_I + _AUX + r"[ \t]+(?:decline|pass|refuse|abstain)\b|^[ \t]*(?:pass|declined?)[ \t]*[.!]?[ \t]*$|"
                r"\bcount me out\b|\bI(?:'d|[ \t]+would)[ \t]+rather[ \t]+not\b",
                re.IGNORECASE), NO),
]
_VOTE_TARGET = (r"[ \t]+(?:(?:the|this|that|your|our|his|her|their)[ \t]+(?:\w+[ \t]+)?(?:motion|amendment|proposal|"
                r"resolution)|(?:it|this|that)\b(?![ \t]+\w+[ \t]+(?:of|in)\b))")
_VOTE_SAID = [
    # the motion's lot: "The motion has my support", "it won't get my vote", "it lacks my support", "you have my vote"
    (re.compile(_MOTION_AS_SUBJECT + r"(?:has|have|gets?|getting|earns?|earned)[ \t]+my[ \t]+" + _BACKING,
                re.IGNORECASE), YES),
    (re.compile(_MOTION_AS_SUBJECT + r"(?:lacks?|lacking)[ \t]+my[ \t]+" + _BACKING, re.IGNORECASE), NO),
    (re.compile(_I + _AUX + r"[ \t]+(?:give|lend|offer)[ \t]+(?:(?:it|this|the[ \t]+motion)[ \t]+my[ \t]+" +
                _BACKING + r"|my[ \t]+" + _BACKING + r"[ \t]+to[ \t]+(?:it|this|the[ \t]+(?:motion|amendment)))",
                re.IGNORECASE), YES),
    (re.compile(_I + _AUX + r"[ \t]+(?:vote|voting|cast(?:ing)?[ \t]+(?:my|a|an)[ \t]+(?:vote|"
                            r"ballot))[ \t]+(?:to[ \t]+)?"
                r"(?P<value>.{1,40})", re.IGNORECASE), None),
    (re.compile(r"\bmy[ \t]+vote[ \t]+(?:is|goes|will be|would be|stays|remains)[ \t]+(?:to[ \t]+|for[ \t]+)?"
                r"(?:an?[ \t]+)?(?P<value>.{1,40})", re.IGNORECASE), None),
    (re.compile(r"\b(?:count|put|mark|record|register)[ \t]+me[ \t]+(?:down[ \t]+)?(?:as[ \t]+)?(?:an?[ \t]+)?"
                r"(?P<value>.{1,40})", re.IGNORECASE), None),
    (re.compile(r"\b(?:change|changing|switch|switching|amend|amending)[ \t]+my[ \t]+vote[ \t]+to[ \t]+(?:an?[ \t]+)?"
                r"(?P<value>.{1,40})", re.IGNORECASE), None),
    (re.compile(r"\bI[ \t]+cast[ \t]+(?:an?|my)[ \t]+(?P<value>aye|yea|nay|no|yes)\b", re.IGNORECASE), None),
    (re.compile(_I + _AUX + r"[ \t]+(?:support|back|endorse|approve|accept|favou?r)(?:" + _VOTE_TARGET +
                r"|[ \t]*[.!]?$)",
                re.IGNORECASE), YES),
    (re.compile(_I + _AUX + r"[ \t]+(?:oppose|reject|object to|vote down)(?:" + _VOTE_TARGET + r"|[ \t]*[.!]?$)",
                re.IGNORECASE), NO),
    (re.compile(_I + r"(?:'m|[ \t]+am|'re|[ \t]+are)[ \t]+an?[ \t]+(?:(?:firm|clear|solid|strong|definite|hard|"
                r"reluctant)[ \t]+)?(?P<value>yes|no|aye|nay|yea)\b(?![-'])", re.IGNORECASE), None),
    (re.compile(_I + r"(?:'m|[ \t]+am|'re|[ \t]+are)(?:[ \t]+(?:firmly|strongly|fully|therefore|also|now|still|"
                r"squarely|definitely|clearly))*[ \t]+(?P<value>in[ \t]+favou?r|for[ \t]+(?:it|this|the)|against|"
                r"opposed|not in favou?r)\b", re.IGNORECASE), None),
    (re.compile(_I + _AUX + r"[ \t]+(?:be[ \t]+)?(?:abstain(?:ing)?|sit(?:ting)?[ \t]+(?:this|"
                            r"it)[ \t]+(?:one[ \t]+)?out|"
                r"stay(?:ing)?[ \t]+out[ \t]+of[ \t]+(?:this|it|the vote)|recus(?:e|"
                r"ing)[ \t]+myself)\b", re.IGNORECASE),
     ABSTAIN),
    # "I decline to cast a vote", "I will not be voting": a vote not cast, with nothing after it, is an abstention
    (re.compile(_I + _AUX + r"[ \t]+(?:be[ \t]+)?(?:vote|voting|cast(?:ing)?[ \t]+(?:a|my|any)[ \t]+(?:vote|ballot))\b"
                r"(?![ \t]+(?:for|against|aye|nay|yes|no|in|to|on the (?:other|side)))", re.IGNORECASE), NOT_CAST),
]
# A reply that opens with its answer: "Aye.", "Nay — ...", "Respectfully, no.", "Yes, I'll second it."
_OPENING = re.compile(r"^[ \t\"']*(?:(?:respectfully|reluctantly|regretfully|sadly|honestly|frankly|gladly|happily|"
                      r"ok(?:ay)?|well|then|so|hmm|sure|absolutely|certainly|definitely|happily|strong|firm|"
                      r"solid|clear|"
                      r"resounding|emphatic|hard|a|wait|actually|sorry|correction|i mean|rather|or rather|"
                      r"make that|hold on|no wait|"
                      r"on reflection|on second thought)[ \t]*[,—–-]?[ \t]+)*"
                      # an answer after a label of the member's own ("As CFO: aye.", "On the amendment: nay.")
                      r"(?:[^:\n]{1,40}:[ \t]*(?=[a-z]+[ \t]*[.!]?[ \t]*$))?"
                      r"(?P<word>[a-z]+(?:[ \t]+favou?r)?)\b(?P<rest>.*)$", re.IGNORECASE)
_SIGNED_OPENING = re.compile(r"^[ \t\"']*([+\-−–][01])(?![\d.,/]?\d)")
_OPENING_WORDS = {
    "second": {"yes": YES, "yep": YES, "yeah": YES, "aye": YES, "sure": YES, "gladly": YES, "absolutely": YES,
               "certainly": YES, "happily": YES, "agreed": YES, "seconded": YES, "definitely": YES,
               "no": NO, "nope": NO, "nay": NO, "declined": NO, "decline": NO, "pass": NO, "negative": NO, "not": NO,
               "affirmative": YES},
    "vote": {"aye": YES, "yea": YES, "yes": YES, "yay": YES, "in favour": YES, "in favor": YES, "for": YES,
             "nay": NO, "no": NO, "against": NO, "opposed": NO, "abstain": ABSTAIN, "abstaining": ABSTAIN,
             "abstention": ABSTAIN, "affirmative": YES, "negative": NO},
}
# answer words that are nothing else, wherever they stand in the opening sentence
_STRONG = {"second": {"yes": YES, "aye": YES, "nay": NO, "nope": NO, "decline": NO, "declined": NO},
           "vote": {"aye": YES, "yea": YES, "nay": NO, "abstain": ABSTAIN, "abstaining": ABSTAIN,
                    "abstention": ABSTAIN}}
# only words that are nothing but an answer may lead a longer sentence: "No, I won't" but not "No one wants this"
_ALONE_ONLY = {"affirmative", "not", "for", "sure", "certainly", "absolutely", "definitely", "happily", "gladly", "pass",
               "decline", "negative"}
# an answer word stands apart from what follows it: a stop, a comma or a dash ("No, I won't", "Aye — ..."), "from
# me", the member going on ("Yes I second it"), or what it answers ("Aye to the motion", "Against the motion"); any
# other word makes it part of a phrase: "No organization should ...", "No one ...", "Abstaining would be ...".
_ANSWER_THEN = re.compile(r"[ \t]*(?:$|[.,!;:…)]|[—–]|-{1,2}[ \t])|[ \t]+(?:from\b|(?:I|we)(?:'\w+)?\b|"
                          r"(?:(?:to|on|of)[ \t]+)?(?:the|this|that)[ \t]+(?:motion|amendment|proposal|resolution)\b)",
                          re.IGNORECASE)
_ABOUT_OTHERS = re.compile(r"\b(?:if|whether|some|others?|they|he|she|someone|anyone|members?|the (?:chair|"
                           r"committee|strategist|board)|colleagues?|you)\b[^.]*\b(?:may|might|would|could|will|"
                           r"say|said|"
                           r"argue|think|voted?|second(?:ed)?)\b", re.IGNORECASE)


# what a member seconds when it is not the motion: "the concern", "your point"
_OTHER_OBJECT = re.compile(r"[ \t]+(?:the|your|his|her|their)[ \t]+(?![\w'-]+[ \t]+(?:motion|amendment|proposal|"
                           r"resolution)\b)(?!(?:motion|amendment|proposal|resolution|call|"
                           r"one)\b)[\w-]+", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    """The text's sentences and lines; one that runs on in lower case after an ellipsis ("Nay... or maybe abstain.")
    is part of the one before."""
    out: list[str] = []
    for part in re.split(r"(?<=[.!?])[ \t]+|\n+", text):
        part = part.strip()
        if part and out and out[-1].endswith("..") and part[:1].islower():
            out[-1] += " " + part
        elif part:
            out.append(part)
    return out


def _clauses(sentence: str) -> list[str]:
    """A sentence's clauses: what follows "but", "though" or a semicolon is said apart from what precedes it."""
    parts = re.split(r"\bbut\b|\bhowever\b|\b(?:al)?though\b|\beven if\b|\bwhile\b|;|[ \t][—–][ \t]|:[ \t]|\.\.\.|…",
                     sentence, flags=re.IGNORECASE)
    return [p.strip(" ,") for p in parts if p.strip(" ,")]


def _in_words(kind: str, text: str) -> str | None:
    """The one reading of the member's own statements in `text`; None when there is none, a hedge, or two."""
    return _one(_statements(kind, text))


def _changed_to(kind: str, text: str) -> str | None:
    """What the member says from its last change of mind on ("On reflection I do not second this", "so I will change
    my vote to abstain"); None when it says no one clear answer there. A project choice: every outside writer read a
    change stated in words as the answer; a second tag line that disagrees with the first stays unreadable, as
    writers split on it."""
    changes = list(_RETRACTED.finditer(text))
    return _in_words(kind, text[changes[-1].start():]) if changes else None


def _one(readings: list[str | None]) -> str | None:
    return readings[0] if readings and None not in readings and len(set(readings)) == 1 else None


# a motion other than the one asked about: "I'd vote aye on an amended version", "I would second a narrower one"
_ANOTHER_MOTION = re.compile(r"\b(?:an?|another|some)[ \t]+(?:amended|revised|different|modified|reworded|"
                             r"rewritten|narrower|broader|new|future|alternative|stronger|weaker|separate|later|"
                             r"better|improved|reworked)[ \t]+(?:version|motion|proposal|draft|form|one|amendment|"
                             r"plan|text)\b|\banother[ \t]+(?:motion|version|proposal|amendment)\b|"
                             # "I'd happily second a motion for a smaller pilot team"
                             r"\ban?[ \t]+(?:motion|proposal|amendment)[ \t]+(?:for|with|limiting|limited|covering)\b|"
                             # the other ballot: "I'll still vote for the pilot itself", "the main motion"
                             r"\b(?:main|original|underlying|substantive|unamended)[ \t]+(?:motion|proposal)\b|"
                             r"\b(?:the|this|that)[ \t]+(?:[\w-]+[ \t]+){1,2}itself\b", re.IGNORECASE)

# words that take back what was said before them
# ("actually" and "wait" where they turn the sentence, not "the plan we can actually execute")
_TAKEN_BACK = re.compile(r"(?:^|[,(]|\b(?:no|yes|aye|nay|oh|or))[ \t]*(?:actually|wait)\b|"
                         r"(?:actually|wait)[ \t]*[,—–!]|"
                         r"\b(?:on (?:reflection|second thoughts?)|scratch that|correction|i mean|"
                         r"let me rephrase|i take (?:that|it) back|changed? my (?:mind|vote|answer))\b", re.IGNORECASE)
# a change of mind stated as an act ("Correcting my vote:", "I want to withdraw that", "Scratch that"), not a bare
# label ("On reflection:", "Correction —"): between two tags that differ it says the later stands
_CHANGE_ACT = re.compile(r"\b(?:chang|correct|switch|revis|amend|revers)(?:e|es|ed|ing)[ \t]+my[ \t]+(?:vote|answer|"
                         r"second|mind|position)\b|\bchanged? my mind\b|\bwithdraw(?:ing|n)?[ \t]+(?:that|it|this|"
                         r"my[ \t]+(?:second|vote|yes|no|aye|nay|answer))\b|\bi take (?:that|it) back\b|"
                         r"\bscratch that\b", re.IGNORECASE)
_RETRACTED = re.compile(r"\b(?:scratch that|i take (?:that|it) back|changed? my (?:mind|vote|answer)|on (?:reflection|"
                        r"second thoughts?)|correction)\b", re.IGNORECASE)
# words in quotation marks are someone else's, or the motion's: 'The Strategist said "I second this"'
_QUOTED = re.compile(r'"[^"\n]*?\s[^"\n]*?"')


def _statements(kind: str, text: str) -> list[str | None]:
    """The reading of each of the member's statements in order (None for a hedged one)."""
    out: list[str | None] = []
    sentences = _sentences(_QUOTED.sub('""', text))
    for n, sentence in enumerate(sentences):
        if sentence.rstrip().endswith("?"):
            continue  # a question states nothing
        short = len(sentence.split()) <= 4
        opening = _opening(kind, sentence) if n == 0 or short or sentences[n - 1].rstrip().endswith("?") else None
        if opening:  # the reply's first words, an answer on its own ("Wait, no."), or to its own question
            hedged = bool(_CONDITION.search(_clauses(sentence)[0]) or _HEDGE.search(_clauses(sentence)[0]))
            out.append(None if hedged else opening)
        for clause in _clauses(sentence):
            if out and _TAKEN_BACK.search(clause):
                out.append(None)  # "... actually, I will": a correction makes the answer unreadable, not the last word
            if _ABOUT_OTHERS.search(clause) and not re.search(r"\b(?:I|my|me)\b", clause):
                continue
            if _ANOTHER_MOTION.search(clause):
                continue  # what the member would do on another motion says nothing of this one
            for reading in _clause_readings(kind, clause):
                hedged = bool(_HEDGE.search(clause) or _CONDITION.search(clause))
                out.append(None if hedged else reading)
    return out


def _opening(kind: str, sentence: str) -> str | None:
    signed = _SIGNED_OPENING.match(sentence)
    if signed and _ANSWER_THEN.match(sentence[signed.end():]):
        return _signed(kind, signed.group(1))  # "+1 — let's debate it.", "-1, too fast"
    m = _OPENING.match(sentence)
    if not m:
        return None
    word = " ".join(m.group("word").lower().split())
    rest = m.group("rest")
    reading = _OPENING_WORDS[kind].get(word)
    if reading is None:
        return None
    if word in _ALONE_ONLY and rest.strip(" .!,"):
        return None
    if not _ANSWER_THEN.match(rest):
        return None  # "No one ...", "No concession is safe", "Yes-men ..."
    first_clause = re.split(r"[.;,(—–]|\s-\s|\bbut\b|\bbecause\b", rest, maxsplit=1)[0]
    if any(other != reading and any(re.search(r"\b" + w + r"\b", first_clause, re.IGNORECASE)
                                    for w, r in _OPENING_WORDS[kind].items() if r == other and w not in _ALONE_ONLY)
           for other in (YES, NO, ABSTAIN)):
        return None  # "Aye/Nay", "Yes or no"
    if any(r != reading and re.search(r"\b" + w + r"\b", rest, re.IGNORECASE) for w, r in _STRONG[kind].items()):
        return None  # "Aye — wait, nay.": another answer later in the sentence
    return reading


def _clause_readings(kind: str, clause: str) -> list[str]:
    found = []
    for pattern, reading in (_SECOND_SAID if kind == "second" else _VOTE_SAID):
        for m in pattern.finditer(clause):
            if reading is None:
                value = _vote_phrase(m.group("value"))
                if value is None:
                    continue
                if _NEGATION.search(m.group(0)[:m.start("value") - m.start()]):
                    found.append("none")  # "I cannot vote for this": a nay or an abstention, it does not say
                    continue
                found.append(value)
                continue
            if kind == "second" and reading == YES and _OTHER_OBJECT.match(clause[m.end():]):
                found.append("none")  # "I second the spirit of it": not the motion, yet not a refusal either
                continue
            # "I don't think I can second this": a negation just before the statement counts, one in an earlier part
            # of the clause does not ("I should not take part, so I abstain")
            lead = re.split(r",|\b(?:so|and|because|therefore|hence|thus)\b", clause[:m.start()])[-1]
            negated = bool(_NEGATION.search(lead + m.group(0)))
            if kind == "second" and reading == NO:
                found.append(NO)  # the pattern is itself the refusal
            elif reading == NOT_CAST:
                if negated:
                    found.append(ABSTAIN)
            elif negated:
                found.append(NO if reading in (YES,) else ("flip" if reading == NO else "none"))
            else:
                found.append(reading)
    out = [f for f in found if f in (YES, NO, ABSTAIN)]
    if "flip" in found or "none" in found:
        return [None] if not out else out + [None]  # "I don't oppose", "I won't abstain": no reading of its own
    return out


def _vote_phrase(value: str) -> str | None:
    """What follows "I vote", "my vote is", "count me": its first words as a vote."""
    value = value.strip().strip("\"'.,!").strip()
    if re.fullmatch(r"in\b[ \t]*(?:[.!,;—–].*)?", value, re.IGNORECASE | re.DOTALL):
        return YES  # "Count me in."
    negated = re.match(r"(?:not|n't)\b[ \t]*(?:to[ \t]+)?", value, re.IGNORECASE)
    if negated:
        value = value[negated.end():]
    m = None
    for reading, words in _WORDS["vote"]:
        if re.match(r"(?:" + words + r")\b", value, re.IGNORECASE):
            m = reading
            break
    if m is None:
        verbs = re.match(r"(?:adopt|pass|carry|keep|defeat|block|kill|sink|oppose|reject|support|approve|back|"
                         r"endorse|accept)\w*", value, re.IGNORECASE)
        if not verbs:
            return None
        m = NO if re.match(r"(?:defeat|block|kill|sink|oppose|reject)", verbs.group(0), re.IGNORECASE) else YES
    if negated:
        return {YES: NO, NO: YES}.get(m) if m != ABSTAIN else None
    return m


# --- the two readers -------------------------------------------------------------------------------------------

_FINAL = re.compile(r"[ \t]*final(?:[ \t]+(?:answer|vote|decision|position|reply|response))?[ \t]*[:—–-]",
                    re.IGNORECASE)


def _read(kind: str, text: str) -> str | None:
    plain = _as_said(kind, _plain(text))
    tagged = sorted(_tag_values(kind, plain) + _json_values(kind, plain))
    finals = [_FINAL.match(plain[plain.rfind("\n", 0, start) + 1:]) is not None for start, _, _ in tagged]
    changed = len(tagged) > 1 and bool(_CHANGE_ACT.search(plain, tagged[-2][1], tagged[-1][1]))  # its label too
    if len(tagged) > 1 and ((finals[-1] and not any(finals[:-1])) or changed):
        # "VOTE: aye ... Changing my vote. Final: VOTE: nay", "VOTE: nay ... Correcting my vote: VOTE: aye": the
        # member says which stands
        start, end, value = tagged[-1]
        return _one([_value(kind, value)] + [r for r in _statements(kind, plain[end:]) if r is not None])
    if tagged:
        readings = [_value(kind, value) for _, _, value in tagged]
        # the reason beside the tag must not say otherwise ("VOTE: aye ... I vote against")
        tag_lines = {n for start, end, _ in tagged
                     for n in range(plain.count("\n", 0, start), plain.count("\n", 0, end) + 1)}
        rest = "\n".join(line for n, line in enumerate(plain.splitlines()) if n not in tag_lines)
        if len(tagged) == 1 and _RETRACTED.search(plain, tagged[0][0]):
            # "SECOND: yes. Scratch that." (None), "VOTE: aye ... so I will change my vote to abstain." (abstain)
            return _changed_to(kind, plain[tagged[0][0]:])
        return _one(readings + [r for r in _statements(kind, rest) if r is not None])
    return _changed_to(kind, plain) if _RETRACTED.search(plain) else _in_words(kind, plain)


def parse_second(text: str) -> bool | None:
    """True or False for a reply to a call for a second; None when it says neither, hedges or says both."""
    reading = _read("second", text)
    return {YES: True, NO: False}.get(reading)


_VOTES = {YES: "aye", NO: "nay", ABSTAIN: "abstain"}
_VOTE_LINE = re.compile(r"^[ \t>#*_]*(?:(?:my|final)[ \t]+)?vote[ \t*_]*(?::|—|–|-|=)", re.IGNORECASE)


def parse_vote(text: str) -> tuple[str, str]:
    """(vote, reason): "aye", "nay" or "abstain" read from the reply, or "unparsed" when it says none, hedges or
    says two; the reason is the rest of the reply (its VOTE and REASON labels taken off)."""
    vote = _VOTES.get(_read("vote", text), "unparsed")
    if vote == "unparsed":
        return vote, (text or "").strip()
    reason = "\n".join(ln for ln in (text or "").splitlines() if not _VOTE_LINE.match(ln)).strip()
    return vote, re.sub(r"^[ \t>#*_]*REASON[ \t*_]*:[ \t*_]*", "", reason, flags=re.IGNORECASE)
