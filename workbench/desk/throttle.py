"""Slowing down wrong links, per address.

An address may send a few wrong tokens (a mistyped or stale link) and is answered at once; after `FREE` of
them inside `WINDOW` seconds, each further wrong one is answered only after a wait that doubles, from
`FIRST_WAIT` up to `LONGEST` seconds. A good link is never held up: behind a reverse proxy every rater comes
from the proxy's address, and a scanner must not lock them out. (Links are 256-bit secrets, so guessing is
hopeless anyway; the wait keeps a scanner from hammering the store, and the log says who scans.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

FREE = 5
WINDOW = 600.0
FIRST_WAIT = 1.0
LONGEST = 30.0
KEPT = 10_000  # addresses remembered; past that, the quiet ones are forgotten


@dataclass
class _Record:
    wrong: int = 0
    last: float = 0.0


@dataclass
class Throttle:
    clock: Callable[[], float] = time.monotonic
    free: int = FREE
    records: dict[str, _Record] = field(default_factory=dict)

    def wrong(self, address: str) -> tuple[int, float]:
        """Count a wrong token from the address: its count in the window, and the seconds to wait before
        answering it."""
        now = self.clock()
        if len(self.records) >= KEPT:
            self.records = {a: r for a, r in self.records.items() if now - r.last <= WINDOW}
        record = self.records.setdefault(address, _Record())
        if now - record.last > WINDOW:
            record.wrong = 0
        record.wrong += 1
        record.last = now
        over = record.wrong - self.free
        return record.wrong, (min(FIRST_WAIT * 2 ** (over - 1), LONGEST) if over > 0 else 0.0)
