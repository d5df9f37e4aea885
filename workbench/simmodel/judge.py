"""Simulated LLM-judge replies: one valid JSON verdict per call, from a planted judge model.

The judge reads what every judge reads (the evaluator prompt: the OUTCOME and
RECOMMENDATION blocks and each criterion's range), takes the planted truth of
the response (`truth.py`) and adds its bias and noise (`[simulation]`
judge_icc, judge_bias), drawn per call, so a judge's three runs differ. The
quote is copied from the response, as the parser demands.
"""

from __future__ import annotations

import json
import re

from workbench.simmodel import draws
from workbench.simmodel.label import REPLY_BANNER
from workbench.simmodel.truth import perceived, true_score

_BLOCK = re.compile(r"<<<([A-Z]+)\n(.*?)\n\1>>>", re.DOTALL)
_CRITERION = re.compile(r"^Criterion `([^`]+)` \((.*?)\), a whole number from (-?\d+) to (-?\d+):", re.MULTILINE)


def blocks(prompt: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _BLOCK.finditer(prompt or "")}


def quote_from(response: str) -> str:
    """A line of the response worth citing: a foreseen risk if any, else its first substantial line."""
    lines = [ln.strip(" -*\t") for ln in (response or "").splitlines()]
    lines = [ln for ln in lines if len(ln) >= 12 and '"' not in ln and not ln.startswith("[")]
    risky = [ln for ln in lines if "outcome point" in ln.lower()]
    return (risky or lines or [(response or "").strip()[:60]])[0][:160]


def reply(request, params: dict) -> str:
    prompt = "\n".join(str(m.get("content") or "") for m in request.messages)
    docs = blocks(prompt)
    response, outcome = docs.get("RECOMMENDATION", ""), docs.get("OUTCOME", "")
    rubric = str(request.metadata.get("rubric") or "")
    quote = quote_from(response)
    verdict = {}
    for crit_id, name, lo, hi in _CRITERION.findall(prompt):
        lo, hi = int(lo), int(hi)
        true = true_score(response, outcome, rubric, crit_id, lo, hi, name)
        z = draws.normal(params["seed"], "judge", request.agent, rubric, crit_id, request.messages,
                         request.replicate, request.sample)
        score = perceived(true, lo, hi, params["judge_icc"], params["judge_bias"], z)
        verdict[crit_id] = {"score": score, "quote": quote,
                            "justification": f"Simulated judge: scored {score} from the planted truth, citing \"{quote}\"."}
    return f"{REPLY_BANNER}\n{json.dumps(verdict, ensure_ascii=False)}"
