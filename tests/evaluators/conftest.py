from __future__ import annotations

import pytest

from store import open_memory_store, open_store
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)


@pytest.fixture
def db():
    return open_memory_store()


@pytest.fixture
def store(tmp_path):
    """A file store and a real gateway over it (call logs beside it)."""
    from workbench.gateway import build_gateway

    path = tmp_path / "qc.db"
    db = open_store(path)
    return db, build_gateway(db, path)
