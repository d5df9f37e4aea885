"""The editor's core checks (workbench/case_editing.py): the batch validator's rules plus save-target rules."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from workbench.cases.editing import (
    case_problems, changed_outside, editor_problems, field_rank, has_errors, read_case_file, target_problems,
)
from workbench.cases import Case, Probe
from workbench.cases.validate import validate_text
from workbench.cases.write import case_to_text, write_case


def _case(**kw) -> Case:
    return replace(Case(id="river-lock", title="River lock upgrade", domain="infrastructure"), **kw)


@pytest.mark.parametrize("changes", [
    {},
    {"id": "River Lock"},
    {"title": ""},
    {"domain": "space"},
    {"decision_date": "last spring"},
    {"strategies": ["D"]},
    {"rubric": "no-such-rubric"},
    {"status": "ready"},
    {"status": "ready", "strategies": ["B"], "scenario": "x", "outcome": "y"},
])
def test_the_editor_reports_exactly_what_the_batch_validator_reports(changes):
    case = _case(**changes)
    _, batch = validate_text(case_to_text(case), "cases/x.md", known_rubrics={"anticipation"})
    mine = case_problems(case, {"anticipation"}, "cases/x.md")
    assert [(p.field, p.message, p.severity) for p in mine] == [(p.field, p.message, p.severity) for p in batch]


def test_a_heading_typed_in_prose_is_reported_against_that_field():
    problems = case_problems(_case(scenario="First part.\n\n## Background\n\nMore."), None)
    assert [p.field for p in problems] == ["scenario"]
    assert "would start a new section" in problems[0].message


def test_target_problems(tmp_path):
    stored = [{"id": "river-lock", "source_path": str(tmp_path / "river-lock.md")},
              {"id": "canal", "source_path": str(tmp_path / "canal.md")}]
    (tmp_path / "canal.md").write_text("x")
    (tmp_path / "stray.md").write_text("x")
    (tmp_path / "river-lock.md").write_text("x")
    new = _case(id="fresh")

    def problems(case, path, original_id=None, original_path=None):
        return [(p.field, p.severity) for p in target_problems(
            case, path, original_id=original_id, original_path=original_path, stored=stored)]

    assert problems(new, tmp_path / "fresh.md") == []
    assert problems(_case(id="canal"), tmp_path / "canal2.md") == [("id", "error")]  # duplicate id
    assert problems(new, tmp_path / "canal.md") == [("path", "error")]  # another case's file
    assert problems(new, tmp_path / "stray.md") == [("path", "error")]  # an existing file
    assert problems(new, tmp_path / "fresh.txt") == [("path", "error")]  # not a .md file
    # The case's own file is fine; a rename is allowed to a new file, with a warning.
    assert problems(_case(), tmp_path / "river-lock.md", "river-lock", tmp_path / "river-lock.md") == []
    assert problems(_case(id="river-gate"), tmp_path / "river-gate.md", "river-lock",
                    tmp_path / "river-lock.md") == [("id", "warning")]
    assert ("path", "error") in problems(_case(id="river-gate"), tmp_path / "river-lock.md", "river-lock",
                                         tmp_path / "river-lock.md")
    assert problems(_case(), tmp_path / "copy.md", "river-lock", tmp_path / "river-lock.md") == [("path", "error")]


def test_editor_problems_are_in_form_order_and_warnings_do_not_block(tmp_path):
    case = _case(id="river-gate", title="", decision_date="soon", status="ready")
    problems = editor_problems(case, tmp_path / "river-gate.md", known_rubrics=None, original_id="river-lock",
                               original_path=tmp_path / "river-lock.md", stored=[])
    ranks = [field_rank(p.field) for p in problems]
    assert ranks == sorted(ranks)
    assert [p.field for p in problems][:2] == ["id", "title"]
    assert has_errors(problems)
    only_warning = editor_problems(_case(id="river-gate"), tmp_path / "river-gate.md", known_rubrics=None,
                                   original_id="river-lock", original_path=tmp_path / "river-lock.md", stored=[])
    assert [p.severity for p in only_warning] == ["warning"] and not has_errors(only_warning)


def test_changed_outside_ignores_appended_probes(tmp_path):
    path = tmp_path / "river-lock.md"
    opened = _case(scenario="Text.")
    write_case(opened, path)
    opened = read_case_file(path)
    assert changed_outside(path, opened) is None
    write_case(replace(opened, probes=[Probe(model="m", date="2026-01-01", verdict="partial")]), path)
    assert changed_outside(path, opened) is None
    write_case(replace(opened, notes="by hand"), path)
    assert changed_outside(path, opened).field == "path"
    assert changed_outside(path, None) is None
    assert read_case_file(Path(tmp_path / "missing.md")) is None


def test_a_heading_naming_another_section_would_move_text_and_is_refused():
    problems = case_problems(_case(scenario="Known facts.\n\n## Notes\n\nThis would become notes."), None)
    assert [p.field for p in problems] == ["scenario"]
    assert "split this text" in problems[0].message
    assert case_problems(_case(scenario="A line with ## inside is fine.\n#Not a heading"), None) == []
