"""Study rows and their frozen artefacts (the definition, case texts, rubric texts, prompt templates)."""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer

# A study's status, defined once (issue 24 item 4): `draft`, `frozen` or `unblinded`, derived from the row's
# own dates whenever a study is read, never from a stored word an act could forget to update. Every place
# that names it reads it from here through the row: `study list`, `study show` and the Studies screen
# (workbench.studies), the Metrics section's study choice and status line and every report's heading
# (store.metrics_data). A forced unblinding (scoring incomplete) reads `unblinded (forced)`.
DRAFT, FROZEN, UNBLINDED = "draft", "frozen", "unblinded"


def study_status(row) -> str:
    """`draft`, `frozen` or `unblinded`, from a study row (any mapping with its dates)."""
    if row.get("unblinded_at"):
        return UNBLINDED
    if row.get("frozen_at"):
        return FROZEN
    return DRAFT


def status_text(row) -> str:
    """The status in words: with `(forced)` after a forced unblinding."""
    status = study_status(row)
    return f"{status} (forced)" if status == UNBLINDED and row.get("unblind_forced") else status


def with_status(row: dict) -> dict:
    """The row with `status` and `status_text` set from the one definition above."""
    return {**row, "status": study_status(row), "status_text": status_text(row)}


def get_study(db: sqlite_utils.Database, study_id: str) -> dict | None:
    rows = list(db["studies"].rows_where("id = ?", [study_id]))
    return _decode(rows[0]) if rows else None


def list_studies(db: sqlite_utils.Database) -> list[dict]:
    return [_decode(r) for r in db["studies"].rows_where(order_by="created_at, id")]


def save_study(db: sqlite_utils.Database, *, study_id: str, name: str, protocol: str, definition: dict,
               source_text: str | None, cost_ceiling: float | None) -> None:
    """Create the study, or replace the definition of one that is not frozen yet.

    The caller checks frozenness; this refuses anyway so a frozen definition can never be overwritten.
    """
    with writer(db):
        existing = list(db["studies"].rows_where("id = ?", [study_id]))
        if existing and existing[0]["frozen_at"]:
            raise ValueError(f"study '{study_id}' is frozen; its definition cannot change")
        row = {
            "id": study_id, "name": name, "protocol": protocol,
            "definition": json.dumps(definition, ensure_ascii=False, sort_keys=True),
            "source_text": source_text, "cost_ceiling": cost_ceiling, "status": "draft",
        }
        if existing:
            db["studies"].update(study_id, row)
        else:
            db["studies"].insert({**row, "created_at": now()})


def update_operational(db: sqlite_utils.Database, study_id: str, *, definition: dict,
                       cost_ceiling: float | None) -> None:
    """Change what a frozen study may change: its cost ceiling (outside the freeze hash)."""
    with writer(db):
        db["studies"].update(study_id, {"definition": json.dumps(definition, ensure_ascii=False, sort_keys=True),
                                        "cost_ceiling": cost_ceiling})


def record_freeze(db: sqlite_utils.Database, study_id: str, freeze_hash: str,
                  artefacts: list[dict]) -> str:
    """Write every frozen artefact and the study's hash in one transaction. Returns frozen_at."""
    frozen_at = now()
    with writer(db):
        row = db.execute("SELECT frozen_at FROM studies WHERE id = ?", [study_id]).fetchone()
        if row is None:
            raise KeyError(study_id)
        if row[0]:
            raise ValueError(f"study '{study_id}' is already frozen")
        db.execute("DELETE FROM frozen_artefacts WHERE study_id = ?", [study_id])
        db["frozen_artefacts"].insert_all(
            [{"study_id": study_id, "kind": a["kind"], "ref": a["ref"], "content_hash": a["content_hash"],
              "content": a["content"]} for a in artefacts])
        db["studies"].update(study_id, {"freeze_hash": freeze_hash, "frozen_at": frozen_at,
                                        "status": "frozen"})
    return frozen_at


def frozen_artefacts(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db["frozen_artefacts"].rows_where(
        "study_id = ?", [study_id], order_by="kind, ref")]


def set_study_status(db: sqlite_utils.Database, study_id: str, status: str) -> None:
    with writer(db):
        db["studies"].update(study_id, {"status": status})


def _decode(row: dict) -> dict:
    row = dict(row)
    row["definition"] = json.loads(row["definition"])
    return with_status(row)
