"""Rate limits per model (requests and tokens per minute) over a sliding one-minute window.

The concurrency cap is a semaphore owned by the gateway; this module only paces
how often calls to one model may start and how many tokens they may spend.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass

WINDOW = 60.0


@dataclass(frozen=True)
class ModelLimits:
    rpm: int | None = None  # requests per minute; None = unlimited
    tpm: int | None = None  # tokens per minute (prompt + completion); None = unlimited


class ModelRateLimiter:
    """Paces one model. Token use is charged on an estimate at start and corrected when the call ends."""

    def __init__(self, limits: ModelLimits, clock=time.monotonic, window: float = WINDOW) -> None:
        self.limits = limits
        self.clock = clock
        self.window = window
        self._starts: deque[float] = deque()
        self._tokens: deque[list] = deque()  # [time, tokens] (mutable so the estimate can be corrected)
        self._lock: asyncio.Lock | None = None

    def _prune(self, now: float) -> None:
        while self._starts and now - self._starts[0] >= self.window:
            self._starts.popleft()
        while self._tokens and now - self._tokens[0][0] >= self.window:
            self._tokens.popleft()

    def _wait_needed(self, now: float, estimate: int) -> float:
        self._prune(now)
        wait = 0.0
        rpm, tpm = self.limits.rpm, self.limits.tpm
        if rpm and len(self._starts) >= rpm:
            wait = max(wait, self._starts[0] + self.window - now)
        if tpm and self._tokens:
            used = sum(t for _, t in self._tokens)
            if used + estimate > tpm:
                # Wait until enough of the window has expired; a call bigger than the whole budget
                # waits for an empty window and then goes alone.
                need = used + min(estimate, tpm) - tpm
                freed = 0
                for at, tokens in self._tokens:
                    freed += tokens
                    if freed >= need:
                        wait = max(wait, at + self.window - now)
                        break
        return max(wait, 0.0)

    async def acquire(self, estimate: int = 0) -> list:
        """Wait for room, then record the start. Returns a handle for `settle`."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one waiter at a time keeps the order fair
            while True:
                wait = self._wait_needed(self.clock(), estimate)
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            now = self.clock()
            self._starts.append(now)
            handle = [now, estimate]
            if self.limits.tpm:
                self._tokens.append(handle)
            return handle

    def settle(self, handle: list, actual_tokens: int | None) -> None:
        """Replace the start-time estimate with the tokens the call really used."""
        if actual_tokens is not None:
            handle[1] = actual_tokens


def estimate_tokens(messages: list[dict], max_tokens: int) -> int:
    """A rough prompt size (4 characters a token) plus the completion budget."""
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    return chars // 4 + int(max_tokens or 0)
