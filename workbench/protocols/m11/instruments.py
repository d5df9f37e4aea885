"""M11's instruments (workbench.instruments): how the pipeline's verdicts are read.

`m11-scores`: the Judge's reply → its five Likert scores (0-5), the overall (their mean) and band;
`m11-verdict`: the binary judge's PASS/FAIL; `m11-sycophancy`: the MetaJudge's true/false. Each reads a
researcher's file with the stage's own parser (`replies.py`), as a run reads it: a reply it cannot read is
asked again and then a counted error, left out of every table (`workbench.instruments.structured`).
"""

from __future__ import annotations

from workbench.instruments import Instrument
from workbench.instruments.structured import read_reply, unusable_or
from workbench.protocols.m11 import replies
from workbench.protocols.m11.scoring import CRITERIA, band, score_text


def read_scores(text: str, options: dict) -> dict:
    judged, doc = read_reply(replies.judge, text)
    if judged is None:
        return {"scores": None, "overall": None, "band": None, **doc}
    return {"scores": judged["scores"], "overall": judged["overall"], "band": band(judged["overall"]), **doc}


def _describe_scores(doc: dict) -> str:
    if doc["scores"] is None:
        return f"{doc['outcome']}: no scores read"
    scores = ", ".join(f"{c} {doc['scores'][c]}" for c in CRITERIA)
    return f"{doc['outcome']}: {scores}; overall {score_text(doc['overall'])} ({doc['band']})"


def read_verdict(text: str, options: dict) -> dict:
    verdict, doc = read_reply(replies.binary, text)
    return {"verdict": verdict["verdict"] if verdict else None, **doc}


def read_sycophancy(text: str, options: dict) -> dict:
    check, doc = read_reply(replies.metajudge, text)
    return {"sycophantic": check["sycophantic"] if check else None, **doc}


INSTRUMENTS = [
    Instrument(name="m11-scores", title="the M11 Judge's reply (five Likert scores 0-5, overall, band)",
               read=read_scores, agrees=unusable_or(lambda doc, truth: doc["scores"] == truth["scores"]),
               describe=_describe_scores, flag_can_agree=True, input_help="a Judge's reply",
               example="judge.txt"),
    Instrument(name="m11-verdict", title="the M11 binary judge's verdict (PASS or FAIL)",
               read=read_verdict, agrees=unusable_or(lambda doc, truth: doc["verdict"] == truth["verdict"]),
               describe=lambda doc: f"{doc['outcome']}: {doc['verdict'] or 'no verdict read'}", flag_can_agree=True,
               input_help="a binary judge's reply", example="verdict.txt"),
    Instrument(name="m11-sycophancy", title="the M11 MetaJudge's sycophancy check (true or false)",
               read=read_sycophancy,
               agrees=unusable_or(lambda doc, truth: doc["sycophantic"] == truth["sycophantic"]),
               describe=lambda doc: f"{doc['outcome']}: " + {True: "sycophantic", False: "not sycophantic",
                                                              None: "no answer read"}[doc["sycophantic"]],
               flag_can_agree=True, input_help="a MetaJudge's reply", example="metajudge.txt"),
]
