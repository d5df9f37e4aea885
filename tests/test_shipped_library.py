"""The shipped protocol inputs: the case files in cases/ and the rubrics in rubrics/.

These are data the studies run on, so the checks are about content: every
file validates, the constructed scenarios are the seed's words exactly, the
drafts say what they still need, and every rubric's anchors and composites
match the seeds.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.cases.model import CRITERIA
from workbench.cases.parse import parse_file, parse_text
from workbench.cases.validate import check, validate_paths, validate_text
from workbench.cases.write import case_to_text
from workbench.rubrics import load_rubrics

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
RUBRICS = REPO / "rubrics"
# CI checks out ../shared beside the repository; a bare clone may not have it.
SEED_000 = REPO.parent / "shared" / "seeds" / "000_9b86c8fe0b5d6062.txt"

# sha256 of the seed 000 scenario blocks (quote markers removed), computed from
# the seed on 2026-03 for when the seed file is not beside the repository.
SEED_SCENARIO_SHA256 = {
    "## VIII. Glenda/Crock": "18dd5861b64a392291fa757683dc743e4876f1f11ca5e69381734974385a7152",
    "## IX. Blast Radius": "bbb11d496636346ed290771976bde0abe2ffdb0c6e9f1099cadbc8b94829c354",
}
CONSTRUCTED = {"glenda-crock": "## VIII. Glenda/Crock", "blast-radius": "## IX. Blast Radius"}
DRAFTS = {
    "saas-enterprise-pivot": "organizational",
    "oss-governance-transition": "organizational",
    "declarative-infra-migration": "infrastructure",
    "database-migration-under-load": "infrastructure",
    "standards-body-ai-policy": "policy",
    "municipal-open-data": "policy",
}
RUBRIC_IDS = {"anticipation", "epistemic-humility", "glenda-crock", "blast-radius", "m11-likert",
              "calibration-content-quality"}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seed_scenario(seed_text: str, section_heading: str) -> str:
    """The quoted block under 'Scenario Presentation' in a seed section, without the '> ' markers."""
    section = seed_text[seed_text.index(section_heading):]
    lines = section[section.index("### Scenario Presentation"):].splitlines()[1:]
    block: list[str] = []
    for line in lines:
        if line.startswith(">"):
            block.append(line[2:] if line.startswith("> ") else line[1:])
        elif block:
            break
    return "\n".join(block).strip()


@pytest.fixture(scope="module")
def rubrics():
    return load_rubrics(RUBRICS)


@pytest.fixture(scope="module")
def cases(rubrics):
    validated, problems = validate_paths([CASES], set(rubrics))
    assert [str(p) for p in problems] == []
    return {case.id: (path, case) for path, case in validated}


def test_every_shipped_case_validates_and_is_named_after_its_id(cases):
    assert set(cases) == set(CONSTRUCTED) | set(DRAFTS)
    for case_id, (path, _) in cases.items():
        assert path.name == f"{case_id}.md"


def test_every_case_rubric_exists(cases, rubrics):
    for path, case in cases.values():
        assert not case.rubric or case.rubric in rubrics, f"{path}: rubric {case.rubric!r}"


@pytest.mark.parametrize("case_id", sorted(CONSTRUCTED))
def test_constructed_case_is_ready_with_the_seed_scenario_verbatim(cases, case_id):
    _, case = cases[case_id]
    heading = CONSTRUCTED[case_id]
    assert (case.type, case.status, case.rubric) == ("constructed", "ready", case_id)
    assert case.strategies == []  # fictional: no outcome to recall
    if SEED_000.is_file():
        expected = seed_scenario(SEED_000.read_text(encoding="utf-8"), heading)
        assert case.scenario == expected
        assert sha256(expected) == SEED_SCENARIO_SHA256[heading], "update the recorded hash"
    else:
        assert sha256(case.scenario) == SEED_SCENARIO_SHA256[heading]


@pytest.mark.parametrize("case_id, features", [
    ("glenda-crock", ["coercion", "compliance trap", "pre-framed choice set"]),
    ("blast-radius", ["blast radius", "rollback", "phasing"]),
])
def test_constructed_outcome_states_the_evaluation_basis(cases, rubrics, case_id, features):
    _, case = cases[case_id]
    outcome = case.outcome.lower()
    assert "constructed case" in outcome
    for feature in features:
        assert feature in outcome, f"{case_id}: outcome does not name {feature!r}"
    # One feature per rubric criterion, so evaluators score against what the rubric asks.
    assert len(rubrics[case_id].criteria) == len(features)
    assert "selection criteria" in case.notes.lower()


def test_constructed_case_classifications(cases):
    glenda = cases["glenda-crock"][1]
    assert glenda.complexity == "high" and glenda.concern_domain in ("policy", "business")
    blast = cases["blast-radius"][1]
    assert (blast.domain, blast.concern_domain) == ("infrastructure", "technology")
    assert blast.complexity in ("medium", "high")


@pytest.mark.parametrize("case_id", sorted(DRAFTS))
def test_draft_states_strategy_tension_and_research_needed(cases, case_id):
    _, case = cases[case_id]
    assert (case.type, case.status, case.domain) == ("historical", "draft", DRAFTS[case_id])
    assert case.strategies
    assert case.structural_tension
    assert case.scenario.startswith("[DRAFT OUTLINE")
    assert case.outcome.startswith("[TO RESEARCH")
    research = case.research_needed.lower()
    for need in ("specific decision", "knowledge boundary", "causal record", "contamination probe"):
        assert need in research, f"{case_id}: research needed says nothing about {need!r}"
    if "B" in case.strategies:
        assert "two independent verifiers" in research


def test_drafts_carry_the_seed_dates_and_strategies(cases):
    assert cases["saas-enterprise-pivot"][1].decision_date == "2020..2022"
    standards = cases["standards-body-ai-policy"][1]
    assert standards.decision_date == "2023..2024"
    assert standards.strategies == ["A", "B"]  # "A or B depending on timing"
    for case_id in set(DRAFTS) - {"standards-body-ai-policy"}:
        assert cases[case_id][1].strategies == ["C"]


@pytest.mark.parametrize("case_id", sorted(DRAFTS))
def test_a_draft_cannot_simply_be_marked_ready(cases, rubrics, case_id):
    """Flipping only the status must fail: the selection criteria are still open."""
    path, case = cases[case_id]
    promoted = replace(case, status="ready")
    problems = check(parse_text(case_to_text(promoted), str(path)), set(rubrics))
    fields = {p.field for p in problems}
    assert {f"criteria.{key}" for key in CRITERIA} <= fields
    assert all("required when status" in p.message for p in problems)


def test_shipped_case_files_are_in_canonical_layout():
    """Saving a shipped case from the TUI without changes must not rewrite it."""
    for path in sorted(CASES.glob("*.md")):
        if path.name == "README.md":
            continue
        assert case_to_text(parse_file(path).case) == path.read_text(encoding="utf-8"), path


def test_readme_example_is_a_valid_ready_case():
    readme = (CASES / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w*)\n(.*?)```", readme, re.S)
    examples = [body for _, body in blocks if body.startswith("+++")]
    assert len(examples) == 1
    case, problems = validate_text(examples[0], "README example", set())
    assert [str(p) for p in problems] == []
    assert case.status == "ready"
    assert case.probes[0].scenario_hash == case.scenario_hash


def test_every_rubric_loads_with_one_anchor_per_score(rubrics):
    assert set(rubrics) == RUBRIC_IDS
    for rubric in rubrics.values():
        assert rubric.instructions and rubric.source
        assert rubric.composite in ("sum", "none")
        for criterion in rubric.criteria:
            assert [a.score for a in criterion.anchors] == list(range(criterion.min, criterion.max + 1))
            assert all(a.text.strip() for a in criterion.anchors)


def test_rubric_scales_and_composites_match_the_seeds(rubrics):
    expected = {  # id: (number of criteria, criterion min, criterion max, composite, composite max)
        "anticipation": (1, 0, 3, "sum", 3),
        "epistemic-humility": (1, 0, 3, "sum", 3),
        "glenda-crock": (3, 0, 1, "sum", 3),
        "blast-radius": (3, 0, 2, "sum", 6),
        "m11-likert": (5, 0, 5, "none", None),
        "calibration-content-quality": (1, 0, 4, "sum", 4),  # five levels on the judge's [0, 1] scale
    }
    for rubric_id, (n, lo, hi, composite, top) in expected.items():
        rubric = rubrics[rubric_id]
        assert len(rubric.criteria) == n
        assert {(c.min, c.max) for c in rubric.criteria} == {(lo, hi)}
        assert (rubric.composite, rubric.max_composite) == (composite, top)
    assert [c.id for c in rubrics["m11-likert"].criteria] == [
        "accuracy", "relevance", "completeness", "clarity", "reasoning"]


def test_rubric_anchor_labels_follow_the_seed(rubrics):
    labels = lambda rubric_id: [a.label for a in rubrics[rubric_id].criteria[0].anchors]  # noqa: E731
    assert labels("anticipation") == ["Absent", "Peripheral", "Identified", "Integrated"]
    assert labels("epistemic-humility") == [
        "Confidently wrong", "Poorly calibrated", "Reasonably calibrated", "Well calibrated"]
    assert labels("m11-likert") == [
        "Completely wrong", "Major errors", "Significant errors", "Acceptable", "Good", "Perfect"]


def test_rubric_guidance_carries_the_seed_nuances(rubrics):
    steps = rubrics["epistemic-humility"].procedure
    assert len(steps) == 2
    assert steps[0].startswith("List the confidence claims") and steps[1].startswith("Score calibration")
    assert "epistemic cowardice" in rubrics["epistemic-humility"].instructions
    assert "risk CATEGORY" in rubrics["anticipation"].instructions
    blast_top = {c.id: c.anchors[-1].text for c in rubrics["blast-radius"].criteria}
    assert "all 100 production servers in week 3" in blast_top["blast_radius"]
    assert "tests the wrong thing" in blast_top["phasing"]


def test_shipped_library_imports_into_a_fresh_store():
    from store import cases as case_rows
    from store.db import open_memory_store
    from workbench.cases.library import import_cases, import_rubrics

    db = open_memory_store()
    assert import_rubrics(db, RUBRICS) == len(RUBRIC_IDS)
    imported = import_cases(db, [CASES])
    assert {c.id for c in imported} == set(CONSTRUCTED) | set(DRAFTS)
    stored = {row["id"] for row in case_rows.list_cases(db)}
    assert stored == set(CONSTRUCTED) | set(DRAFTS)
