"""One small study built once per test process; each test module works on its own copy of its store."""

from __future__ import annotations

from pathlib import Path

import pytest
from served import ALL_RATERS, build_study, isolated_env


@pytest.fixture(scope="session")
def study_template(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("served-template")
    with isolated_env(tmp):
        path = tmp / "store.db"
        return path, build_study(path, ALL_RATERS)

