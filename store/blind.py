"""Blind evaluation rows: blind items, the sealed key, raters, assignments, unblindings.

The sealed key (`blind_key`) is read here by exactly three functions,
`read_sealed_key` and `read_pilot_expectations`, which the core only calls from
the unblinding, blindness-audit, calibration and (after unblinding) metrics
code, and `draw_anchors`, which gives the simulator one-way digests of it.
Nothing a rater can reach goes through them.
"""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer
from store.json_columns import decoded


# --- what blinding reads from the studies engineer's tables -----------------------------------

def study_row(db: sqlite_utils.Database, study_id: str) -> dict | None:
    """The study with its definition decoded (None if there is no such study)."""
    rows = list(db["studies"].rows_where("id = ?", [study_id]))
    if not rows:
        return None
    row = dict(rows[0])
    row["definition"] = json.loads(row["definition"] or "{}")
    return row


def frozen_texts(db: sqlite_utils.Database, study_id: str, kind: str) -> list[dict]:
    """The artefacts of one kind (rubric, case, ...) a study froze: [{ref, content_hash, content}]."""
    return [dict(r) for r in db.query(
        "SELECT ref, content_hash, content FROM frozen_artefacts WHERE study_id = ? AND kind = ? ORDER BY ref",
        [study_id, kind])]


def frozen_rubrics_of_frozen_studies(db: sqlite_utils.Database) -> list[dict]:
    """Every rubric artefact held by a frozen study: [{study_id, ref, content_hash, content}]."""
    return [dict(r) for r in db.query(
        "SELECT f.study_id, f.ref, f.content_hash, f.content FROM frozen_artefacts f "
        "JOIN studies s ON s.id = f.study_id WHERE f.kind = 'rubric' AND s.frozen_at IS NOT NULL")]


def run_status_counts(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    return {r["status"]: r["n"] for r in db.query(
        "SELECT status, count(*) AS n FROM runs WHERE study_id = ? GROUP BY status", [study_id])}


def final_outputs_to_blind(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Finished runs with a final output that has no blind item yet: [{run_id, case_id, text}]."""
    return [dict(r) for r in db.query(
        "SELECT r.id AS run_id, r.case_id, o.text FROM runs r JOIN outputs o ON o.run_id = r.id "
        "WHERE r.study_id = ? AND r.status IN ('done', 'done_with_errors') "
        "AND NOT EXISTS (SELECT 1 FROM blind_key k WHERE k.run_id = r.id) "
        "ORDER BY r.id", [study_id])]


def blinded_run_ids(db: sqlite_utils.Database, study_id: str) -> set[str]:
    """Runs that already have a blind item (sealed: the blinding itself reads it, nobody else)."""
    return {r[0] for r in db.execute("SELECT run_id FROM blind_key WHERE study_id = ? AND run_id IS NOT NULL",
                                     [study_id]).fetchall()}


# --- blind items and the sealed key -------------------------------------------------------------

def insert_items(db: sqlite_utils.Database, items: list[dict], keys: list[dict]) -> None:
    """Items [{id, study_id, case_id, text, pilot}] and their key rows, in one transaction."""
    at = now()  # one timestamp for the whole batch: creation order must not show
    with writer(db):
        for item in items:
            db["blind_items"].insert({**item, "created_at": at})
        for key in keys:
            db["blind_key"].insert({
                "item_id": key["item_id"], "study_id": key["study_id"], "run_id": key.get("run_id"),
                "pilot_expectation": key.get("pilot_expectation"),
                "scrub_log": json.dumps(key.get("scrub_log", []), ensure_ascii=False), "sealed_at": at,
            })


def blind_items(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Rater-safe columns of every item of a study: id, case_id, text, pilot (no timestamps)."""
    return [dict(r) for r in db.query(
        "SELECT id, case_id, text, pilot FROM blind_items WHERE study_id = ? ORDER BY id", [study_id])]


def blind_item(db: sqlite_utils.Database, item_id: str) -> dict | None:
    rows = list(db.query("SELECT id, study_id, case_id, text, pilot FROM blind_items WHERE id = ?",
                         [item_id]))
    return dict(rows[0]) if rows else None


def pilot_case(db: sqlite_utils.Database, study_id: str) -> str | None:
    rows = list(db.query("SELECT case_id FROM blind_items WHERE study_id = ? AND pilot = 1 LIMIT 1",
                         [study_id]))
    return rows[0]["case_id"] if rows else None


def read_sealed_key(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """THE SEALED KEY: item -> run, case, condition, replicate, pilot expectation, scrub log."""
    rows = db.query(
        "SELECT k.item_id, k.run_id, k.pilot_expectation, k.scrub_log, i.case_id, i.pilot, "
        "r.condition, r.replicate FROM blind_key k JOIN blind_items i ON i.id = k.item_id "
        "LEFT JOIN runs r ON r.id = k.run_id WHERE k.study_id = ? ORDER BY k.item_id", [study_id])
    out = [decoded(r, "scrub_log", empty="[]") for r in rows]
    for r in out:
        r["pilot_expectation"] = json.loads(r["pilot_expectation"]) if r["pilot_expectation"] else None
    return out


def draw_anchors(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """Blind item id -> a digest of what it stands for (its run, the pilot's case and direction, or a
    gold or attention item's text).

    The blind item ids are random per store; the simulated raters key their draws by this instead, so
    the same study gives the same scores in every store. A one-way digest, never the run id itself:
    the simulator needs a stable name, not the condition."""
    import hashlib

    out = {}
    for r in db.query("SELECT k.item_id, k.run_id, k.pilot_expectation, i.case_id, i.text FROM blind_key k "
                      "JOIN blind_items i ON i.id = k.item_id WHERE k.study_id = ?", [study_id]):
        what = json.dumps([r["run_id"], r["case_id"], r["pilot_expectation"]], sort_keys=True)
        if r["run_id"] is None and r["pilot_expectation"] is None:  # a gold or attention item: its text
            what += r["text"]
        out[r["item_id"]] = hashlib.sha256(what.encode("utf-8")).hexdigest()[:24]
    return out


def read_pilot_expectations(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """Sealed: pilot item id -> its expectation ({"direction": "high"|"low", ...})."""
    return {r["item_id"]: json.loads(r["pilot_expectation"]) for r in db.query(
        "SELECT item_id, pilot_expectation FROM blind_key WHERE study_id = ? "
        "AND pilot_expectation IS NOT NULL", [study_id])}


# --- raters and assignments -----------------------------------------------------------------

def raters(db: sqlite_utils.Database, study_id: str, kind: str | None = "human") -> list[dict]:
    where, args = "study_id = ?", [study_id]
    if kind:
        where, args = where + " AND kind = ?", args + [kind]
    return [dict(r) for r in db["raters"].rows_where(where, args, order_by="name")]


def add_raters_and_assignments(db: sqlite_utils.Database, study_id: str, new_raters: list[dict],
                               assignments: list[dict]) -> None:
    """New raters [{name, kind, seed}] and assignment rows, in one transaction."""
    at = now()
    with writer(db):
        for r in new_raters:
            db["raters"].insert({"study_id": study_id, "name": r["name"], "kind": r.get("kind", "human"),
                                 "seed": r["seed"], "created_at": at})
        for a in assignments:
            db["assignments"].insert({"study_id": study_id, **a})


def assignments(db: sqlite_utils.Database, study_id: str, rater: str | None = None) -> list[dict]:
    """Assignment rows in each rater's own order: rater, item_id, position, side, pilot."""
    where, args = "study_id = ?", [study_id]
    if rater is not None:
        where, args = where + " AND rater = ?", args + [rater]
    return [dict(r) for r in db.query(
        f"SELECT rater, item_id, position, side, pilot FROM assignments WHERE {where} "
        "ORDER BY rater, position", args)]


def assigned_item_ids(db: sqlite_utils.Database, study_id: str) -> set[str]:
    return {r["item_id"] for r in db.query("SELECT DISTINCT item_id FROM assignments WHERE study_id = ?",
                                           [study_id])}


# --- unblinding and calibration releases -----------------------------------------------------

def record_unblinding(db: sqlite_utils.Database, study_id: str, *, by: str, forced: bool,
                      reason: str | None) -> dict:
    at = now()
    with writer(db):
        db["unblindings"].insert({"study_id": study_id, "by": by, "at": at, "forced": int(forced),
                                  "reason": reason})
        # the stored status follows (for readers of the file); the app derives it (workbench.studies.status)
        db.execute("UPDATE studies SET unblinded_at = ?, unblinded_by = ?, unblind_forced = ?, "
                   "status = 'unblinded' WHERE id = ?", [at, by, int(forced), study_id])
    return {"study_id": study_id, "by": by, "at": at, "forced": forced, "reason": reason}


def unblindings(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db["unblindings"].rows_where("study_id = ?", [study_id], order_by="id")]


def record_calibration_release(db: sqlite_utils.Database, study_id: str, rater: str, *, by: str,
                               reason: str | None) -> None:
    with writer(db):
        db["calibration_releases"].upsert({"study_id": study_id, "rater": rater, "by": by, "at": now(),
                                           "reason": reason}, pk=("study_id", "rater"))


def calibration_release(db: sqlite_utils.Database, study_id: str, rater: str) -> dict | None:
    rows = list(db["calibration_releases"].rows_where("study_id = ? AND rater = ?", [study_id, rater]))
    return dict(rows[0]) if rows else None
