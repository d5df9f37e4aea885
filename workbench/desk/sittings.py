"""One sitting per rater: a second tab or browser on the same link is refused while the first is open.

A sitting is open from its websocket's start until its desk process has ended. Once the browser has gone
(its websocket closed) the sitting is `closing`: a new page or websocket on the same link waits for that end
(`CLOSING_WAIT` at most) instead of being refused, so closing the browser and opening the link again resumes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

CLOSING_WAIT = 10.0


@dataclass
class Sitting:
    key: tuple[str, str]
    closing: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)


class Sittings:
    def __init__(self) -> None:
        self.open: dict[tuple[str, str], Sitting] = {}

    async def free(self, key: tuple[str, str]) -> bool:
        """True when no sitting holds `key` (after waiting for one that is closing)."""
        sitting = self.open.get(key)
        if sitting is None:
            return True
        if not sitting.closing:
            return False
        try:
            await asyncio.wait_for(sitting.ended.wait(), CLOSING_WAIT)
        except asyncio.TimeoutError:
            return False
        return key not in self.open

    async def claim(self, key: tuple[str, str]) -> Sitting | None:
        """The new sitting on `key`, or None while another one holds it."""
        if not await self.free(key):
            return None
        sitting = self.open[key] = Sitting(key)
        return sitting

    def release(self, sitting: Sitting) -> None:
        if self.open.get(sitting.key) is sitting:
            del self.open[sitting.key]
        sitting.ended.set()
