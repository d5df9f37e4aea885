"""Reading each stage's JSON reply; a reply that does not hold up raises InvalidReply with the reason
(the retry is told it)."""

from __future__ import annotations

import re

from workbench.judges.parse import InvalidReply, parse_score
from workbench.structured.reading import repaired
from workbench.structured.reply_object import rekeyed, reply_object
from workbench.protocols.m11.scoring import CRITERIA, overall

SEVERITIES = ("critical", "major", "minor")
VERDICTS = ("valid", "partially valid", "invalid")
MIN_WEAKNESSES = 3  # seed 003 §2: the Critic finds 3+ issues


def critic(text: str) -> list[dict]:
    obj = reply_object(text)
    items = obj.get("weaknesses")
    if not isinstance(items, list):
        raise InvalidReply('"weaknesses" must be a list')
    out = []
    for i, w in enumerate(items, start=1):
        if not isinstance(w, dict):
            raise InvalidReply(f"weakness {i} must be an object")
        category = str(w.get("category", "")).strip().lower()
        severity = str(w.get("severity", "")).strip().lower()
        issue = str(w.get("issue", "")).strip()
        if category not in CRITERIA:
            raise InvalidReply(f"weakness {i}: category must be one of {', '.join(CRITERIA)}")
        if severity not in SEVERITIES:
            raise InvalidReply(f"weakness {i}: severity must be one of {', '.join(SEVERITIES)}")
        if not issue:
            raise InvalidReply(f"weakness {i}: the issue is missing")
        if (category, severity) != (w.get("category"), w.get("severity")):
            repaired(f"weakness {i}: category or severity respelled")
        if not w.get("id"):
            repaired(f"weakness {i}: no id, numbered W{i}")
        out.append({"id": str(w.get("id") or f"W{i}"), "category": category, "severity": severity,
                    "issue": issue, "evidence": str(w.get("evidence", "")).strip()})
    if len(out) < MIN_WEAKNESSES:
        raise InvalidReply(f"found {len(out)} weakness(es); at least {MIN_WEAKNESSES} are required")
    return out


def defender(text: str, weaknesses: list[dict]) -> list[dict]:
    obj = reply_object(text)
    items = obj.get("rebuttals")
    if not isinstance(items, list):
        raise InvalidReply('"rebuttals" must be a list')
    by_id = {}
    for i, r in enumerate(items, start=1):
        if not isinstance(r, dict):
            raise InvalidReply(f"rebuttal {i} must be an object")
        verdict = " ".join(str(r.get("verdict", "")).lower().replace("_", " ").replace("-", " ").split())
        if verdict not in VERDICTS:
            raise InvalidReply(f"rebuttal {i}: verdict must be one of {', '.join(VERDICTS)}")
        if verdict != r.get("verdict"):
            repaired(f"rebuttal {i}: verdict {r.get('verdict')!r} read as {verdict!r}")
        by_id[str(r.get("id", ""))] = {"id": str(r.get("id", "")), "verdict": verdict,
                                        "argument": str(r.get("argument", "")).strip()}
    missing = [w["id"] for w in weaknesses if w["id"] not in by_id]
    if missing:
        raise InvalidReply(f"no rebuttal for {', '.join(missing)}")
    if set(by_id) - {w["id"] for w in weaknesses}:
        repaired("rebuttals of unknown weaknesses ignored")
    return [by_id[w["id"]] for w in weaknesses]


def judge(text: str) -> dict:
    """{"scores": {criterion: int}, "evidence": {criterion: str}, "summary", "overall"}."""
    obj = reply_object(text)
    raw = obj.get("scores")
    if not isinstance(raw, dict):
        raise InvalidReply('"scores" must be an object of the five criteria')
    raw = _criteria_keys(raw)
    scores, evidence = {}, {}
    for c in CRITERIA:
        entry = raw.get(c)
        if not isinstance(entry, dict):
            raise InvalidReply(f"criterion '{c}' is missing (an object with score and evidence)")
        scores[c] = parse_score(_out_of_five(entry.get("score"), c), 0, 5, c)
        ev = entry.get("evidence")
        if not ev and entry.get("justification"):
            repaired(f"{c}: the evidence was given as justification")
            ev = entry.get("justification")
        if not isinstance(ev, str) or not ev.strip():
            raise InvalidReply(f"{c}: the evidence is missing")
        evidence[c] = ev.strip()
    summary = obj.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        raise InvalidReply('"summary" is missing')
    return {"scores": scores, "evidence": evidence, "summary": summary.strip(), "overall": overall(scores)}


def _criteria_keys(raw: dict) -> dict:
    """The scores with each criterion named but for case or spacing ("Accuracy", " clarity") read as it."""
    return rekeyed(raw, lambda k: str(k).strip().casefold() if str(k).strip().casefold() in CRITERIA else k,
                   "criterion", "criterion '{}' is scored twice")


def _out_of_five(value, criterion: str):
    """A score written "4/5" is 4 (the scale's own maximum named, nothing else)."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\s*/\s*5\s*", value)
        if m:
            repaired(f"{criterion}: the score {value!r} read as {m.group(1)}")
            return int(m.group(1))
    return value


BOOLEAN_WORDS = {"true": True, "yes": True, "false": False, "no": False}


def metajudge(text: str) -> dict:
    obj = reply_object(text)
    flag = obj.get("sycophantic")
    if isinstance(flag, str) and flag.strip().casefold() in BOOLEAN_WORDS:
        repaired(f'"sycophantic" {flag!r} read as {BOOLEAN_WORDS[flag.strip().casefold()]}')
        flag = BOOLEAN_WORDS[flag.strip().casefold()]
    if not isinstance(flag, bool):
        raise InvalidReply('"sycophantic" must be true or false')
    return {"sycophantic": flag, "reason": str(obj.get("reason", "")).strip()}


def binary(text: str) -> dict:
    obj = reply_object(text)
    verdict = str(obj.get("verdict", "")).strip().rstrip(".!").strip().upper()
    if verdict not in ("PASS", "FAIL"):
        raise InvalidReply('"verdict" must be PASS or FAIL')
    if verdict != obj.get("verdict"):
        repaired(f"verdict {obj.get('verdict')!r} read as {verdict}")
    return {"verdict": verdict, "reason": str(obj.get("reason", "")).strip()}
