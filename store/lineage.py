"""Study lineage (issue 42): which earlier studies used the same data, what they reported, and the reason a
study's results are exploratory. `record` replaces a study's rows (at create and again at freeze)."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer


def data_units(db: sqlite_utils.Database, study_id: str) -> set[str]:
    """The study's items (interactions, topics, debates, module outputs) by id and content: an item of the same
    id with other content (another generator seed's interaction i000001) is other data."""
    return {f"{r['id']}#{r['content_hash']}" for r in db.query("SELECT id, content_hash FROM items WHERE study_id = ?",
                                                               [study_id])}


def first_result_at(db: sqlite_utils.Database, study_id: str) -> str | None:
    """When the study's first output (a result someone could read) was written, or None."""
    rows = list(db.query("SELECT MIN(o.created_at) AS at FROM outputs o JOIN runs r ON r.id = o.run_id "
                         "WHERE r.study_id = ?", [study_id]))
    return rows[0]["at"] if rows else None


def record(db: sqlite_utils.Database, study_id: str, rows: list[dict]) -> None:
    with writer(db):
        db.execute("DELETE FROM study_lineage WHERE study_id = ?", [study_id])
        at = now()
        for r in rows:
            db["study_lineage"].insert({"study_id": study_id, "earlier_study": r["earlier_study"],
                                        "shared": r["shared"], "earlier_results_at": r["earlier_results_at"],
                                        "reported": json.dumps(r["reported"], sort_keys=True),
                                        "matches": json.dumps(r["matches"], sort_keys=True),
                                        "exploratory": r["exploratory"], "recorded_at": at})


def lineage(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    rows = db.query("SELECT * FROM study_lineage WHERE study_id = ? ORDER BY earlier_study", [study_id])
    return [{**r, "reported": json.loads(r["reported"]), "matches": json.loads(r["matches"])} for r in rows]
