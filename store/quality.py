"""Evaluator quality control: planted items (sealed), exclusion decisions, blind reviews of verdicts.

`planted_items` is sealed like `blind_key`: which blind items are gold or attention checks, and what they
expect. It is read by the blinding (to deal planted items to every rater), the judge queue (attention items
are for people only), the quality figures and the ratings loader (planted items never enter a table);
nothing a rater or judge receives reads it. Decisions and reviews are append-only: the latest row holds.
"""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer


# --- planted items ---------------------------------------------------------------------------------

def insert_planted(db: sqlite_utils.Database, rows: list[dict], at: str) -> None:
    """Planted rows [{item_id, study_id, kind, expected, source}] (inside the blinding's transaction)."""
    with writer(db):
        for r in rows:
            db["planted_items"].insert({"item_id": r["item_id"], "study_id": r["study_id"], "kind": r["kind"],
                                        "expected": json.dumps(r["expected"], sort_keys=True),
                                        "source": r["source"], "sealed_at": at})


def planted(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """SEALED: item id -> {kind, expected, source} for the study's gold and attention items."""
    return {r["item_id"]: {"kind": r["kind"], "expected": json.loads(r["expected"]), "source": r["source"]}
            for r in db.query("SELECT item_id, kind, expected, source FROM planted_items WHERE study_id = ? "
                              "ORDER BY item_id", [study_id])}


def planted_kinds(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """SEALED: item id -> 'gold' | 'attention' (no expectation)."""
    return {r[0]: r[1] for r in db.execute("SELECT item_id, kind FROM planted_items WHERE study_id = ?",
                                           [study_id]).fetchall()}


# --- timings and order of human scores ------------------------------------------------------------

def score_timings(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every score row's rater, item, seconds and id (the order written), for time per item."""
    return [dict(r) for r in db.query(
        "SELECT id, rater, item_id, seconds FROM scores WHERE study_id = ? AND action = 'score' ORDER BY id",
        [study_id])]


def queue_positions(db: sqlite_utils.Database, study_id: str) -> dict[tuple[str, str], int]:
    """(rater, item id) -> the item's position in that rater's queue (the order they met it)."""
    return {(r[0], r[1]): r[2] for r in db.execute(
        "SELECT rater, item_id, position FROM assignments WHERE study_id = ?", [study_id]).fetchall()}


# --- exclusion decisions ---------------------------------------------------------------------------

def add_decisions(db: sqlite_utils.Database, study_id: str, rows: list[dict]) -> None:
    """Decision rows [{evaluator, kind, excluded, rules, quality, act, reason, by}] in one transaction."""
    at = now()
    with writer(db):
        for r in rows:
            db["evaluator_decisions"].insert({
                "study_id": study_id, "evaluator": r["evaluator"], "kind": r["kind"], "excluded": int(r["excluded"]),
                "rules": json.dumps(r.get("rules") or []), "quality": json.dumps(r.get("quality") or {}),
                "act": r["act"], "reason": r.get("reason"), "by": r["by"], "at": at})


def decisions(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every decision row of the study, oldest first (JSON decoded)."""
    out = []
    for r in db.query("SELECT * FROM evaluator_decisions WHERE study_id = ? ORDER BY id", [study_id]):
        r = dict(r)
        r["rules"], r["quality"], r["excluded"] = json.loads(r["rules"]), json.loads(r["quality"]), bool(r["excluded"])
        out.append(r)
    return out


def excluded_evaluators(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """evaluator -> kind ('human' | 'judge') for every evaluator whose latest decision excludes them."""
    latest: dict[str, dict] = {}
    for r in db.query("SELECT evaluator, kind, excluded FROM evaluator_decisions WHERE study_id = ? ORDER BY id",
                      [study_id]):
        latest[r["evaluator"]] = dict(r)
    return {name: r["kind"] for name, r in latest.items() if r["excluded"]}


# --- blind reviews of judge verdicts ---------------------------------------------------------------

def add_review(db: sqlite_utils.Database, row: dict) -> int:
    """One review row {study_id, verdict_id, judge, item_id, rubric_hash, criterion, original, mark,
    corrected, reason, by}; the verdict itself is never touched."""
    with writer(db):
        return db["verdict_reviews"].insert({**row, "at": now()}).last_pk


def reviews(db: sqlite_utils.Database, study_id: str, judge: str | None = None) -> list[dict]:
    where, args = "study_id = ?", [study_id]
    if judge is not None:
        where, args = where + " AND judge = ?", args + [judge]
    return [dict(r) for r in db.query(f"SELECT * FROM verdict_reviews WHERE {where} ORDER BY id", args)]


def verdict_for_review(db: sqlite_utils.Database, verdict_id: int) -> dict | None:
    """One verdict row with its justification and detail (quote, reasoning): what a reviewer reads."""
    rows = list(db.query("SELECT id, study_id, judge, item_id, rubric_hash, criterion, value, status, justification, "
                         "detail FROM verdicts WHERE id = ?", [verdict_id]))
    if not rows:
        return None
    r = dict(rows[0])
    r["detail"] = json.loads(r["detail"] or "{}")
    return r


# --- the blindness audit of planted items ----------------------------------------------------------

def add_planted_audit(db: sqlite_utils.Database, row: dict) -> None:
    with writer(db):
        db["planted_audits"].insert({**row, "at": now()})


def planted_audits(db: sqlite_utils.Database, study_id: str, model: str | None = None) -> list[dict]:
    where, args = "study_id = ?", [study_id]
    if model is not None:
        where, args = where + " AND model = ?", args + [model]
    return [dict(r) for r in db["planted_audits"].rows_where(where, args, order_by="id")]
