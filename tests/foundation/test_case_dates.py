"""Decision dates are real calendar dates, ranges run forward, and a historical decision is in the past:
refused with file:line: field in batch validation and in the case editor alike."""

from __future__ import annotations

from datetime import date

import pytest

from tests.foundation.conftest import write
from workbench.cases.editing import case_problems
from workbench.cases.parse import parse_text
from workbench.cases.validate import decision_date_problem, validate_paths


def date_problems(tmp_path, ready_text, value: str, case_type: str = "historical"):
    text = (ready_text.replace('decision_date = "2019-04"', f'decision_date = "{value}"')
            .replace('type = "historical"', f'type = "{case_type}"'))
    path = write(tmp_path, "harbor-dredge.md", text)
    _, problems = validate_paths([path], set())
    return [p for p in problems if p.field == "decision_date"], path


@pytest.mark.parametrize("value, words", [
    ("2021-13-45", "not a real calendar date"),
    ("2021-02-29", "not a real calendar date"),   # 2021 is no leap year
    ("2021-00", "not a real calendar date"),
    ("2023..2020", "runs backwards"),
    ("2021-06-30..2021-06-01", "runs backwards"),
    ("2999-01-01", "in the future"),
    ("2999", "in the future"),
])
def test_unreal_reversed_or_future_dates_are_refused_with_file_line_field(tmp_path, ready_text, value, words):
    problems, path = date_problems(tmp_path, ready_text, value)
    assert len(problems) == 1, [str(p) for p in problems]
    p = problems[0]
    assert words in p.message
    assert (p.file, p.line) == (str(path), 8)   # decision_date is line 8 of the fixture
    assert str(p).startswith(f"{path}:8: decision_date:")


@pytest.mark.parametrize("value", ["2020", "2020-02", "2020-02-29", "2020..2022", "2021-06..2021-06-30",
                                   "2021-06-01..2021-06-01"])
def test_real_forward_past_dates_pass(tmp_path, ready_text, value):
    problems, _ = date_problems(tmp_path, ready_text, value)
    assert problems == []


def test_a_constructed_case_may_be_dated_ahead_but_never_unreal(tmp_path, ready_text):
    assert date_problems(tmp_path, ready_text, "2999-01", "constructed")[0] == []
    assert date_problems(tmp_path, ready_text, "2024-02-30", "constructed")[0]


def test_future_is_judged_against_today():
    assert decision_date_problem("2026-05", historical=True, today=date(2026, 4, 30))
    assert decision_date_problem("2026-05", historical=True, today=date(2026, 5, 1)) == ""


def test_the_case_editor_reports_the_same_problem_live(ready_text):
    case = parse_text(ready_text, "harbor-dredge.md").case
    case.decision_date = "2023..2020"
    problems = [p for p in case_problems(case, set(), "harbor-dredge.md") if p.field == "decision_date"]
    assert problems and "runs backwards" in problems[0].message
    assert case_problems.__module__ and problems[0].line > 0  # the line of decision_date in the file it would write


def test_a_partial_probe_blocks_ready_like_recognized(tmp_path, ready_text):
    text = ready_text.replace("+++\n\n## Scenario",
                              '[[probes]]\nmodel = "gpt-x"\ndate = "2026-01-02"\nverdict = "partial"\n+++\n\n## Scenario')
    path = write(tmp_path, "harbor-dredge.md", text)
    _, problems = validate_paths([path], set())
    hits = [p for p in problems if p.field == "probes" and p.severity == "error"]
    assert hits and "part of its outcome" in hits[0].message and "gpt-x" in hits[0].message
