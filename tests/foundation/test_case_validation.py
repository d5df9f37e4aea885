"""Each kind of bad case input is named by file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.foundation.conftest import write
from workbench.cases.parse import parse_text
from workbench.cases.validate import check, validate_paths
from workbench.cases.write import case_to_text


def problems_for(tmp_path: Path, text: str, rubrics=()) -> list:
    path = write(tmp_path, "harbor-dredge.md", text)
    _, problems = validate_paths([path], set(rubrics))
    return problems


def only(problems, field):
    hits = [p for p in problems if p.field == field and p.severity == "error"]
    assert hits, f"no problem for {field}: {[str(p) for p in problems]}"
    return hits[0]


def test_valid_case_has_no_problems(case_dir):
    cases, problems = validate_paths([case_dir], set())
    assert problems == []
    assert [c.id for _, c in cases] == ["harbor-dredge"]


@pytest.mark.parametrize("old, new, field, line, words", [
    pytest.param('domain = "policy"', 'domain = "finance"', "domain", 5, "finance", id="bad enum"),
    pytest.param('source = "test fixture"', 'source = "x"\ndecison_date = "2019"', "decison_date", 13,
                 "unknown field", id="unknown field"),
    pytest.param('title = "Harbor authority dredging contract"', 'title = "unterminated', "front matter", 3,
                 "invalid TOML", id="TOML syntax error"),
    pytest.param("clear_decision_point = true", 'clear_decision_point = "yes"', "criteria.clear_decision_point", 15,
                 "true or false", id="wrong type of value"),
])
def test_a_bad_value_is_named_by_file_line_and_field(tmp_path, ready_text, old, new, field, line, words):
    p = only(problems_for(tmp_path, ready_text.replace(old, new)), field)
    assert p.line == line and words in p.message and p.file.endswith("harbor-dredge.md")
    assert str(p).startswith(f"{p.file}:{line}: {field}:")


def test_missing_front_matter(tmp_path):
    p = only(problems_for(tmp_path, "## Scenario\n\ntext\n"), "front matter")
    assert p.line == 1


def test_unclosed_front_matter(tmp_path, ready_text):
    text = ready_text.replace("+++\n\n## Scenario", "\n## Scenario")
    assert "never closed" in only(problems_for(tmp_path, text), "front matter").message


def test_unknown_and_duplicate_sections(tmp_path, ready_text):
    text = ready_text + "\n## Scenario\n\nagain\n\n## Appendix\n\nmore\n"
    problems = problems_for(tmp_path, text)
    dup = only(problems, "scenario")
    assert "twice" in dup.message and dup.line == 30
    assert only(problems, "Appendix").line == 34


def test_text_outside_sections(tmp_path, ready_text):
    text = ready_text.replace("+++\n\n## Scenario", "+++\nstray words\n## Scenario")
    assert only(problems_for(tmp_path, text), "body").line == 21


def test_bad_strategy_and_date_and_id(tmp_path, ready_text):
    text = (ready_text.replace('strategies = ["C"]', 'strategies = ["D"]')
            .replace('decision_date = "2019-04"', 'decision_date = "April 2019"')
            .replace('id = "harbor-dredge"', 'id = "Harbor Dredge"'))
    problems = problems_for(tmp_path, text)
    assert only(problems, "strategies").line == 7
    assert only(problems, "decision_date").line == 8
    assert only(problems, "id").line == 2


def test_unknown_rubric(tmp_path, ready_text):
    text = ready_text.replace('rubric = ""', 'rubric = "nonesuch"')
    assert "nonesuch" in only(problems_for(tmp_path, text, rubrics={"anticipation"}), "rubric").message


def test_ready_case_needs_every_criterion_and_outcome(tmp_path, ready_text):
    text = ready_text.replace("causal_record = true", "causal_record = false").split("## Outcome")[0]
    problems = problems_for(tmp_path, text)
    assert only(problems, "criteria.causal_record").line == 18
    assert "Outcome" in only(problems, "outcome").message


def test_draft_is_exempt_from_ready_rules(tmp_path, ready_text):
    text = ready_text.replace('status = "ready"', 'status = "draft"').replace("causal_record = true", "causal_record = false")
    assert problems_for(tmp_path, text) == []


def test_strategy_b_needs_transposition_with_two_verifiers(tmp_path, ready_text):
    text = ready_text.replace('strategies = ["C"]', 'strategies = ["B"]').replace(
        "+++\n\n## Scenario",
        '[transposition]\noriginal = "A real port"\nverifiers = ["Ana"]\n+++\n\n## Scenario')
    problems = problems_for(tmp_path, text)
    assert "two independent verifiers" in only(problems, "transposition.verifiers").message
    assert only(problems, "transposition.mapping").line == 20  # the [transposition] table
    assert only(problems, "transposition.preserves.information_asymmetry")


def test_recognized_probe_blocks_ready(tmp_path, ready_text):
    text = ready_text.replace("+++\n\n## Scenario",
                              '[[probes]]\nmodel = "gpt-x"\ndate = "2026-01-02"\nverdict = "recognized"\n+++\n\n## Scenario')
    p = only(problems_for(tmp_path, text), "probes")
    assert "transpose" in p.message and "gpt-x" in p.message


def test_duplicate_ids_across_files(case_dir, ready_text):
    write(case_dir, "copy.md", ready_text)
    cases, problems = validate_paths([case_dir], set())
    dup = only(problems, "id")
    assert "duplicate id 'harbor-dredge'" in dup.message
    assert len(cases) == 1


def test_missing_path_is_reported(tmp_path):
    _, problems = validate_paths([tmp_path / "nope.md"], set())
    assert problems and problems[0].field == "path"


@pytest.mark.parametrize("mutate", [
    lambda c: c,
    lambda c: setattr(c, "strategies", ["B", "C"]) or c,
])
def test_write_then_parse_round_trips(ready_text, mutate):
    case = mutate(parse_text(ready_text, "x.md").case)
    case.transposition.mapping = [{"from": "port", "to": "airport"}]
    case.notes = "multi\n\nparagraph \"quoted\" notes"
    again = parse_text(case_to_text(case), "harbor-dredge.md")
    assert again.problems == []
    assert again.case == case
    assert check(again, set()) == [] or case.strategies == ["B", "C"]


def test_file_not_named_after_id_is_a_warning(tmp_path, ready_text):
    path = write(tmp_path, "other-name.md", ready_text)
    cases, problems = validate_paths([path], set())
    assert [c.id for _, c in cases] == ["harbor-dredge"]  # a warning does not block
    assert [(p.field, p.severity) for p in problems] == [("id", "warning")]


def test_ready_case_cannot_keep_draft_placeholders(tmp_path, ready_text):
    text = ready_text.replace("A port authority must", "[DRAFT OUTLINE] A port authority must")
    assert "draft outline" in only(problems_for(tmp_path, text), "scenario").message
