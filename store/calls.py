"""Model call records: one row per attempt (ok | error | replayed), mirrored in the JSONL call log."""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from store.db import writer
from store.prepared import insert_row, select_rows

COLUMNS = (
    "study_id", "run_id", "turn", "agent", "role", "call_key", "attempt", "model", "api_base", "request",
    "settings", "replicate", "sample", "response", "finish_reason", "status", "error", "input_tokens",
    "output_tokens", "cost", "latency_ms", "started_at", "finished_at", "log_line", "log_hash", "via",
)


def add_call(db: sqlite_utils.Database, record: dict[str, Any], *, answers: int | None = None) -> int:
    """Insert one attempt. `request` and `settings` may be given as Python objects. `answers`: the journal
    entry of the request this attempt records (`journal_sent`), closed in the same transaction."""
    with writer(db):
        call_id = _insert_call(db, record)
        if answers is not None:
            db.execute("DELETE FROM call_journal WHERE id = ?", [answers])
        return call_id


def add_calls(db: sqlite_utils.Database, records: list[dict[str, Any]]) -> list[int]:
    """Insert attempts in order, in one transaction (the caller's, if one is open); returns their ids."""
    with writer(db):
        return [_insert_call(db, record) for record in records]


def _insert_call(db: sqlite_utils.Database, record: dict[str, Any]) -> int:
    row = {k: record.get(k) for k in COLUMNS}
    for key in ("request", "settings"):
        if not isinstance(row[key], str):
            row[key] = json.dumps(row[key], ensure_ascii=False, sort_keys=True)
    return insert_row(db, "calls", row)


def schema_fallbacks(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Per model, {"model", "n"}: the study's calls answered without their JSON schema after the server failed
    the request that carried it (the gateway's `schema_dropped`, in the answering attempt's settings)."""
    return select_rows(db, "SELECT model, count(*) AS n FROM calls WHERE study_id = ? AND status = 'ok' "
                           "AND json_extract(settings, '$.schema_dropped') IS NOT NULL GROUP BY model ORDER BY model",
                       [study_id])


# --- the request journal: a request is on record before it is sent ----------------------------------------

JOURNAL_COLUMNS = ("study_id", "run_id", "turn", "agent", "call_key", "attempt", "model", "api_base",
                   "prompt_tokens", "max_tokens", "cost_estimate", "sent_at", "pid")


def journal_sent(db: sqlite_utils.Database, entry: dict[str, Any]) -> int:
    """Journal one request about to be sent; returns the entry's id. Its call record removes it
    (`add_call(answers=id)`): an entry left behind is a request sent and never answered."""
    with writer(db):
        return insert_row(db, "call_journal", {k: entry.get(k) for k in JOURNAL_COLUMNS})


def journal_withdraw(db: sqlite_utils.Database, entry_id: int) -> None:
    """Remove an entry whose request was never sent (its caller was cancelled before sending it)."""
    with writer(db):
        db.execute("DELETE FROM call_journal WHERE id = ?", [entry_id])


def journal_unanswered(db: sqlite_utils.Database, study_id: str | None) -> list[dict]:
    """The study's journaled requests that no call record answers (in flight now, or lost in a crash)."""
    return select_rows(db, "SELECT * FROM call_journal WHERE study_id IS ? ORDER BY id", [study_id])


def journal_mark_lost(db: sqlite_utils.Database, ids: list[int], at: str) -> None:
    """Mark entries as lost: their process ended without answering them (they stay, counted as lost)."""
    with writer(db):
        db.conn.executemany("UPDATE call_journal SET lost_at = ? WHERE id = ? AND lost_at IS NULL",
                            [(at, i) for i in ids])


def find_ok_call(db: sqlite_utils.Database, call_key: str, study_id: str | None) -> dict | None:
    """The earliest successful call with this key in this study (or outside any study), if any."""
    rows = select_rows(
        db, "SELECT * FROM calls WHERE call_key = ? AND study_id IS ? AND status = 'ok' ORDER BY id LIMIT 1",
        [call_key, study_id])
    return rows[0] if rows else None


def _scope(study_id: str | None, run_id: str | None, where: list[str] | None = None) -> tuple[list[str], list]:
    """WHERE terms and their parameters for the calls of a study and/or a run (after any terms given)."""
    where, params = list(where or []), []
    for column, value in (("study_id", study_id), ("run_id", run_id)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    return where, params


def spent(db: sqlite_utils.Database, *, study_id: str | None = None, run_id: str | None = None) -> dict:
    """Totals of the calls that reached a model (status ok or error; replays cost nothing; attempts cancelled
    by the caller, which may not have reached it, are counted apart)."""
    where, params = _scope(study_id, run_id, ["status IN ('ok', 'error')"])
    row = db.execute(
        "SELECT count(*), sum(status = 'ok'), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
        "coalesce(sum(cost), 0.0), sum(status = 'ok' AND cost IS NULL) "
        f"FROM calls WHERE {' AND '.join(where)}",
        params,
    ).fetchone()
    replayed, cancelled = (db.execute(
        f"SELECT count(*) FROM calls WHERE status = '{status}'" + "".join(f" AND {w}" for w in where[1:]),
        params).fetchone()[0] for status in ("replayed", "cancelled"))
    return {"attempts": row[0], "ok": row[1] or 0, "input_tokens": row[2], "output_tokens": row[3],
            "cost": row[4], "cost_unknown_calls": row[5] or 0, "replayed": replayed, "cancelled": cancelled}


def calls_for(db: sqlite_utils.Database, *, study_id: str | None = None, run_id: str | None = None,
              limit: int | None = None) -> list[dict]:
    where, params = _scope(study_id, run_id)
    sql = "SELECT * FROM calls" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return select_rows(db, sql, params)


def study_ceiling(db: sqlite_utils.Database, study_id: str) -> tuple[bool, float | None]:
    """(whether the study's row exists, the ceiling it records, if any)."""
    row = db.execute("SELECT cost_ceiling FROM studies WHERE id = ?", [study_id]).fetchone()
    return row is not None, (row[0] if row else None)


def log_record(db: sqlite_utils.Database, study_id: str | None) -> dict[int, str]:
    """The store's own record of a study's call log: line number -> that line's hash, per call."""
    return {line: digest for line, digest in db.execute(
        "SELECT log_line, log_hash FROM calls WHERE study_id IS ? AND log_line IS NOT NULL", [study_id])}


def record_log_repair(db: sqlite_utils.Database, study_id: str | None, line: int, removed: int) -> None:
    from store.cases import now

    with writer(db):
        db["call_log_repairs"].insert({"study_id": study_id, "line": line, "bytes": removed, "at": now()})


def log_repairs(db: sqlite_utils.Database, study_id: str | None) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT line, bytes, at FROM call_log_repairs WHERE study_id IS ? ORDER BY id", [study_id])]


def log_rows(db: sqlite_utils.Database, study_id: str | None) -> dict[int, dict]:
    """line number -> the store's copy of what the call log holds there (to compare the two sides)."""
    return {r["log_line"]: dict(r) for r in db.query(
        "SELECT id, log_line, call_key, status, response FROM calls WHERE study_id IS ? AND log_line IS NOT NULL",
        [study_id])}


def record_log_head(db: sqlite_utils.Database, study_id: str | None, lines: int, head: str, by: str) -> None:
    from store.cases import now

    with writer(db):
        db["call_log_heads"].insert({"study_id": study_id, "lines": lines, "head": head, "recorded_by": by,
                                     "recorded_at": now()})


def log_heads(db: sqlite_utils.Database, study_id: str | None) -> list[dict]:
    """Every head recorded for the study's log, oldest first."""
    return [dict(r) for r in db.query(
        "SELECT lines, head, recorded_by, recorded_at FROM call_log_heads WHERE study_id IS ? ORDER BY id",
        [study_id])]


def study_models(db: sqlite_utils.Database, study_id: str) -> set[str]:
    """Every model the study's logged calls went to (the sim/real no-mixing check)."""
    if "calls" not in db.table_names():
        return set()
    return {r[0] for r in db.execute("SELECT DISTINCT model FROM calls WHERE study_id = ?", [study_id]).fetchall()}
