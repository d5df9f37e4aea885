"""Study fixtures: a file store with the shipped rubrics and fixture cases (one of them a draft)."""

from __future__ import annotations

import pytest

from tests.runner.studykit import make_store


@pytest.fixture
def store(tmp_path):
    db, db_path, cases_dir = make_store(tmp_path, draft=True)
    yield db, db_path, cases_dir
    db.close()
