"""How each structured reply was read (workbench/structured): one row per reply, counted per step."""

from __future__ import annotations

import sqlite_utils

from store.db import writer
from store.prepared import upsert_row


def put_reply(db: sqlite_utils.Database, *, study_id: str, key: str, step: str, outcome: str, detail: str,
              at: str) -> None:
    """Record one reading; the same reply read again (a resumed run's replay) replaces its row."""
    with writer(db):
        upsert_row(db, "structured_replies", {"study_id": study_id, "key": key, "step": step, "outcome": outcome,
                                              "detail": detail, "at": at}, pk=("study_id", "key"))


def outcome_counts(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """[{step, outcome, n}] for a study, by step and outcome."""
    return [dict(r) for r in db.query(
        "SELECT step, outcome, count(*) AS n FROM structured_replies WHERE study_id = ? "
        "GROUP BY step, outcome ORDER BY step, outcome", [study_id])]


def outcome_detail_counts(db: sqlite_utils.Database, study_id: str, outcome: str, contains: str) -> dict[str, int]:
    """step -> replies of `outcome` whose detail contains `contains` (e.g. cut replies asked again with more room)."""
    return {r["step"]: r["n"] for r in db.query(
        "SELECT step, count(*) AS n FROM structured_replies WHERE study_id = ? AND outcome = ? AND instr(detail, ?) > 0 "
        "GROUP BY step", [study_id, outcome, contains])}
