"""The M11 protocol's simulator: what the offline `sim` model answers to the Critic, Defender, Judge,
MetaJudge and binary judge.

Planted (from the study's `[simulation]` table, see workbench/simmodel/params.py):
- an item's latent quality ℓ = baseline + u, u ~ N(0, 1) drawn per item; its true overall score is
  T = 5·Φ(ℓ), and each criterion's true score is T plus a per-item, per-criterion deviation
  (SD 0.6, clipped to 0–5), so the five criteria differ as real outputs do;
- each pipeline run's Judge reads every criterion with the planted reliability `judge_icc`
  (`truth.perceived`: the noise is drawn per item, run, turn and criterion), so runs of one item
  spread and the confidence levels fill;
- the Critic names 3 weaknesses (4 when T < 2.5, 5 when T < 1.5) in the item's weakest criteria, with
  severity from the criterion's true score; the Defender finds critical ones valid, major ones partly
  valid and minor ones invalid; the MetaJudge flags a first verdict as sycophantic with probability 0.1
  (the project's choice; the second verdict is never flagged), so the retry path runs;
- the binary judge says PASS when its own reading of T (noise at `judge_icc`) is at least 3.5 (the
  PASS band's lower bound), so its agreement with the Likert band reflects the planted reliability.
Every reply is one JSON object after the SIMULATED banner, read by `replies.py` like a model's.
"""

from __future__ import annotations

import json
import re

from workbench.protocols.m11.scoring import CRITERIA
from workbench.simmodel import draws
from workbench.simmodel.label import REPLY_BANNER
from workbench.simmodel.truth import perceived

CRITERION_SD = 0.6
SYCOPHANCY_RATE = 0.1
PASS_AT = 3.5
ISSUES = {
    "accuracy": "lists an attribute as a hard constraint that a basic version of the product does without",
    "relevance": "ties a constraint to a use other than the validated one",
    "completeness": "leaves attributes of the table unexamined",
    "clarity": "states its constraints without saying which attribute each comes from",
    "reasoning": "skips a step of the three-step test",
}


class Item:
    """One item's planted truth."""

    def __init__(self, params: dict, item: str):
        self.params, self.item, seed = params, item, params["seed"]
        self.overall = 5 * draws.probit(params["baseline"] + draws.normal(seed, "m11-item", item))
        self.criteria = {c: min(5.0, max(0.0, self.overall + CRITERION_SD * draws.normal(seed, "m11-crit", item, c)))
                         for c in CRITERIA}

    def weaknesses(self) -> list[dict]:
        n = 3 + (self.overall < 2.5) + (self.overall < 1.5)
        weakest = sorted(CRITERIA, key=lambda c: (self.criteria[c], c))
        out = []
        for i in range(n):
            c = weakest[i % len(weakest)]
            t = self.criteria[c]
            severity = "critical" if t < 2 else "major" if t < 3.5 else "minor"
            out.append({"id": f"W{i + 1}", "category": c, "severity": severity,
                        "issue": f"The output {ISSUES[c]}.", "evidence": "From the module output and its attribute table."})
        return out

    def reading(self, *key) -> float:
        """A reader's view of the true overall score at the planted judge reliability."""
        z = draws.normal(self.params["seed"], "m11-read", self.item, *key)
        return perceived(self.overall, 0, 5, self.params["judge_icc"], 0.0, z)


class M11Simulator:
    def reply(self, request, params: dict, db) -> str:
        meta = request.metadata or {}
        stage, item = str(meta.get("phase") or ""), Item(params, str(meta.get("item") or ""))
        prompt = "\n".join(str(m.get("content") or "") for m in request.messages)
        run = (int(meta.get("replicate") or 0), request.turn)
        if stage == "critic":
            body = {"weaknesses": item.weaknesses()}
        elif stage == "defender":
            verdicts = {"critical": "valid", "major": "partially valid", "minor": "invalid"}
            body = {"rebuttals": [{"id": wid, "verdict": verdicts[sev],
                                   "argument": f"Simulated defence: the {sev} point is {verdicts[sev]}."}
                                  for wid, sev in _criticisms(prompt)]}
        elif stage == "judge":
            scores = {}
            for c in CRITERIA:
                z = draws.normal(params["seed"], "m11-judge", item.item, *run, c)
                score = perceived(item.criteria[c], 0, 5, params["judge_icc"], 0.0, z)
                scores[c] = {"score": score, "evidence": f"Simulated judge: {c} read as {score} of 5."}
            body = {"scores": scores, "summary": "Simulated verdict from the planted quality of this item."}
        elif stage == "metajudge":
            first = "again" not in str(request.turn)
            flag = first and draws.rng(params["seed"], "m11-meta", item.item, *run).random() < SYCOPHANCY_RATE
            body = {"sycophantic": flag,
                    "reason": "The scores run above the acknowledged criticisms." if flag else "The scores follow the evidence."}
        elif stage == "binary":
            verdict = "PASS" if item.reading("binary", request.turn) >= PASS_AT else "FAIL"
            body = {"verdict": verdict, "reason": f"Simulated binary judge: {verdict.lower()} on the planted quality."}
        else:
            return f"{REPLY_BANNER}\nThis stage has no simulated reply; this text carries no content."
        return f"{REPLY_BANNER}\n{json.dumps(body, ensure_ascii=False)}"


def _criticisms(prompt: str) -> list[tuple[str, str]]:
    """(id, severity) of every weakness the Defender is shown (the CRITICISMS block)."""
    m = re.search(r"CRITICISMS:\n<<<\n(.*?)\n>>>", prompt, re.DOTALL)
    return re.findall(r"^(W\d+) \((critical|major|minor),", m.group(1) if m else "", re.MULTILINE)


SIMULATOR = M11Simulator()
