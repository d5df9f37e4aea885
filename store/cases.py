"""Case rows. The case file stays the researcher's source; the store keeps what was imported."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import sqlite_utils

from store.db import writer


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _row(case: dict, source_path: str | None, content_hash: str) -> dict:
    return {
        "id": case["id"],
        "title": case["title"],
        "type": case["type"],
        "domain": case["domain"],
        "status": case["status"],
        "strategies": json.dumps(case["strategies"]),
        "decision_date": case["decision_date"],
        "complexity": case["complexity"],
        "concern_domain": case["concern_domain"],
        "rubric": case["rubric"],
        "source_path": source_path,
        "content_hash": content_hash,
        "document": json.dumps(case, ensure_ascii=False),
        "updated_at": now(),
    }


def upsert_cases(db: sqlite_utils.Database, items: list[tuple[dict, str | None, str]]) -> int:
    """Write every (case document, source path, content hash) in one transaction: all or nothing."""
    with writer(db):
        for case, source_path, content_hash in items:
            db["cases"].upsert(_row(case, source_path, content_hash), pk="id")
    return len(items)


def get_case(db: sqlite_utils.Database, case_id: str) -> dict | None:
    rows = list(db["cases"].rows_where("id = ?", [case_id]))
    return _decode(rows[0]) if rows else None


def list_cases(db: sqlite_utils.Database) -> list[dict]:
    return [_decode(r) for r in db["cases"].rows_where(order_by="id")]


def case_count(db: sqlite_utils.Database) -> int:
    return db["cases"].count


def _decode(row: dict) -> dict:
    row = dict(row)
    row["strategies"] = json.loads(row["strategies"])
    row["document"] = json.loads(row["document"])
    return row
