"""Adjudicated values for items whose raters disagreed by more than the pre-registered margin:
append-only, the latest row per (study, item, rubric, criterion) is the current one."""

from __future__ import annotations

import sqlite_utils

from store.cases import now
from store.db import writer


def add_adjudication(db: sqlite_utils.Database, *, study_id: str, item_id: str, rubric_id: str, criterion: str,
                     value: float, method: str, adjudicator: str, note: str | None) -> int:
    with writer(db):
        return db["adjudications"].insert({
            "study_id": study_id, "item_id": item_id, "rubric_id": rubric_id, "criterion": criterion,
            "value": value, "method": method, "adjudicator": adjudicator, "note": note,
            "created_at": now()}).last_pk


def adjudications(db: sqlite_utils.Database, study_id: str) -> dict[tuple[str, str, str], dict]:
    """{(item_id, rubric_id, criterion): the latest adjudication}."""
    out: dict[tuple[str, str, str], dict] = {}
    for r in db["adjudications"].rows_where("study_id = ?", [study_id], order_by="id"):
        out[(r["item_id"], r["rubric_id"], r["criterion"])] = dict(r)
    return out
