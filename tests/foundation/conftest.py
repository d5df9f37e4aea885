from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.case_files import case_text

READY = case_text(id="harbor-dredge", title="Harbor authority dredging contract",
                  scenario="A port authority must choose between two dredging contractors.",
                  outcome="The cheaper contractor went bankrupt mid-project.")


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def ready_text() -> str:
    return READY


@pytest.fixture
def case_dir(tmp_path) -> Path:
    d = tmp_path / "cases"
    d.mkdir()
    write(d, "harbor-dredge.md", READY)
    return d
