from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

READY = textwrap.dedent('''\
    +++
    id = "harbor-dredge"
    title = "Harbor authority dredging contract"
    type = "historical"
    domain = "policy"
    status = "ready"
    strategies = ["C"]
    decision_date = "2019-04"
    complexity = "medium"
    concern_domain = "policy"
    rubric = ""
    source = "test fixture"

    [criteria]
    clear_decision_point = true
    outcome_visible = true
    knowledge_boundary = true
    causal_record = true
    manageable_contamination = true
    +++

    ## Scenario

    A port authority must choose between two dredging contractors.

    ## Outcome

    The cheaper contractor went bankrupt mid-project.
    ''')


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
