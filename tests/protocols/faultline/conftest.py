"""Faultline fixtures: the loopback server answering with the scripted faultline model, one MiniLM
embedder for the whole session (it loads once), and the crux instrument's all-mpnet-base-v2 vectors kept on disk
(tests/support/vector_cache.py)."""

from __future__ import annotations

import pytest

from tests.protocols.faultline.faultline_kit import scripted
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from tests.support.vector_cache import cached_embedder


@pytest.fixture
def fl_server(loopback_server):  # noqa: F811
    loopback_server.responder = scripted
    return loopback_server


@pytest.fixture(scope="session")
def minilm():
    from workbench.metrics.embeddings import Embedder

    return Embedder()


@pytest.fixture(scope="session", autouse=True)
def crux_vectors_on_disk(tmp_path_factory):
    """`read cruxes` embeds with a disk cache for the session: a vector computed once (in this run, an earlier
    one, or another worker) is read, not computed; mpnet is loaded only for a question no run has seen."""
    from workbench.protocols.faultline import equivalence, instruments

    embedder = cached_embedder(equivalence.CRUX_EMBEDDING, tmp_path_factory.getbasetemp())
    before = instruments._EMBEDDERS.get(equivalence.CRUX_EMBEDDING)
    instruments._EMBEDDERS[equivalence.CRUX_EMBEDDING] = embedder
    yield embedder.cache
    if before is None:
        instruments._EMBEDDERS.pop(equivalence.CRUX_EMBEDDING, None)
    else:
        instruments._EMBEDDERS[equivalence.CRUX_EMBEDDING] = before
