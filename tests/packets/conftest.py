from __future__ import annotations

import pytest

from store import open_memory_store


@pytest.fixture
def db():
    return open_memory_store()
