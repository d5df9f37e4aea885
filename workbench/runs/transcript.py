"""The transcript sink: stores a run's events in the store, a turn at a time.

Tokens are for live viewers only: the finished text of every turn is in its
`turn_finished` event. Nor are a call's waiting and sending (display states; the
call itself is in the call log). Study-level progress and events without a run
(the P1 topology step, whose result is in the topology table) are not stored either.

A run's events are kept until its turn ends (`flush`, which the runner calls with the turn's own rows:
the run's usage; and at the run's end with its status and output), then written in one transaction:
one commit per turn instead of one per event, and the run's last declared turn is written with its end.
A process killed mid-turn loses the turn's events, never a finished run's: a run that did not end is re-run
on resume, and its transcript rewritten.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Callable

import sqlite_utils

from store.db import writer
from store.events import append_events
from workbench.events import CALL_ENDED, CALL_SENT, CALL_WAITING, PROGRESS, TOKEN, Event

NOT_STORED = frozenset({TOKEN, PROGRESS, CALL_WAITING, CALL_SENT, CALL_ENDED})


class TranscriptSink:
    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self._events: dict[str, list[tuple]] = {}                  # run -> its events not written yet
        self._writes: dict[str, list[Callable[[], None]]] = {}     # run -> rows written with them

    def emit(self, event: Event) -> None:
        if event.kind in NOT_STORED or event.run_id is None:
            return
        at = datetime.fromtimestamp(event.at, timezone.utc).isoformat(timespec="milliseconds")
        # The payload is encoded now: what is stored is the event as it was emitted.
        self._events.setdefault(event.run_id, []).append(
            (event.kind, event.turn, event.agent, json.dumps(event.payload, ensure_ascii=False), at))

    def defer(self, run_id: str, write: Callable[[], None]) -> None:
        """A row of the run's turn (how a reply was read) written with the run's next events."""
        self._writes.setdefault(run_id, []).append(write)

    def flush(self, run_id: str, *writes: Callable[[], None]) -> None:
        """Write the run's pending events and deferred rows, then `writes`, in one transaction. On failure
        (a full disk) nothing of it is written and the pending part is kept for the next flush."""
        events, deferred = self._events.pop(run_id, []), self._writes.pop(run_id, [])
        try:
            with writer(self.db, whole=True):  # any failure ends it all: the nested writes take no savepoint
                if events:
                    append_events(self.db, run_id, events)
                for write in (*deferred, *writes):
                    write()
        except BaseException:
            self._events.setdefault(run_id, [])[:0] = events
            self._writes.setdefault(run_id, [])[:0] = deferred
            raise
