"""Hindsight's instruments (workbench.instruments): how the committee's and B3's replies are read.

`b3`: B3's reply split into perspectives; `second`: a member's reply to "will you second this motion?";
`vote`: a member's vote on a motion.
"""

from __future__ import annotations

from workbench.instruments import Instrument, Option
from workbench.protocols.hindsight.architectures.lines import parse_second, parse_vote
from workbench.protocols.hindsight.architectures.perspectives import ASKED, parse_asked, read_perspectives

SECOND_WORDS = {True: "yes", False: "no", None: "unreadable"}


def read_b3(text: str, options: dict) -> dict:
    asked = parse_asked(options.get("asked") or ASKED)
    reading = read_perspectives(text, asked)
    return {"perspectives": [s.title for s in reading.split.sections], "count": len(reading.split.sections),
            "layout": reading.split.layout, "asked": list(asked), "flagged": reading.flagged,
            "reason": reading.reason}


def b3_agrees(doc: dict, truth: dict) -> bool:
    """The right number of perspectives, and where the truth names them, each title read in its place."""
    if doc["count"] != truth["perspectives"]:
        return False
    titles = truth.get("titles")
    return titles is None or all(_same_title(read, true) for read, true in zip(doc["perspectives"], titles))


def _same_title(read: str, true: str) -> bool:
    read, true = read.casefold().strip(), true.casefold().strip()
    return bool(read) and (read in true or true in read)


def describe_b3(doc: dict) -> str:
    lines = [f"{doc['count']} perspective(s) read ({doc['layout'] or 'no layout'}); asked for "
             f"{doc['asked'][0]}-{doc['asked'][1]}"]
    lines += [f"  {i}. {title or '(untitled)'}" for i, title in enumerate(doc["perspectives"], start=1)]
    return "\n".join(lines)


def read_second(text: str, options: dict) -> dict:
    second = SECOND_WORDS[parse_second(text)]
    unsure = second == "unreadable"
    return {"second": second, "flagged": unsure,
            "reason": "no readable SECOND: yes|no line" if unsure else ""}


def read_vote(text: str, options: dict) -> dict:
    vote, _reason = parse_vote(text)
    vote = "unreadable" if vote == "unparsed" else vote
    unsure = vote == "unreadable"
    return {"vote": vote, "flagged": unsure,
            "reason": "no single readable VOTE: aye|nay|abstain line" if unsure else ""}


INSTRUMENTS = [
    Instrument(name="b3", title="B3's reply split into its perspectives",
               read=read_b3, agrees=b3_agrees, describe=describe_b3, input_help="one B3 reply",
               options=(Option("--asked", "how many perspectives the prompt asked for: N or a range N-M "
                                          f"(default {ASKED[0]}-{ASKED[1]}, the shipped B3 prompt)",
                               default=f"{ASKED[0]}-{ASKED[1]}"),)),
    Instrument(name="second", title="a committee member's answer to a call for a second",
               read=read_second, agrees=lambda doc, truth: doc["second"] == truth["second"],
               describe=lambda doc: f"second: {doc['second']}", input_help="one member's reply", flag_can_agree=True),
    Instrument(name="vote", title="a committee member's vote on a motion",
               read=read_vote, agrees=lambda doc, truth: doc["vote"] == truth["vote"],
               describe=lambda doc: f"vote: {doc['vote']}", input_help="one member's reply", flag_can_agree=True),
]
