"""LLM judge verdicts and blindness-audit guesses: append-only rows.

A verdict row is one judge's score of one criterion of one item under one
rubric version. `status` is `ok` or `judge_error` (the reply never validated;
`value` is NULL and `raw` keeps what the model said). The latest row per
(judge, item, rubric hash, criterion) is the judge's current verdict.
"""

from __future__ import annotations

import json

import sqlite_utils

from store.cases import now
from store.db import writer


def append_verdicts(db: sqlite_utils.Database, rows: list[dict]) -> None:
    """All criteria of one judged item in one transaction."""
    at = now()
    with writer(db):
        for row in rows:
            db["verdicts"].insert({
                "value": None, "justification": None, "raw": None, "pipeline": "direct", "confidence": None,
                "at": at, **row, "detail": json.dumps(row.get("detail") or {}, ensure_ascii=False),
            })


def verdict_rows(db: sqlite_utils.Database, study_id: str, judge: str | None = None) -> list[dict]:
    where, args = "study_id = ?", [study_id]
    if judge is not None:
        where, args = where + " AND judge = ?", args + [judge]
    rows = []
    for r in db.query(f"SELECT * FROM verdicts WHERE {where} ORDER BY id", args):
        r = dict(r)
        r["detail"] = json.loads(r["detail"] or "{}")
        rows.append(r)
    return rows


def judged_keys(db: sqlite_utils.Database, study_id: str, judge: str) -> dict[tuple[str, str], set[str]]:
    """(item_id, rubric_hash) -> the statuses of its rows for one judge (to resume a judging run)."""
    out: dict[tuple[str, str], set[str]] = {}
    for r in db.query("SELECT item_id, rubric_hash, status FROM verdicts WHERE study_id = ? AND judge = ?",
                      [study_id, judge]):
        out.setdefault((r["item_id"], r["rubric_hash"]), set()).add(r["status"])
    return out


def judging_rounds(db: sqlite_utils.Database, study_id: str, judge: str) -> dict[tuple[str, str], int]:
    """(item_id, rubric_hash) -> how many times one judge judged it (each judging writes one row per
    criterion, so the most rows of any one criterion)."""
    out: dict[tuple[str, str], int] = {}
    for r in db.query("SELECT item_id, rubric_hash, count(*) AS n FROM verdicts WHERE study_id = ? AND judge = ? "
                      "GROUP BY item_id, rubric_hash, criterion", [study_id, judge]):
        key = (r["item_id"], r["rubric_hash"])
        out[key] = max(out.get(key, 0), r["n"])
    return out


def last_error_raw(db: sqlite_utils.Database, study_id: str, judge: str, item_id: str, rubric_hash: str) -> str | None:
    """The raw reply of the latest judge_error row of one (judge, item, rubric), if any."""
    row = db.execute("SELECT raw FROM verdicts WHERE study_id = ? AND judge = ? AND item_id = ? AND rubric_hash = ? "
                     "AND status = 'judge_error' ORDER BY id DESC LIMIT 1",
                     [study_id, judge, item_id, rubric_hash]).fetchone()
    return row[0] if row else None


def append_audit(db: sqlite_utils.Database, row: dict) -> None:
    with writer(db):
        db["blindness_audits"].insert({"at": now(), **row})


def audit_rows(db: sqlite_utils.Database, study_id: str, model: str | None = None) -> list[dict]:
    where, args = "study_id = ?", [study_id]
    if model is not None:
        where, args = where + " AND model = ?", args + [model]
    return [dict(r) for r in db["blindness_audits"].rows_where(where, args, order_by="id")]


def current_verdict_pairs(db: sqlite_utils.Database, study_id: str, judge: str | None = None) -> tuple[int, int]:
    """(judged, judge errors): (judge, item, rubric version) pairs with a current verdict, and of those
    the pairs whose current verdict is a judge_error (of one judge, when named). Rows written by retries
    never add to either."""
    mine, args = (" AND judge = ?", [study_id, judge]) if judge is not None else ("", [study_id])
    row = db.execute(
        "SELECT count(*), coalesce(sum(errors > 0), 0) FROM ("
        " SELECT judge, item_id, rubric_hash, sum(status = 'judge_error') AS errors FROM verdicts v"
        f" WHERE study_id = ?{mine} AND id = (SELECT max(id) FROM verdicts w WHERE w.study_id = v.study_id"
        "  AND w.judge = v.judge AND w.item_id = v.item_id AND w.rubric_hash = v.rubric_hash"
        "  AND w.criterion = v.criterion)"
        " GROUP BY judge, item_id, rubric_hash)", args).fetchone()
    return int(row[0]), int(row[1])
