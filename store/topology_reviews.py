"""A person's review of an automatic topology coding: append-only, the latest row per (study, case,
condition) is the current coding."""

from __future__ import annotations

import sqlite_utils

from store.cases import now
from store.db import writer


def add_review(db: sqlite_utils.Database, *, study_id: str, case_id: str, condition: str,
               automatic_pattern: str | None, pattern: str, switching_assumption: str | None, reviewer: str,
               reason: str) -> int:
    with writer(db):
        return db["topology_reviews"].insert({
            "study_id": study_id, "case_id": case_id, "condition": condition,
            "automatic_pattern": automatic_pattern, "pattern": pattern,
            "switching_assumption": switching_assumption, "reviewer": reviewer, "reason": reason,
            "created_at": now()}).last_pk


def reviews(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every review of the study, oldest first."""
    return [dict(r) for r in db["topology_reviews"].rows_where("study_id = ?", [study_id], order_by="id")]


def current_reviews(db: sqlite_utils.Database, study_id: str) -> dict[tuple[str, str], dict]:
    """{(case_id, condition): the latest review}."""
    out: dict[tuple[str, str], dict] = {}
    for r in reviews(db, study_id):
        out[(r["case_id"], r["condition"])] = r
    return out
