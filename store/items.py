"""Protocol items (debate topics, module outputs, imported interactions) and protocol artifacts.

Items belong to one study and are keyed by an id unique within it; a run's
`case_id` names the item it runs on. An item is written once: loading the
same id again keeps the first (re-importing a file adds nothing). Artifacts
are a protocol's structured by-products (a belief graph, a crux card, an
extraction), keyed by (study, run, kind, key); writing one again replaces it,
so a re-run rewrites what its previous attempt left.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

import sqlite_utils

from store.cases import now
from store.db import writer
from store.prepared import select_rows

BATCH = 2000


def add_items(db: sqlite_utils.Database, study_id: str, items: Iterable[dict], *, kind: str) -> int:
    """Insert items ({"id", "payload", "content_hash", "source"}) in batches; returns how many were new."""
    added = 0
    batch: list[list[Any]] = []
    stamp = now()

    def flush() -> int:
        if not batch:
            return 0
        with writer(db):
            before = db.execute("SELECT total_changes()").fetchone()[0]
            db.conn.executemany(
                "INSERT OR IGNORE INTO items (study_id, id, kind, payload, content_hash, source, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
            new = db.execute("SELECT total_changes()").fetchone()[0] - before
        batch.clear()
        return new

    for item in items:
        batch.append([study_id, item["id"], kind, json.dumps(item["payload"], ensure_ascii=False, sort_keys=True),
                      item["content_hash"], item.get("source"), stamp])
        if len(batch) >= BATCH:
            added += flush()
    return added + flush()


def _item(row: dict) -> dict:
    row = dict(row)
    row["payload"] = json.loads(row["payload"])
    return row


def list_items(db: sqlite_utils.Database, study_id: str, *, kind: str | None = None) -> list[dict]:
    return list(iter_items(db, study_id, kind=kind))


def iter_items(db: sqlite_utils.Database, study_id: str, *, kind: str | None = None) -> Iterator[dict]:
    where, args = "study_id = ?", [study_id]
    if kind is not None:
        where, args = where + " AND kind = ?", args + [kind]
    for row in db["items"].rows_where(where, args, order_by="rowid"):
        yield _item(row)


def get_item(db: sqlite_utils.Database, study_id: str, item_id: str) -> dict | None:
    rows = select_rows(db, "SELECT * FROM items WHERE study_id = ? AND id = ?", [study_id, item_id])
    return _item(rows[0]) if rows else None


def count_items(db: sqlite_utils.Database, study_id: str, *, kind: str | None = None) -> int:
    if kind is None:
        return db["items"].count_where("study_id = ?", [study_id])
    return db["items"].count_where("study_id = ? AND kind = ?", [study_id, kind])


def item_hashes(db: sqlite_utils.Database, study_id: str) -> list[tuple[str, str]]:
    """(id, content_hash) of every item, in id order: what a freeze hashes."""
    return [(r[0], r[1]) for r in db.execute(
        "SELECT id, content_hash FROM items WHERE study_id = ? ORDER BY id", [study_id]).fetchall()]


def put_artifact(db: sqlite_utils.Database, study_id: str, kind: str, key: str, payload: Any, *,
                 run_id: str | None = None) -> None:
    with writer(db):
        db.execute("DELETE FROM artifacts WHERE study_id = ? AND run_id IS ? AND kind = ? AND key = ?",
                   [study_id, run_id, kind, key])
        db.execute("INSERT INTO artifacts (study_id, run_id, kind, key, payload, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   [study_id, run_id, kind, key, json.dumps(payload, ensure_ascii=False, sort_keys=True), now()])


def artifacts(db: sqlite_utils.Database, study_id: str, kind: str, *, run_id: str | None = None,
              any_run: bool = False) -> list[dict]:
    """Artifacts of a kind: of one run (`run_id`), of the study itself (default), or of every run (`any_run`)."""
    where, args = "study_id = ? AND kind = ?", [study_id, kind]
    if not any_run:
        where, args = where + " AND run_id IS ?", args + [run_id]
    out = []
    for row in db["artifacts"].rows_where(where, args, order_by="id"):
        row = dict(row)
        row["payload"] = json.loads(row["payload"])
        out.append(row)
    return out


def get_artifact(db: sqlite_utils.Database, study_id: str, kind: str, key: str, *,
                 run_id: str | None = None) -> Any | None:
    row = db.execute("SELECT payload FROM artifacts WHERE study_id = ? AND run_id IS ? AND kind = ? AND key = ?",
                     [study_id, run_id, kind, key]).fetchone()
    return json.loads(row[0]) if row else None
