"""Fixtures for the screen tests: a temporary store and a temporary copy of small fixture cases and rubrics.

Nothing here writes into the repository's cases/ or rubrics/ or the user's case library:
WORKBENCH_CASES_DIR, WORKBENCH_CASE_LIBRARY and WORKBENCH_RUBRICS_DIR point at copies under tmp_path.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def library(tmp_path, monkeypatch):
    cases = tmp_path / "cases"
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURES / "cases", cases)
    shutil.copytree(FIXTURES / "rubrics", rubrics)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(rubrics))
    monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", str(cases))  # new cases: the same copy, never the user's library
    monkeypatch.delenv("WORKBENCH_DB", raising=False)
    return SimpleNamespace(cases=cases, rubrics=rubrics, db=tmp_path / "store" / "workbench.db")


@pytest.fixture
def app(library):
    from screens.launch import make_app

    return make_app(library.db)
