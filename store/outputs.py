"""Final outputs: one per run, the full final text and the parsed report."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer
from store.json_columns import decoded
from store.prepared import select_rows, upsert_row


def write_output(db: sqlite_utils.Database, run_id: str, text: str, report: dict, *, truncated: bool = False) -> None:
    """`truncated`: the text ends where the model was cut off at max_tokens."""
    with writer(db):
        upsert_row(db, "outputs", {"run_id": run_id, "text": text, "report": json.dumps(report, ensure_ascii=False),
                                   "truncated": int(truncated), "created_at": now()}, pk=("run_id",))


def get_output(db: sqlite_utils.Database, run_id: str) -> dict | None:
    rows = select_rows(db, "SELECT * FROM outputs WHERE run_id = ?", [run_id])
    return decoded(rows[0], "report") if rows else None


def outputs_for_study(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every final output of a study with its run's case, condition and replicate."""
    rows = db.execute(
        "SELECT o.run_id, o.text, o.report, o.created_at, r.case_id, r.condition, r.replicate, o.truncated "
        "FROM outputs o JOIN runs r ON r.id = o.run_id WHERE r.study_id = ? "
        "ORDER BY r.case_id, r.condition, r.replicate", [study_id]).fetchall()
    cols = ["run_id", "text", "report", "created_at", "case_id", "condition", "replicate", "truncated"]
    return [decoded(dict(zip(cols, r)), "report") for r in rows]
