"""The human pilot's rounds and the rubric refinements between them (append-only)."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer


def add_round(db: sqlite_utils.Database, *, study_id: str, round_no: int, rubric_hashes: dict, results: list,
              passed: bool, note: str | None = None) -> None:
    with writer(db):
        db["pilot_rounds"].insert({"study_id": study_id, "round": round_no, "rubric_hashes": json.dumps(rubric_hashes),
                                   "results": json.dumps(results), "passed": int(passed), "note": note,
                                   "created_at": now()})


def rounds(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    out = []
    for r in db["pilot_rounds"].rows_where("study_id = ?", [study_id], order_by="round"):
        r = dict(r)
        r["rubric_hashes"], r["results"] = json.loads(r["rubric_hashes"]), json.loads(r["results"])
        out.append(r)
    return out


def add_refinement(db: sqlite_utils.Database, *, study_id: str, rubric_id: str, old_hash: str, new_hash: str,
                   reason: str, by: str) -> None:
    with writer(db):
        db["rubric_refinements"].insert({"study_id": study_id, "rubric_id": rubric_id, "old_hash": old_hash,
                                         "new_hash": new_hash, "reason": reason, "by": by, "created_at": now()})


def refinements(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db["rubric_refinements"].rows_where("study_id = ?", [study_id], order_by="id")]
