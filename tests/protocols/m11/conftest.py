"""Fixtures of the M11 protocol tests."""

from __future__ import annotations

import pytest

from tests.protocols.m11 import m11kit
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)


@pytest.fixture
def m11_store(tmp_path):
    db, db_path = m11kit.make_store(tmp_path)
    yield db, db_path
    db.close()


@pytest.fixture
def m11_server(loopback_server):  # noqa: F811
    loopback_server.responder = m11kit.scripted
    return loopback_server
