"""Gateway fixtures: a store in tmp_path, the loopback server, and a gateway with short waits."""

from __future__ import annotations

import random

import pytest

from store import open_store
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from workbench.gateway import Gateway, GatewayConfig, ModelSettings, build_gateway
from workbench.gateway.retry import RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=4, base_delay=0.02, max_delay=0.1, max_total=10.0)


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "store.db"


@pytest.fixture
def db(db_path):
    database = open_store(db_path)
    yield database
    database.close()


@pytest.fixture
def make_gateway(db, db_path):
    def make(*, replay_only: bool = False, **config) -> Gateway:
        config.setdefault("retry", FAST_RETRY)
        config.setdefault("stall_timeout", 5.0)
        gateway = build_gateway(db, db_path, replay_only=replay_only, config=GatewayConfig(**config))
        gateway._rng = random.Random(7)
        return gateway

    return make


@pytest.fixture
def remote(loopback_server):  # noqa: F811
    """ModelSettings for the loopback server (an unmapped model: cost unknown). The timeout is generous so a
    loaded CI machine does not fail calls; the timeout tests set their own."""
    return ModelSettings(model="openai/loopback-test", api_base=loopback_server.url, timeout=5.0,
                         temperature=0.0, max_tokens=64)
