"""Rater packets: the store's signing secret and identity, and what was exported and imported.

The secret lives in `store_secrets`, a table no settings view reads; it never
leaves the store. The store id (a random uuid in settings) names the store a
packet came from, so a packet from another store is refused by name.
"""

from __future__ import annotations

import secrets
import uuid

import sqlite_utils

from store.cases import now
from store.db import writer
from store.settings import get_setting, set_setting

SECRET_NAME = "packet_hmac"
STORE_ID_KEY = "store.id"


def signing_secret(db: sqlite_utils.Database) -> bytes:
    """The store's packet-signing secret, created on first use."""
    with writer(db):
        rows = list(db.query("SELECT value FROM store_secrets WHERE name = ?", [SECRET_NAME]))
        if rows:
            return bytes.fromhex(rows[0]["value"])
        value = secrets.token_hex(32)
        db["store_secrets"].insert({"name": SECRET_NAME, "value": value})
    return bytes.fromhex(value)


def store_id(db: sqlite_utils.Database) -> str:
    """A random id for this store, created on first use."""
    with writer(db):
        value = get_setting(db, STORE_ID_KEY)
        if not value:
            value = str(uuid.uuid4())
            set_setting(db, STORE_ID_KEY, value)
    return value


def record_export(db: sqlite_utils.Database, row: dict) -> None:
    with writer(db):
        db["packet_exports"].insert({"exported_at": now(), **row})


def get_export(db: sqlite_utils.Database, packet_id: str) -> dict | None:
    rows = list(db["packet_exports"].rows_where("packet_id = ?", [packet_id]))
    return dict(rows[0]) if rows else None


def imports_of(db: sqlite_utils.Database, packet_id: str) -> list[dict]:
    return [dict(r) for r in db["packet_imports"].rows_where("packet_id = ?", [packet_id], order_by="id")]


def record_import(db: sqlite_utils.Database, score_rows: list[dict], *, packet_id: str,
                  answers_digest: str) -> list[int]:
    """Write a packet's scores and its import record in ONE transaction: all or none.

    Callers that check for conflicts first hold `writer(db)` around the check
    and this call, so nothing can land in between (this then nests as a savepoint).
    """
    with writer(db):
        at = now()
        ids = []
        for row in score_rows:
            full = {"value": None, "note": None, "action": "score", "undoes": None, **row,
                    "source": "packet", "at": at}
            ids.append(db["scores"].insert(full).last_pk)
        db["packet_imports"].insert({"packet_id": packet_id, "answers_digest": answers_digest,
                                     "scores_written": len(score_rows), "imported_at": at})
    return ids
