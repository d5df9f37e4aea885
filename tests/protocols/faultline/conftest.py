"""Faultline fixtures: the loopback server answering with the scripted faultline model, and one MiniLM
embedder for the whole session (it loads once)."""

from __future__ import annotations

import pytest

from tests.protocols.faultline.faultline_kit import scripted
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)


@pytest.fixture
def fl_server(loopback_server):  # noqa: F811
    loopback_server.responder = scripted
    return loopback_server


@pytest.fixture(scope="session")
def minilm():
    from workbench.metrics.embeddings import Embedder

    return Embedder()
