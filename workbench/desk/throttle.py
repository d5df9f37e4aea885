"""Slowing down wrong links, per address.

An address may get a few wrong tokens (a mistyped or stale link); after `FREE` of them inside `WINDOW`
seconds it is turned away, without its token being looked at, for a wait that doubles with each further
wrong token up to `LONGEST`. Links are 256-bit secrets, so this is not what keeps them safe; it keeps a
scanner from hammering the store and says so in the server's log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

FREE = 5
WINDOW = 600.0
FIRST_WAIT = 1.0
LONGEST = 300.0


@dataclass
class _Record:
    wrong: int = 0
    last: float = 0.0
    until: float = 0.0


@dataclass
class Throttle:
    clock: Callable[[], float] = time.monotonic
    free: int = FREE
    records: dict[str, _Record] = field(default_factory=dict)

    def wait(self, address: str) -> float:
        """Seconds the address must still wait before a token of its is looked at (0: look now)."""
        record = self.records.get(address)
        if record is None:
            return 0.0
        now = self.clock()
        if now - record.last > WINDOW and now >= record.until:
            del self.records[address]  # quiet long enough: forgotten
            return 0.0
        return max(0.0, record.until - now)

    def wrong(self, address: str) -> int:
        """Count a wrong token from the address; returns its count in the window."""
        now = self.clock()
        record = self.records.setdefault(address, _Record())
        if now - record.last > WINDOW:
            record.wrong = 0
        record.wrong += 1
        record.last = now
        over = record.wrong - self.free
        if over > 0:
            record.until = now + min(FIRST_WAIT * 2 ** (over - 1), LONGEST)
        return record.wrong
