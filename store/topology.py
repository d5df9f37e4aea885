"""P1 decision-landscape topology: one classification per (study, case, condition)."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer
from store.json_columns import decoded


def save_topology(db: sqlite_utils.Database, *, study_id: str, case_id: str, condition: str, pattern: str,
                  switching_assumption: str | None, convergent_recommendation: str | None,
                  detail: dict) -> None:
    with writer(db):
        db["topology"].upsert({
            "study_id": study_id, "case_id": case_id, "condition": condition, "pattern": pattern,
            "switching_assumption": switching_assumption,
            "convergent_recommendation": convergent_recommendation,
            "detail": json.dumps(detail, ensure_ascii=False), "created_at": now(),
        }, pk=("study_id", "case_id", "condition"))


def get_topology(db: sqlite_utils.Database, study_id: str, case_id: str, condition: str = "P1") -> dict | None:
    rows = list(db["topology"].rows_where("study_id = ? AND case_id = ? AND condition = ?",
                                          [study_id, case_id, condition]))
    return decoded(rows[0], "detail") if rows else None


def topology_for_study(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [decoded(r, "detail") for r in db["topology"].rows_where("study_id = ?", [study_id], order_by="case_id")]
