"""The tests' gateway: the real one, with fast retries, a short stall timeout and seeded jitter, so a
test against the loopback server is quick and the same every run."""

from __future__ import annotations

import random

from workbench.gateway import GatewayConfig, build_gateway
from workbench.gateway.retry import RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.02, max_delay=0.1, max_total=10.0)


def test_gateway(db, db_path, *, replay_only: bool = False, **config):
    config.setdefault("retry", FAST_RETRY)
    config.setdefault("stall_timeout", 5.0)
    g = build_gateway(db, db_path, replay_only=replay_only, config=GatewayConfig(**config))
    g._rng = random.Random(7)  # the retry jitter, seeded
    return g


test_gateway.__test__ = False  # a helper, not a test
