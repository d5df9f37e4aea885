"""Human scores: append-only rows. An edit, an undo, a note or a skip is a new row.

The rater's current value of a cell (item, rubric hash, criterion) is the
`value` of the latest row whose action is `score` or `undo`; an undo row
carries the value the cell had before the score it reverses (`undoes`).
Every write is its own committed transaction, so nothing typed is lost.
"""

from __future__ import annotations

import sqlite_utils

from store.cases import now
from store.db import writer

COLUMNS = "id, study_id, rater, item_id, rubric_hash, criterion, value, note, action, source, at, undoes, seconds"


def append(db: sqlite_utils.Database, row: dict) -> int:
    """Write one row and commit; returns its id."""
    with writer(db):
        return _insert(db, row)


def append_many(db: sqlite_utils.Database, rows: list[dict]) -> list[int]:
    """Write several rows in one transaction (a packet import): all or none."""
    with writer(db):
        return [_insert(db, row) for row in rows]


def _insert(db: sqlite_utils.Database, row: dict) -> int:
    full = {"value": None, "note": None, "action": "score", "source": "tui", "undoes": None, "at": now(), **row}
    return db["scores"].insert(full).last_pk


def rater_rows(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str | None = None) -> list[dict]:
    """One rater's rows in the order written (never another rater's)."""
    where, args = "study_id = ? AND rater = ?", [study_id, rater]
    if item_id is not None:
        where, args = where + " AND item_id = ?", args + [item_id]
    return [dict(r) for r in db.query(f"SELECT {COLUMNS} FROM scores WHERE {where} ORDER BY id", args)]


def study_rows(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every rater's rows of a study (metrics and unblinding; never rater-facing)."""
    return [dict(r) for r in db.query(f"SELECT {COLUMNS} FROM scores WHERE study_id = ? ORDER BY id",
                                      [study_id])]


def last_row_id(db: sqlite_utils.Database, study_id: str, rater: str) -> int:
    row = db.execute("SELECT max(id) FROM scores WHERE study_id = ? AND rater = ?", [study_id, rater]).fetchone()
    return int(row[0] or 0)


def count(db: sqlite_utils.Database, study_id: str) -> int:
    return db.execute("SELECT count(*) FROM scores WHERE study_id = ?", [study_id]).fetchone()[0]
