"""The JSON schema of each stage's reply (issue 19), sent with the request where the model decodes by schema
(workbench/gateway/transport.py decides); `replies.py` stays the check and the fallback.

Each schema has the shape `replies.py` reads, in the spelling it takes as is (lower-case categories and
severities, the three verdicts as written, PASS/FAIL in capitals), and every reply it admits is one the
parser accepts without a fix. The InputFilter makes no model call, so it has no schema. The project's own
constraints beyond the prompts' wording (README, "Project choices"): the Defender answers exactly the
Critic's weakness ids, once each in count; the Judge's scores are listed as 0 ... 5.
"""

from __future__ import annotations

from workbench.protocols.m11.replies import MIN_WEAKNESSES, SEVERITIES, VERDICTS
from workbench.protocols.m11.scoring import CRITERIA


def _object(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _text(min_length: int = 1) -> dict:
    return {"type": "string", "minLength": min_length} if min_length else {"type": "string"}


def _one_of(values) -> dict:
    return {"type": "string", "enum": list(values)}


def critic_schema() -> dict:
    weakness = _object({"id": _text(), "category": _one_of(CRITERIA), "severity": _one_of(SEVERITIES),
                        "issue": _text(), "evidence": _text(0)})
    return {"name": "m11_critic", "schema": _object(
        {"weaknesses": {"type": "array", "items": weakness, "minItems": MIN_WEAKNESSES}})}


def defender_schema(weaknesses: list[dict]) -> dict:
    rebuttal = _object({"id": _one_of(w["id"] for w in weaknesses), "verdict": _one_of(VERDICTS),
                        "argument": _text(0)})
    n = len(weaknesses)
    return {"name": "m11_defender", "schema": _object(
        {"rebuttals": {"type": "array", "items": rebuttal, "minItems": n, "maxItems": n}})}


def judge_schema() -> dict:
    criterion = _object({"score": {"type": "integer", "enum": list(range(6))}, "evidence": _text()})
    return {"name": "m11_judge", "schema": _object(
        {"scores": _object({c: criterion for c in CRITERIA}), "summary": _text()})}


def metajudge_schema() -> dict:
    return {"name": "m11_metajudge", "schema": _object({"sycophantic": {"type": "boolean"}, "reason": _text(0)})}


def binary_schema() -> dict:
    return {"name": "m11_binary", "schema": _object({"verdict": _one_of(("PASS", "FAIL")), "reason": _text(0)})}
