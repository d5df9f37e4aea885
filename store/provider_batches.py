"""Provider batches (workbench/gateway/provider_batch.py): each batch, each request in it, their states."""

from __future__ import annotations

import json

import sqlite_utils

from store.db import writer

OPEN_STATES = ("submitting", "validating", "in_progress", "finalizing", "completed", "expired", "failed",
               "cancelled", "cancelling")
"""Every state but `recorded` and `abandoned`: a batch whose results (or failures) are not all in the store."""


def add_batch(db: sqlite_utils.Database, row: dict, requests: list[tuple[str, dict]]) -> None:
    """The batch (state `submitting`) and its requests, in one transaction, before the provider is asked."""
    with writer(db):
        db["provider_batches"].insert(row)
        db["provider_batch_requests"].insert_all(
            {"batch_id": row["id"], "custom_id": cid, "study_id": row["study_id"], "state": "open",
             "record": json.dumps(record, ensure_ascii=False, sort_keys=True)} for cid, record in requests)


def update_batch(db: sqlite_utils.Database, batch_id: str, **fields) -> None:
    with writer(db):
        db["provider_batches"].update(batch_id, fields)


def get_batch(db: sqlite_utils.Database, batch_id: str) -> dict:
    return dict(db["provider_batches"].get(batch_id))


def open_batches(db: sqlite_utils.Database, study_id: str | None) -> list[dict]:
    marks = ",".join("?" * len(OPEN_STATES))
    return [dict(r) for r in db.query(
        f"SELECT * FROM provider_batches WHERE study_id IS ? AND state IN ({marks}) ORDER BY created_at, id",
        [study_id, *OPEN_STATES])]


def batches_for(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT * FROM provider_batches WHERE study_id = ? ORDER BY created_at, id", [study_id])]


def open_request_batch(db: sqlite_utils.Database, study_id: str | None, custom_id: str) -> str | None:
    """The open batch that holds this call, if one does."""
    marks = ",".join("?" * len(OPEN_STATES))
    row = db.execute(
        f"SELECT r.batch_id FROM provider_batch_requests r JOIN provider_batches b ON b.id = r.batch_id "
        f"WHERE r.study_id IS ? AND r.custom_id = ? AND r.state = 'open' AND b.state IN ({marks}) "
        f"ORDER BY b.created_at DESC LIMIT 1", [study_id, custom_id, *OPEN_STATES]).fetchone()
    return row[0] if row else None


def batch_requests(db: sqlite_utils.Database, batch_id: str, state: str | None = None) -> list[dict]:
    sql = "SELECT custom_id, record, state FROM provider_batch_requests WHERE batch_id = ?"
    params: list = [batch_id]
    if state is not None:
        sql += " AND state = ?"
        params.append(state)
    return [{"custom_id": r[0], "record": json.loads(r[1]), "state": r[2]} for r in db.execute(sql + " ORDER BY rowid", params)]


def mark_requests(db: sqlite_utils.Database, batch_id: str, states: list[tuple[str, str]]) -> None:
    """Set each request's state: `states` holds (custom_id, state) pairs."""
    with writer(db):
        db.conn.executemany("UPDATE provider_batch_requests SET state = ? WHERE batch_id = ? AND custom_id = ?",
                            [(state, batch_id, custom_id) for custom_id, state in states])
