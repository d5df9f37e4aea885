from __future__ import annotations

import pytest

from store import open_memory_store, open_store


@pytest.fixture
def db():
    return open_memory_store()


@pytest.fixture
def file_db(tmp_path):
    path = tmp_path / "store.db"
    return open_store(path), path
