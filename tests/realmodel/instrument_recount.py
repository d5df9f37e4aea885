"""Every faultline graph, stance and crux-card reply and every M11 Judge, binary and MetaJudge reply a real model
gave in a study, read again by its instrument (issue 41): read or flagged, never silently misread.

No model call: the replies are the study's call log. For each reply the step recorded, the instrument must
read it as the study did (same outcome; a reply cut at max_tokens is flagged), and a reading it did not flag
must be the reply's own: equal to the values of the reply's plain JSON object (the one object, decoded as
is), or, where the reader had to mend the reply, with the mend named. What this returns is printed by the
suite; the reading counts per instrument."""

from __future__ import annotations

import json
import re

import sqlite_utils

from workbench.instruments.registry import get
from workbench.protocols.m11.scoring import CRITERIA
from workbench.structured.reading import CUT, PARSED, REPAIRED

# the step a study records its replies under → the instrument that reads them
INSTRUMENT_OF_STEP = {"belief graph": "graph", "stances": "stance", "crux cards": "crux-card",
                      "m11 judge": "m11-scores", "m11 binary": "m11-verdict", "m11 metajudge": "m11-sycophancy"}


def plain_object(text: str) -> dict | None:
    """The reply's object decoded as is, only when it is the one object in the reply (no mending)."""
    decoder, found, at = json.JSONDecoder(), [], text.find("{")
    while at >= 0:
        try:
            obj, end = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        found.append(obj)
        at = text.find("{", end)
    return found[0] if len(found) == 1 and isinstance(found[0], dict) else None


def _options(instrument: str, prompt: str) -> dict:
    if instrument == "stance":
        block = prompt.split("Claims:\n", 1)[1].split("\n\n", 1)[0]
        return {"claims": ",".join(re.findall(r"^- ([^:\s]+):", block, re.MULTILINE))}
    if instrument == "graph":
        return {"size": re.search(r"Give exactly (\d+) claims", prompt).group(1)}
    return {}


def _plain_reading(instrument: str, obj: dict, doc: dict):
    """What the reply's plain object says, in the document's own terms (None: not comparable as is)."""
    try:
        if instrument == "stance":
            raw = obj["stances"]
            return {c: raw.get(c) for c in doc["claims"]}, doc["stances"]
        if instrument == "graph":
            return [n["credence"] for n in obj["nodes"][:doc["size"]]], [n["credence"] for n in doc["nodes"]]
        if instrument == "crux-card":
            return [c["question"].strip() for c in obj["cards"]], [c["question"] for c in doc["cards"]]
        if instrument == "m11-scores":
            return {c: obj["scores"][c]["score"] for c in CRITERIA}, doc["scores"]
        if instrument == "m11-verdict":
            return obj["verdict"], doc["verdict"]
        if instrument == "m11-sycophancy":
            return obj["sycophantic"], doc["sycophantic"]
    except (KeyError, TypeError, AttributeError):
        return None
    return None


def replies(db_path, study: str) -> list[dict]:
    """Each recorded reply of the instruments' steps: {"key", "step", "outcome", "response", "prompt"}."""
    db = sqlite_utils.Database(db_path)
    out = []
    for row in db.execute("SELECT key, step, outcome FROM structured_replies WHERE study_id = ? AND step IN "
                          f"({', '.join('?' * len(INSTRUMENT_OF_STEP))})", [study, *INSTRUMENT_OF_STEP]):
        key, step, outcome = row
        prefix, turn = key.rsplit("/", 1)
        run = None if prefix == "belief-graphs" else prefix
        call = db.execute("SELECT response, request FROM calls WHERE study_id = ? AND turn = ? AND run_id IS ? "
                          "AND status IN ('ok', 'replayed') AND response IS NOT NULL ORDER BY id DESC LIMIT 1",
                          [study, turn, run]).fetchone()
        assert call is not None, f"no call holds the reply {key} ({step})"
        # every user turn: a retry's last message ("Reply again with the JSON object only") has no size or claims
        prompt = "\n\n".join(m["content"] for m in json.loads(call[1]) if m.get("role") == "user")
        out.append({"key": key, "step": step, "outcome": outcome, "response": call[0], "prompt": prompt})
    return out


def assert_read_or_flagged(db_path, study: str) -> dict[str, dict[str, int]]:
    """instrument → {"read", "flagged"}; fails on a reply the instrument reads otherwise than the study did, or
    reads unflagged into values that are not the reply's own."""
    counts: dict[str, dict[str, int]] = {}
    for r in replies(db_path, study):
        name = INSTRUMENT_OF_STEP[r["step"]]
        doc = get(name).read(r["response"], _options(name, r["prompt"]))
        ok = doc["outcome"] in (PARSED, REPAIRED)
        stored_ok = r["outcome"] in (PARSED, REPAIRED)
        assert ok == stored_ok, (r["key"], r["outcome"], doc)
        assert r["outcome"] == CUT or doc["outcome"] == r["outcome"], (r["key"], r["outcome"], doc)
        assert doc["flagged"] or ok, (r["key"], doc)
        if ok and not doc["flagged"]:
            obj = plain_object(r["response"])
            pair = _plain_reading(name, obj, doc) if obj is not None else None
            if pair is None or pair[0] != pair[1]:
                assert doc["outcome"] == REPAIRED and doc["reason"], (r["key"], r["response"][:500], doc)
        c = counts.setdefault(name, {"read": 0, "flagged": 0})
        c["flagged" if doc["flagged"] else "read"] += 1
    return counts
