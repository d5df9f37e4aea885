"""The direction stage of crux equivalence (issue 41, session 16; the project's own rule, no seed makes it).

Sentence vectors cannot tell questions apart that differ only in direction: "Will the central bank raise rates
before Q3?" and "... cut rates before Q3?" sit at all-mpnet-base-v2 cosine ~0.94, nearer than most rewordings.
This stage reads the direction words themselves, by a lexicon of opposites on four axes, and parts two
questions only where that is clear:

- level: raise / increase / rise / grow / expand / lengthen / more / higher / above ... against cut / lower /
  reduce / fall / shrink / shorten / curtail / fewer / less / below ..., and freeze / unchanged / steady (a
  third outcome: "hold" is not "raise" turned round, but it is another question);
- time: before / earlier against after / later;
- permission: allow / permit / approve / legalise against ban / forbid / reject / outlaw;
- enactment: impose / introduce / enact / reinstate against lift / scrap / abolish / repeal / revoke.

Two questions are `opposite` when on some axis each names exactly one side (every direction word of the
question on that axis agrees) and the sides differ, and neither question is negated. A negated question
("Will rates not rise?") asks the same thing as its plain form, so negation never parts: it only makes a
question's direction unclear against the other side ("not rise" against "fall" is left to the flag). A
question naming both sides on an axis ("Will raising the wage cut jobs?") is unclear on that axis too. A
direction word that is part of a longer name is no direction: joined by a hyphen ("cut-off", "high-rise"),
capitalised inside the sentence ("Lower Saxony"), or in a fixed phrase ("higher education", "lower house");
"up" and "down" only after a verb of movement ("go up", not "hold up"); a permission or enactment word only as a
verb ("the ban" names a policy, and so does one that ends the question with no verb before it: "the data centre's
water permit?"). A comparison ("X costs less than Y") has no level side: it turns round with its order. An
antonym carried by the object turns the level round: "Will unemployment rise?" asks what "Will employment fall?"
asks (a word that is the other's with a negating prefix, un-, non-, in-, dis-), so the two are not parted, and
"Will unemployment rise?" is parted from "Will employment rise?".

`conflicts` is what stays undecided: two questions whose direction words differ but that the stage does not
part; a crux holding such a pair is flagged, as before the stage. What it cannot see: an antonym carried by
the object in other words than a prefix ("will joblessness rise" and "will employment fall" are parted),
and direction words the lexicon lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEVEL, TIME, PERMISSION, ENACTMENT = "level", "time", "permission", "enactment"
UP, DOWN, HOLD, BEFORE, AFTER, ALLOW, BAN = "up", "down", "hold", "before", "after", "allow", "ban"
ENACT, REPEAL = "enact", "repeal"

_WORDS = {
    (LEVEL, UP): "raise raises raised raising hike hikes hiked hiking increase increases increased increasing "
                 "rise rises rose risen rising grow grows grew grown growing higher more up expand expands "
                 "expanded expanding strengthen strengthens strengthened climb climbs climbed climbing boost "
                 "boosts boosted boosting widen widens widened tighten tightens tightened above exceed exceeds "
                 "surge surges accelerate accelerates lengthen lengthens lengthened lengthening",
    (LEVEL, DOWN): "cut cuts cutting lower lowers lowered lowering reduce reduces reduced reducing fall falls "
                   "fell fallen falling shrink shrinks shrank shrunk shrinking decrease decreases decreased "
                   "decreasing drop drops dropped dropping decline declines declined declining fewer less down "
                   "weaken weakens weakened slash slashes slashed trim trims trimmed narrow narrows narrowed "
                   "loosen loosens loosened below slow slows slowed shorten shortens shortened shortening "
                   "curtail curtails curtailed curtailing",
    (LEVEL, HOLD): "freeze freezes froze frozen freezing unchanged steady",
    (TIME, BEFORE): "before earlier sooner ahead",
    (TIME, AFTER): "after later",
    (PERMISSION, ALLOW): "allow allows allowed allowing permit permits permitted legalise legalises legalised "
                         "legalize legalizes legalized approve approves approved approving",
    (PERMISSION, BAN): "ban bans banned banning forbid forbids forbidden prohibit prohibits prohibited outlaw "
                       "outlaws outlawed reject rejects rejected rejecting",
    (ENACTMENT, ENACT): "impose imposes imposed imposing introduce introduces introduced introducing enact enacts "
                        "enacted enacting reinstate reinstates reinstated",
    (ENACTMENT, REPEAL): "lift lifts lifted lifting scrap scraps scrapped scrapping abolish abolishes abolished "
                         "abolishing repeal repeals repealed repealing revoke revokes revoked revoking rescind "
                         "rescinds rescinded",
}
LEXICON = {w: axis_side for axis_side, words in _WORDS.items() for w in words.split()}
OPPOSITES = {LEVEL: (UP, DOWN, HOLD), TIME: (BEFORE, AFTER), PERMISSION: (ALLOW, BAN), ENACTMENT: (ENACT, REPEAL)}
_ACTS = (PERMISSION, ENACTMENT)   # verbs that may name a policy instead ("the ban", "the water permit?")

# Fixed phrases whose direction word names a thing, not a direction (matched before the words are read).
NAMES = re.compile(r"\b(?:higher education|higher ed|lower (?:house|chamber|court|case|bound)|upper house|"
                   r"high(?:er)? court|more or less|down payment|ahead of time|sooner or later|later on|"
                   r"rise and fall|up to date|up and running)\b", re.IGNORECASE)
NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|without|fail|fails|failed|failing|cannot)\b|n't\b",
                      re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z]+(?:[-'][A-Za-z]+)*")
# "up" and "down" are a direction only after a verb of movement ("go up", "be pushed down"), not as a particle
# ("hold up", "set up", "shut down"); a permission word is one only as a verb, not after a determiner ("the ban",
# "their approval" names the policy a question is about).
_MOVES = set("go goes going gone went come comes coming came be is are was were been being push pushes pushed "
             "pushing drive drives driven drove driving move moves moved moving bring brings brought put puts "
             "get gets got send sends sent edge edges edged creep creeps crept".split())
_NOUN_FOLLOWS = set("on in for at from of is was will would has have than and or be".split())
# "than" before a number is a threshold ("by more than 30 percent"), which keeps its side
COMPARISON = re.compile(r"\bthan\b(?!\s+(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|a |an "
                        r"|half|twice|double|\W*[$€£]))", re.IGNORECASE)
_DETERMINERS = set("the a an this that these those its their our his her your my any every no each".split())
# what stands before a permission word that is a verb with nothing after it ("will it be banned?", "to ban?")
_VERB_BEFORE = set("be is are was were been being get gets got will would shall should can could may might must "
                   "to not and or".split())
_NEGATING = ("un", "non", "in", "dis")
_STEM = 5   # the least a prefixed word keeps: "income" is no "come" turned round, "disorder" is "order"


@dataclass(frozen=True)
class Direction:
    sides: dict           # axis → frozenset of the sides the question's direction words name
    negated: bool         # the question carries a negation (never parts it from its plain form)
    words: frozenset = frozenset()   # its words, lower case: an antonym carried by the object (_turned)


def read(question: str) -> Direction:
    """The direction words of one question, by axis."""
    text = NAMES.sub(" ", question)
    sides: dict[str, set] = {}
    words = [m.group(0) for m in _TOKEN.finditer(text)]
    for k, word in enumerate(words):
        if "-" in word or (k > 0 and word[0].isupper()):   # part of a compound or of a name
            continue
        found = LEXICON.get(word.lower())
        before = [w.lower() for w in words[max(0, k - 2):k]]
        after = words[k + 1].lower() if k + 1 < len(words) else ""
        if not found or (word.lower() in ("up", "down") and (not before or before[-1] not in _MOVES)) \
                or (found[0] in _ACTS and _noun(before, after)):
            continue
        sides.setdefault(found[0], set()).add(found[1])
    if COMPARISON.search(text):   # "X costs less than Y" is "Y costs more than X": the side hangs on the order
        sides.pop(LEVEL, None)
    return Direction({a: frozenset(s) for a, s in sides.items()}, bool(NEGATION.search(text)),
                     frozenset(w.lower() for w in words))


def _noun(before: list[str], after: str) -> bool:
    """A permission word names a policy ("the ban", "the phone ban?", "the ban on scooters", "the centre's water
    permit?"), not an act."""
    return bool(before) and (before[-1] in _DETERMINERS
                             or (before[0] in _DETERMINERS and (not after or after in _NOUN_FOLLOWS))
                             or (not after and before[-1] not in _VERB_BEFORE))


def _turned(a: Direction, b: Direction) -> bool:
    """Whether `a` names its object by the antonym of `b`'s word, with a negating prefix ("unemployment" where `b`
    says "employment"), and not the other way round: `a`'s level then reads turned round."""
    def prefixed(x: Direction, y: Direction) -> bool:
        return any(w.startswith(p) and len(w) - len(p) >= _STEM and w[len(p):] in y.words and w not in y.words
                   for w in x.words for p in _NEGATING)
    return prefixed(a, b) and not prefixed(b, a)


def _sides(a: Direction, b: Direction, axis: str) -> tuple[frozenset, frozenset]:
    """The two questions' sides on `axis`, the level of one whose object is the other's antonym turned round."""
    turn = {UP: DOWN, DOWN: UP}
    sa, sb = a.sides.get(axis, frozenset()), b.sides.get(axis, frozenset())
    if axis == LEVEL:
        if _turned(a, b):
            sa = frozenset(turn.get(x, x) for x in sa)
        elif _turned(b, a):
            sb = frozenset(turn.get(x, x) for x in sb)
    return sa, sb


def opposite(a: Direction, b: Direction) -> bool:
    """The two questions clearly ask about different directions: on some axis each names one side, and the
    sides differ; neither is negated."""
    if a.negated or b.negated:
        return False
    return any(len(sa) == len(sb) == 1 and sa != sb for sa, sb in (_sides(a, b, axis) for axis in OPPOSITES))


def undecided(a: Direction, b: Direction) -> bool:
    """The two questions' direction words differ on some axis both name, and the stage does not part them."""
    if opposite(a, b):
        return False
    return any(sa and sb and sa != sb for sa, sb in (_sides(a, b, axis) for axis in OPPOSITES))


def apart(questions: list[str]):
    """A boolean matrix: True where two questions are `opposite` (never one crux)."""
    import numpy as np

    read_ = [read(q) for q in questions]
    n = len(questions)
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = opposite(read_[i], read_[j])
    return out
