"""The stored transcript: a run's protocol events and finished turns, numbered per run."""

from __future__ import annotations

import json

import sqlite_utils

from store.db import writer


def append_event(db: sqlite_utils.Database, run_id: str, kind: str, *, turn: str | None, agent: str | None,
                 payload: dict, at: str) -> int:
    """Append one event with the run's next sequence number; returns that number."""
    with writer(db):
        seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE run_id = ?", [run_id]).fetchone()[0]
        db["events"].insert({"run_id": run_id, "seq": seq, "turn": turn, "kind": kind, "agent": agent,
                             "payload": json.dumps(payload, ensure_ascii=False), "at": at})
    return seq


def events_for_run(db: sqlite_utils.Database, run_id: str, *, after_seq: int = 0,
                   kinds: list[str] | None = None) -> list[dict]:
    """A run's events in order; `after_seq` lets a viewer poll for what is new."""
    where, params = "run_id = ? AND seq > ?", [run_id, after_seq]
    if kinds:
        where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params += list(kinds)
    return [_decode(r) for r in db["events"].rows_where(where, params, order_by="seq")]


def events_for_study(db: sqlite_utils.Database, study_id: str, kinds: list[str]) -> list[dict]:
    """Events of the given kinds across a study's runs (e.g. every `perspective`, for the metrics)."""
    marks = ", ".join("?" for _ in kinds)
    rows = db.execute(
        f"SELECT e.id, e.run_id, e.seq, e.turn, e.kind, e.agent, e.payload, e.at "
        f"FROM events e JOIN runs r ON r.id = e.run_id WHERE r.study_id = ? AND e.kind IN ({marks}) "
        f"ORDER BY e.run_id, e.seq", [study_id, *kinds]).fetchall()
    cols = ["id", "run_id", "seq", "turn", "kind", "agent", "payload", "at"]
    return [_decode(dict(zip(cols, r))) for r in rows]


def _decode(row: dict) -> dict:
    row = dict(row)
    row["payload"] = json.loads(row["payload"])
    return row
