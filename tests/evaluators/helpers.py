"""A frozen study (tests/blinding/study_fixture.py) with a `[quality]` table, and ways to score it."""

from __future__ import annotations

import json

from tests.blinding.study_fixture import make_study

NEUTRAL = ("RECOMMENDATION: Expand in stages with demand gates.\nREASONING: A demand-side contraction would "
           "strand the berths, so each stage waits for demand.\nRISKS:\n- Contraction of shipping demand.\n"
           "CONFIDENCE: medium.")
FILLER = (" Demand forecasts for the region have missed by a wide margin before, and the berths take three "
          "years to build.")
# Real items of the lengths real responses have (about 300 to 1200 characters), one per condition.
TEXTS = {c: NEUTRAL.replace("CONFIDENCE:", FILLER * k + "\nCONFIDENCE:")
         for k, c in enumerate(("B1", "B2", "B3", "C1", "C2", "C3", "P1"))}
QUALITY = {"gold_rate": 0.3, "attention_rate": 0.2, "time_floor_seconds": 5.0,
           "exclude_if": ["gold_exact < 0.7", "raters: under_floor > 0.2"], "verdicts": "original"}


def quality_study(db, *, quality: dict | None = None, **kw) -> str:
    """make_study with a [quality] table in its definition (as a study file would give it)."""
    kw.setdefault("texts", TEXTS)
    sid = make_study(db, **kw)
    row = db["studies"].get(sid)
    definition = json.loads(row["definition"])
    definition["quality"] = {**QUALITY, **(quality or {})}
    db["studies"].update(sid, {"definition": json.dumps(definition)})
    return sid
