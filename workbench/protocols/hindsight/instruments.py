"""Hindsight's instruments (workbench.instruments): how the committee's and B3's replies are read.

`b3`: B3's reply split into perspectives; `second`: a member's reply to "will you second this motion?";
`vote`: a member's vote on a motion; `risks`: the RISKS of a final report (instruction shape); `concerns`: a DQ-3
concern-coverage reply matched to the case's concerns; `topology`: P1's comparison reply classified.
"""

from __future__ import annotations

import json
import re

from workbench.instruments import Instrument, Option
from workbench.protocols.hindsight.architectures.motion_replies import parse_second, parse_vote
from workbench.protocols.hindsight.architectures.perspectives import ASKED, parse_asked, read_perspectives

SECOND_WORDS = {True: "yes", False: "no", None: "unreadable"}


def read_b3(text: str, options: dict) -> dict:
    asked = parse_asked(options.get("asked") or ASKED)
    reading = read_perspectives(text, asked)
    return {"perspectives": [s.title for s in reading.split.sections], "count": len(reading.split.sections),
            "layout": reading.split.layout, "asked": list(asked), "flagged": reading.flagged,
            "unsure": reading.flagged and reading.unsure, "reason": reading.reason}


def b3_agrees(doc: dict, truth: dict) -> bool:
    """The right number of perspectives, and where the truth names them, each title read in its place.

    A flagged reading agrees only when the reader stands by its count ("unsure" false: a sure count the prompt did
    not ask for, none in an empty reply or a refusal); a reading it doubts is a flag, whatever its count."""
    if doc.get("unsure") or doc["count"] != truth["perspectives"]:
        return False
    titles = truth.get("titles")
    return titles is None or all(_same_title(read, true) for read, true in zip(doc["perspectives"], titles))


def _same_title(read: str, true: str) -> bool:
    """One title within the other, or a content word they share by its stem ("What would the people who fund Glenda
    say?" names the funders)."""
    read, true = read.casefold().strip(), true.casefold().strip()
    return bool(read) and (read in true or true in read or bool(_stems(read) & _stems(true)))


_TITLE_WORDS = {"what", "would", "should", "does", "perspective", "perspectives", "view", "views", "viewpoint", "lens",
                "angle", "through", "from", "with", "about", "their", "that", "this", "the", "side", "eyes", "say"}


def _stems(title: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[a-z]{4,}", title) if w not in _TITLE_WORDS}


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


def read_risks(text: str, options: dict) -> dict:
    from workbench.protocols.hindsight.architectures.report import parse_report, risks_unsure

    report = parse_report(text)
    why = risks_unsure(report, text)
    return {"risks": report["risks"], "flagged": bool(why), "reason": why}


def risks_agree(doc: dict, truth: dict) -> bool:
    want = truth["risks"]
    return len(doc["risks"]) == len(want) and all(w.casefold() in r.casefold() for r, w in zip(doc["risks"], want))


def _json_file(text: str, keys: tuple[str, ...]) -> dict:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ValueError(f"not JSON: {e}") from None
    missing = [k for k in keys if not isinstance(data, dict) or k not in data]
    if missing:
        raise ValueError(f"a JSON object with the keys {', '.join(keys)} is expected; missing: {', '.join(missing)}")
    return data


def read_concerns(text: str, options: dict) -> dict:
    from workbench.protocols.hindsight.metrics.concern_coverage import parse_concern_reply

    data = _json_file(text, ("concerns", "reply"))
    concerns = [str(c) for c in data["concerns"]]
    try:
        values, errors, _evidence = parse_concern_reply(str(data["reply"]), concerns)
    except ValueError as e:
        return {"scores": {c: None for c in concerns}, "flagged": True, "reason": f"reply unreadable: {e}"}
    why = "; ".join(f"{c}: {e}" for c, e in errors.items())
    return {"scores": values, "flagged": bool(why), "reason": why}


def concerns_agree(doc: dict, truth: dict) -> bool:
    """Each concern's score as the truth gives it; one the truth lists as unassessable read as None."""
    want = {**truth.get("scores", {}), **{c: None for c in truth.get("unassessed", [])}}
    return doc["scores"] == want


def read_topology(text: str, options: dict) -> dict:
    from workbench.protocols.hindsight.architectures.topology import LABELS, classify, read_comparison

    data = _json_file(text, ("runs", "comparison"))
    runs = {lab: {"recommendation": data["runs"][lab]["recommendation"], "claims": list(data["runs"][lab]["claims"])}
            for lab in LABELS}
    labels = [f"{lab}{i}" for lab in LABELS for i in range(1, len(runs[lab]["claims"]) + 1)]
    comparison, error = read_comparison(str(data["comparison"]), labels)
    if error:
        return {"pattern": "Unclassified", "flagged": True, "reason": error}
    result = classify(runs, comparison)
    return {"pattern": result["pattern"], "divergent": result["divergent"], "flagged": False,
            "reason": result["rule"]}


INSTRUMENTS = [
    Instrument(name="b3", title="B3's reply split into its perspectives",
               read=read_b3, agrees=b3_agrees, describe=describe_b3, input_help="one B3 reply", flag_can_agree=True,
               options=(Option("--asked", "how many perspectives the prompt asked for: N or a range N-M "
                                          f"(default {ASKED[0]}-{ASKED[1]}, the shipped B3 prompt)",
                               default=f"{ASKED[0]}-{ASKED[1]}"),)),
    Instrument(name="second", title="a committee member's answer to a call for a second",
               read=read_second, agrees=lambda doc, truth: doc["second"] == truth["second"],
               describe=lambda doc: f"second: {doc['second']}", input_help="one member's reply", flag_can_agree=True),
    Instrument(name="vote", title="a committee member's vote on a motion",
               read=read_vote, agrees=lambda doc, truth: doc["vote"] == truth["vote"],
               describe=lambda doc: f"vote: {doc['vote']}", input_help="one member's reply", flag_can_agree=True),
    Instrument(name="risks", title="the risks of a final report (RISKS: heading)",
               read=read_risks, agrees=risks_agree, input_help="a final report's text",
               describe=lambda doc: "\n".join([f"{len(doc['risks'])} risk(s)"] + [f"  - {r}" for r in doc["risks"]])),
    Instrument(name="concerns", title="a DQ-3 concern-coverage reply matched to the case's concerns",
               read=read_concerns, agrees=concerns_agree,
               describe=lambda doc: "\n".join(f"{c}: {'unassessed' if v is None else v}"
                                              for c, v in doc["scores"].items()),
               input_help='JSON: {"concerns": [names], "reply": "the model\'s reply"}', example="concerns.json",
               flag_can_agree=True),
    Instrument(name="topology", title="P1's comparison of three runs classified as a topology",
               read=read_topology, agrees=lambda doc, truth: doc["pattern"] == truth["pattern"],
               describe=lambda doc: f"pattern: {doc['pattern']}",
               input_help='JSON: {"runs": {"A"|"B"|"C": {"recommendation", "claims"}}, "comparison": "reply"}',
               example="comparison.json", flag_can_agree=True),
]
