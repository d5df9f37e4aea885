"""The stored transcript: a run's protocol events and finished turns, numbered per run."""

from __future__ import annotations

import json
from typing import Iterable

import sqlite_utils

from store.db import writer
from store.json_columns import decoded
from store.prepared import insert_row, select_rows


def append_event(db: sqlite_utils.Database, run_id: str, kind: str, *, turn: str | None, agent: str | None,
                 payload: dict, at: str) -> int:
    """Append one event with the run's next sequence number; returns that number."""
    return append_events(db, run_id, [(kind, turn, agent, json.dumps(payload, ensure_ascii=False), at)])


def append_events(db: sqlite_utils.Database, run_id: str,
                  events: Iterable[tuple[str, str | None, str | None, str, str]]) -> int:
    """Append a run's events, each (kind, turn, agent, payload as JSON, at), with its next sequence numbers,
    in one transaction (or in the caller's); returns the last number."""
    with writer(db):
        seq = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE run_id = ?", [run_id]).fetchone()[0]
        for kind, turn, agent, payload, at in events:
            seq += 1
            insert_row(db, "events", {"run_id": run_id, "seq": seq, "turn": turn, "kind": kind, "agent": agent,
                                      "payload": payload, "at": at})
    return seq


def events_for_run(db: sqlite_utils.Database, run_id: str, *, after_seq: int = 0,
                   kinds: list[str] | None = None) -> list[dict]:
    """A run's events in order; `after_seq` lets a viewer poll for what is new."""
    where, params = "run_id = ? AND seq > ?", [run_id, after_seq]
    if kinds:
        where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params += list(kinds)
    rows = select_rows(db, f"SELECT * FROM events WHERE {where} ORDER BY seq", params)
    return [decoded(r, "payload") for r in rows]


def events_for_study(db: sqlite_utils.Database, study_id: str, kinds: list[str]) -> list[dict]:
    """Events of the given kinds across a study's runs (e.g. every `perspective`, for the metrics)."""
    marks = ", ".join("?" for _ in kinds)
    rows = db.execute(
        f"SELECT e.id, e.run_id, e.seq, e.turn, e.kind, e.agent, e.payload, e.at "
        f"FROM events e JOIN runs r ON r.id = e.run_id WHERE r.study_id = ? AND e.kind IN ({marks}) "
        f"ORDER BY e.run_id, e.seq", [study_id, *kinds]).fetchall()
    cols = ["id", "run_id", "seq", "turn", "kind", "agent", "payload", "at"]
    return [decoded(dict(zip(cols, r)), "payload") for r in rows]
