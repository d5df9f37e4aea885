"""The request journal: every request is on record before it is sent, so a crash leaves no paid call unaccounted.

The gateway journals each attempt it sends to a model server (call key, model, prompt tokens, the cost
estimate) in the store just before sending it, and removes the entry in the transaction that records the
attempt's call (ok, error or cancelled). Entries and records asked for in one turn of the event loop share a
commit (the gateway's group commit); a request still goes out only once its entry is committed. An entry left behind is a request that was sent and never answered
here: its process died first (`kill -9`, out of memory). The server may well have answered and billed it,
so such requests are counted as lost, with their cost estimated from the prompt's tokens (4 characters a
token) and `max_tokens` (an upper bound: the reply may have been shorter). The offline models send no
request and are not journaled; provider batch requests have their own record before they are sent.

An entry whose process still runs is in flight, not lost. The next `run` of the study marks the dead
processes' entries lost (`settle`), and every count reads them the same way (`lost_calls`).

What a crash can lose: the journal is a SQLite commit in WAL mode with `synchronous = NORMAL` (no fsync
per commit). A killed process loses nothing committed. An OS crash or power cut can lose the commits made
since the last WAL checkpoint, journal entries and call records alike: requests sent in that window may
go unaccounted (the JSONL call log is not fsynced per line either).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone

import sqlite_utils

from store import calls as call_rows


@dataclass(frozen=True)
class LostCalls:
    """Requests journaled as sent whose replies were lost in a crash."""

    calls: int = 0
    prompt_tokens: int = 0
    cost: float = 0.0           # estimated: prompt tokens + max_tokens, at the model's price
    cost_unknown: int = 0       # of which the price is unknown (a model not in litellm's cost map)

    def text(self) -> str | None:
        """The line every view prints, or None when nothing was lost."""
        if not self.calls:
            return None
        cost = f"${self.cost:.4f}" + (f" + {self.cost_unknown} of unknown price" if self.cost_unknown else "")
        return (f"{self.calls} calls in flight at the crash: paid, replies lost, cost estimated at most {cost} "
                f"({self.prompt_tokens} prompt tokens)")


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _lost(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["lost_at"] or not process_alive(e["pid"])]


def lost_calls(db: sqlite_utils.Database, study_id: str | None) -> LostCalls:
    """The study's requests sent and never answered by a process that has ended (marked lost or not yet)."""
    return _summary(_lost(call_rows.journal_unanswered(db, study_id)))


def settle(db: sqlite_utils.Database, study_id: str | None) -> LostCalls:
    """Mark as lost the entries of processes that ended; returns those newly marked (what this resume
    found)."""
    fresh = [e for e in _lost(call_rows.journal_unanswered(db, study_id)) if not e["lost_at"]]
    if fresh:
        call_rows.journal_mark_lost(db, [e["id"] for e in fresh],
                                    datetime.now(timezone.utc).isoformat(timespec="milliseconds"))
    return _summary(fresh)


def _summary(entries: list[dict]) -> LostCalls:
    return LostCalls(calls=len(entries), prompt_tokens=sum(e["prompt_tokens"] for e in entries),
                     cost=round(sum(e["cost_estimate"] or 0.0 for e in entries), 6),
                     cost_unknown=sum(e["cost_estimate"] is None for e in entries))
