"""Run rows: one per (study, case, condition, replicate), created up front so nothing is duplicated."""

from __future__ import annotations

from typing import Iterator

import sqlite_utils

from store.cases import now
from store.db import writer
from store.prepared import select_rows

STATUSES = ("pending", "running", "done", "done_with_errors", "failed", "cancelled", "interrupted")
# A run whose program ended: its output stands. `done_with_errors`: the program ended in a counted error (an
# M11 stage that never parsed, a calibration judge_error), kept in the output and never re-run.
FINISHED = ("done", "done_with_errors")


def ensure_runs(db: sqlite_utils.Database, study_id: str, plans: list[dict]) -> int:
    """Insert the planned runs that do not exist yet; returns how many were added.

    `plans` items carry id, case_id, condition, replicate. The UNIQUE key on
    (study, case, condition, replicate) makes a second call a no-op.
    """
    with writer(db):
        before = db.conn.total_changes
        db.conn.executemany(
            "INSERT OR IGNORE INTO runs (id, study_id, case_id, condition, replicate, status) "
            "VALUES (?, ?, ?, ?, ?, 'pending')",
            [(p["id"], study_id, p["case_id"], p["condition"], p["replicate"]) for p in plans])
        return db.conn.total_changes - before


def list_runs(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return select_rows(db, "SELECT * FROM runs WHERE study_id = ? ORDER BY case_id, condition, replicate",
                       [study_id])


def iter_runs(db: sqlite_utils.Database, study_id: str, *, page: int = 1000) -> Iterator[dict]:
    """The study's runs in `list_runs`' order, read a page at a time along the table's unique key: a study of
    any size is walked without holding its rows. A run that changes behind the walk is not seen again; one
    ahead of it is seen as it is when its page is read."""
    after: list = []
    while True:
        rows = select_rows(db, "SELECT * FROM runs WHERE study_id = ?"
                               + (" AND (case_id, condition, replicate) > (?, ?, ?)" if after else "")
                               + f" ORDER BY case_id, condition, replicate LIMIT {int(page)}", [study_id, *after])
        yield from rows
        if len(rows) < page:
            return
        last = rows[-1]
        after = [last["case_id"], last["condition"], last["replicate"]]


def runs_with_status(db: sqlite_utils.Database, study_id: str, statuses: tuple[str, ...]) -> list[dict]:
    """id, status and error of the study's runs in `statuses`, in `list_runs`' order."""
    return select_rows(db, f"SELECT id, status, error FROM runs WHERE study_id = ? AND status IN "
                           f"({', '.join('?' for _ in statuses)}) ORDER BY case_id, condition, replicate",
                       [study_id, *statuses])


def get_run(db: sqlite_utils.Database, run_id: str) -> dict | None:
    rows = select_rows(db, "SELECT * FROM runs WHERE id = ?", [run_id])
    return rows[0] if rows else None


def start_attempt(db: sqlite_utils.Database, run_id: str) -> int:
    """Begin a (new) attempt: the previous attempt's transcript and output are dropped, so a
    re-run rewrites them instead of appending duplicates. Returns the attempt number."""
    with writer(db):
        db.execute("DELETE FROM events WHERE run_id = ?", [run_id])
        db.execute("DELETE FROM outputs WHERE run_id = ?", [run_id])
        db.execute("DELETE FROM artifacts WHERE run_id = ?", [run_id])
        return db.execute(
            "UPDATE runs SET status = 'running', attempts = attempts + 1, started_at = ?, finished_at = NULL, "
            "error = NULL, input_tokens = 0, output_tokens = 0, cost = 0.0, cost_unknown = 0, truncated_turns = 0 "
            "WHERE id = ? RETURNING attempts",
            [now(), run_id]).fetchall()[0][0]  # every row read: the statement is done before COMMIT


def add_usage(db: sqlite_utils.Database, run_id: str, input_tokens: int | None, output_tokens: int | None,
              cost: float | None) -> None:
    """Add one call's usage to the run's running totals; an unknown cost marks the total as partial."""
    with writer(db):
        db.execute(
            "UPDATE runs SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
            "cost = coalesce(cost, 0.0) + ?, cost_unknown = max(cost_unknown, ?) WHERE id = ?",
            [input_tokens or 0, output_tokens or 0, cost or 0.0, 1 if cost is None else 0, run_id])


def finish_run(db: sqlite_utils.Database, run_id: str, status: str, *, error: str | None = None,
               output: dict | None = None, truncated_turns: int = 0) -> None:
    """Close an attempt as done | done_with_errors | failed | cancelled | interrupted; a finished run's output
    (text, report and whether its text ends in a cut at max_tokens) is written in the same transaction."""
    if status not in STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    from store.outputs import write_output

    with writer(db):
        if output is not None:
            write_output(db, run_id, output["text"], output["report"], truncated=bool(output.get("truncated")))
        db.execute("UPDATE runs SET status = ?, error = ?, finished_at = ?, truncated_turns = ? WHERE id = ?",
                   [status, error, now(), truncated_turns, run_id])


def reset_run(db: sqlite_utils.Database, run_id: str) -> None:
    """Make a failed or cancelled run pending again (a retry); its old error is kept until it restarts."""
    with writer(db):
        db.execute("UPDATE runs SET status = 'pending' WHERE id = ? AND status NOT IN ('done', 'done_with_errors')",
                   [run_id])


def status_counts(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    counts = {s: 0 for s in STATUSES}
    for status, n in db.execute(
            "SELECT status, count(*) FROM runs WHERE study_id = ? GROUP BY status", [study_id]).fetchall():
        counts[status] = n
    return counts


def study_totals(db: sqlite_utils.Database, study_id: str) -> dict:
    """Tokens and cost summed over the study's runs (every call of each run's latest attempt)."""
    row = db.execute(
        "SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
        "coalesce(sum(cost), 0.0), coalesce(max(cost_unknown), 0) FROM runs WHERE study_id = ?",
        [study_id]).fetchone()
    return {"runs": row[0], "input_tokens": row[1], "output_tokens": row[2], "cost": row[3],
            "cost_unknown": bool(row[4])}


def truncated_counts(db: sqlite_utils.Database, study_id: str) -> dict[str, dict[str, int]]:
    """Per condition: finished outputs, and how many of them end in a cut at max_tokens."""
    out: dict[str, dict[str, int]] = {}
    for condition, outputs, cut in db.execute(
            "SELECT r.condition, count(*), coalesce(sum(o.truncated), 0) FROM runs r JOIN outputs o ON o.run_id = r.id "
            "WHERE r.study_id = ? AND r.status IN ('done', 'done_with_errors') GROUP BY r.condition ORDER BY r.condition",
            [study_id]).fetchall():
        out[condition] = {"outputs": outputs, "truncated": cut}
    return out


def truncated_run_ids(db: sqlite_utils.Database, study_id: str) -> set[str]:
    """Runs whose final output ends in a cut at max_tokens."""
    return {r[0] for r in db.execute(
        "SELECT o.run_id FROM outputs o JOIN runs r ON r.id = o.run_id WHERE r.study_id = ? AND o.truncated = 1",
        [study_id]).fetchall()}
