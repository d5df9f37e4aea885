"""Hindsight's instruments (workbench.instruments): how the committee's replies are read.

`second`: a member's reply to "will you second this motion?"; `vote`: a member's vote on a motion.
"""

from __future__ import annotations

from workbench.instruments import Instrument
from workbench.protocols.hindsight.architectures.lines import parse_second, parse_vote

SECOND_WORDS = {True: "yes", False: "no", None: "unreadable"}


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
    Instrument(name="second", title="a committee member's answer to a call for a second",
               read=read_second, agrees=lambda doc, truth: doc["second"] == truth["second"],
               describe=lambda doc: f"second: {doc['second']}", input_help="one member's reply"),
    Instrument(name="vote", title="a committee member's vote on a motion",
               read=read_vote, agrees=lambda doc, truth: doc["vote"] == truth["vote"],
               describe=lambda doc: f"vote: {doc['vote']}", input_help="one member's reply"),
]
