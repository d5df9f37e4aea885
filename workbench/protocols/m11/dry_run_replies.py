"""The dry run's stand-ins for M11's pipeline (workbench/runs/dry_run.py): each stage's reply what its parser reads,
as long as the reply is measured to be, so `study create`'s context check measures the pipeline's largest prompt.

Padding alone parses as no stage: the Critic's first reply fails and the pipeline ends there, a counted error,
having measured one prompt. Here each stage's first reply is the padding (its retry, told why, is measured), and
the retry parses: the Critic's weaknesses (the fewest the seed allows, each as long as the padding shares out),
the Defender's rebuttal of each, the Judge's five scores with their evidence, and a MetaJudge that flags the
first verdict as sycophantic with a reason as long as the padding, so the Judge is asked again with it and the
MetaJudge checks that verdict too: the path of the most calls and the longest prompts. The binary verdict parses
at its retry. A stage is known by its turn id (`pipeline.py`).
"""

from __future__ import annotations

import json

from workbench.protocols.m11.pipeline import RETRY
from workbench.protocols.m11.replies import MIN_WEAKNESSES
from workbench.protocols.m11.scoring import CRITERIA
from workbench.runs.dry_run import padding_pieces


def stand_in(request, padding: str) -> str | None:
    """The reply to one M11 call (None: the padding alone, which no stage's parser takes)."""
    turn = request.turn or ""
    if RETRY not in turn:
        return None
    stage, again = turn.split(RETRY)[0].split(".again")[0], ".again" in turn
    if stage == "critic":
        return _json({"weaknesses": [{"id": f"W{i}", "category": CRITERIA[i % len(CRITERIA)], "severity": "major",
                                      "issue": text, "evidence": ""}
                                     for i, text in enumerate(padding_pieces(padding, MIN_WEAKNESSES), start=1)]})
    if stage == "defender":
        return _json({"rebuttals": [{"id": f"W{i}", "verdict": "partially valid", "argument": text}
                                    for i, text in enumerate(padding_pieces(padding, MIN_WEAKNESSES), start=1)]})
    if stage == "judge":
        pieces = padding_pieces(padding, len(CRITERIA) + 1)
        return _json({"scores": {c: {"score": 3, "evidence": pieces[i]} for i, c in enumerate(CRITERIA)},
                      "summary": pieces[-1]})
    if stage == "metajudge":
        return _json({"sycophantic": not again, "reason": padding.strip() or "x"})
    if stage == "binary":
        return _json({"verdict": "PASS", "reason": padding.strip() or "x"})
    return None


def _json(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False)
