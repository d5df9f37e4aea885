"""Rubric versions, keyed by content hash; a rubric id may have several versions."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer


def add_rubric_version(db: sqlite_utils.Database, *, hash: str, rubric_id: str, name: str, text: str,
                       definition: dict, source_path: str | None) -> bool:
    """Record a rubric version; returns False when that exact text is already stored."""
    with writer(db):
        if db["rubrics"].count_where("hash = ?", [hash]):
            return False
        db["rubrics"].insert({
            "hash": hash, "rubric_id": rubric_id, "name": name, "text": text,
            "definition": json.dumps(definition), "source_path": source_path, "loaded_at": now(),
        })
    return True


def get_rubric_version(db: sqlite_utils.Database, hash: str) -> dict | None:
    rows = list(db["rubrics"].rows_where("hash = ?", [hash]))
    if not rows:
        return None
    row = dict(rows[0])
    row["definition"] = json.loads(row["definition"])
    return row


def rubric_versions(db: sqlite_utils.Database, rubric_id: str | None = None) -> list[dict]:
    where, args = ("rubric_id = ?", [rubric_id]) if rubric_id else (None, [])
    return [dict(r) for r in db["rubrics"].rows_where(where, args, order_by="loaded_at")]
