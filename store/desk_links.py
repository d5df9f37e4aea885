"""The served desk's links: who a link's token hash admits to which study, until when.

Only hashes are stored (the token is shown once, when issued). Times are UTC ISO strings, compared as text.
"""

from __future__ import annotations

import sqlite_utils

from store.db import writer

COLUMNS = "id, study_id, rater, token_hash, issued_at, expires_at, revoked_at"


def insert(db: sqlite_utils.Database, row: dict) -> int:
    with writer(db):
        return db["desk_links"].insert({"revoked_at": None, **row}).last_pk


def by_hash(db: sqlite_utils.Database, token_hash: str) -> dict | None:
    rows = list(db.query(f"SELECT {COLUMNS} FROM desk_links WHERE token_hash = ?", [token_hash]))
    return dict(rows[0]) if rows else None


def live(db: sqlite_utils.Database, study_id: str, now: str) -> list[dict]:
    """The study's links neither revoked nor expired at `now`, oldest first."""
    return [dict(r) for r in db.query(
        f"SELECT {COLUMNS} FROM desk_links WHERE study_id = ? AND revoked_at IS NULL AND expires_at > ? "
        "ORDER BY id", [study_id, now])]


def of_study(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db.query(f"SELECT {COLUMNS} FROM desk_links WHERE study_id = ? ORDER BY id",
                                      [study_id])]


def revoke(db: sqlite_utils.Database, study_id: str, rater: str, now: str) -> int:
    """Revoke the rater's links not revoked yet; returns how many."""
    with writer(db):
        return db.execute("UPDATE desk_links SET revoked_at = ? WHERE study_id = ? AND rater = ? "
                          "AND revoked_at IS NULL", [now, study_id, rater]).rowcount

