"""The transcript sink: stores a run's events in the store as they happen.

Tokens are for live viewers only: the finished text of every turn is in its
`turn_finished` event. Nor are a call's waiting and sending (display states; the
call itself is in the call log). Study-level progress and events without a run
(the P1 topology step, whose result is in the topology table) are not stored either.
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlite_utils

from store.events import append_event
from workbench.events import CALL_SENT, CALL_WAITING, PROGRESS, TOKEN, Event

NOT_STORED = frozenset({TOKEN, PROGRESS, CALL_WAITING, CALL_SENT})


class TranscriptSink:
    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    def emit(self, event: Event) -> None:
        if event.kind in NOT_STORED or event.run_id is None:
            return
        at = datetime.fromtimestamp(event.at, timezone.utc).isoformat(timespec="milliseconds")
        append_event(self.db, event.run_id, event.kind, turn=event.turn, agent=event.agent,
                     payload=event.payload, at=at)
