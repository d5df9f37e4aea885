"""The gateway's changes of an endpoint's connection limit (workbench/gateway/connections.py)."""

from __future__ import annotations

import sqlite_utils

from store.db import writer
from store.prepared import insert_row


def add_change(db: sqlite_utils.Database, *, study_id: str | None, endpoint: str, old: int, new: int, reason: str,
               at: str) -> None:
    with writer(db):
        insert_row(db, "connection_changes", {"study_id": study_id, "endpoint": endpoint, "old": old, "new": new,
                                              "reason": reason, "at": at})


def changes_for(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT endpoint, old, new, reason, at FROM connection_changes WHERE study_id = ? ORDER BY id", [study_id])]
