"""Which failures are worth another attempt, and how long to wait before it."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 0.5      # seconds; doubles each retry
    max_delay: float = 30.0      # one wait is never longer than this (unless Retry-After asks for more)
    max_total: float = 300.0     # seconds from the first attempt after which no retry starts

    def backoff(self, retry_number: int, rng: random.Random | None = None) -> float:
        """Exponential backoff with full jitter: uniform in [0, min(max, base * 2**n)], at least 50 ms."""
        cap = min(self.max_delay, self.base_delay * (2 ** max(retry_number - 1, 0)))
        return max(0.05, (rng or random).uniform(0, cap))


class AttemptFailed(Exception):
    """One failed attempt, classified. `message` is already scrubbed of secrets."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 retry_after: float | None = None, kind: str = "error", partial: str = "") -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.kind = kind
        self.partial = partial


def parse_retry_after(headers) -> float | None:
    """Seconds to wait from `Retry-After` (seconds or an HTTP date) or `retry-after-ms`."""
    if not headers:
        return None
    get = headers.get
    for name in ("retry-after-ms", "llm_provider-retry-after-ms"):
        value = get(name)
        if value:
            try:
                return max(float(value) / 1000.0, 0.0)
            except ValueError:
                pass
    for name in ("retry-after", "llm_provider-retry-after"):
        value = get(name)
        if not value:
            continue
        try:
            return max(float(value), 0.0)
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(value) if value else None
            if parsed is not None:
                return max(parsed.timestamp() - time.time(), 0.0)
    return None


# 408 is a timeout and 429 a rate limit; every other 4xx is the request's fault and fails at once.
RETRYABLE_STATUS = {408, 429}


def is_retryable_status(status: int | None) -> bool:
    return status is not None and (status in RETRYABLE_STATUS or status >= 500)


def schema_failed(failure: AttemptFailed) -> bool:
    """How a server fails a request whose JSON schema it cannot turn into a grammar: llama-cpp-python 0.3.36
    ("failed to parse grammar") drops the connection unanswered, others answer 500. The gateway then asks that
    call again without its schema. An overload (429, 503) or a timeout is not this."""
    return failure.kind in ("connection", "server") and failure.status in (None, 500)
