"""Study files: defaults filled in, every bad key named with file and line, library checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.runner.studykit import study_text
from workbench.protocols.hindsight.architectures.roster import DEFAULT_ROSTER, NAMED_ROSTERS
from workbench.studies import StudyError, create_study, parse_study_text
from workbench.studies.definition import default_blinding_seed

ROOT = Path(__file__).resolve().parents[2]


def problems(text: str) -> list[str]:
    with pytest.raises(StudyError) as info:
        parse_study_text(text, "s.toml")
    return [str(p) for p in info.value.problems]


def test_a_minimal_file_gets_every_default():
    d = parse_study_text('name = "tiny"\ncases = ["toll-bridge"]\nraters = []\njudges = []\n', "s.toml")
    assert d["protocol"] == "hindsight"
    assert d["conditions"] == ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
    assert d["replicates"] == 1 and d["raters"] == [] and d["judges"] == []
    assert d["rubrics"] == ["anticipation", "epistemic-humility"]
    assert d["model"] == {"name": "mock", "api_base": "", "temperature": 0.7, "seed": None, "max_tokens": 1024,
                          "timeout": 120.0, "on_truncation": "keep"}
    assert d["thresholds"] == {"kappa_anticipation": 0.70, "kappa_epistemic_humility": 0.65, "alpha_judges": 0.5}
    assert d["blinding"] == {"overlap": 1.0, "pilot_items": True, "seed": default_blinding_seed("tiny")}
    assert d["architectures"]["C1"] == {"respondents": 5, "framing": "synthesis"}
    assert d["architectures"]["C3"] == {"scenarios": 4, "fan": "neutral"}
    c2 = d["architectures"]["C2"]
    assert [m["id"] for m in c2["roster"]] == [m.id for m in DEFAULT_ROSTER] and c2["roster_name"] == "functional"
    assert c2["mover"] == "proposer" and c2["debate_rounds"] == 2 and c2["max_amendments"] == 3
    assert c2["motion_attempts"] == 2
    assert d["cost_ceiling"] is None


def test_a_study_without_raters_or_judges_is_refused_unless_it_says_so():
    """Issue 15: leaving raters and judges out is refused by name; an explicit empty list is a choice."""
    text = 'name = "tiny"\ncases = ["toll-bridge"]\n'
    found = problems(text)
    assert any(p.startswith("s.toml:1: raters: no human raters") and "raters = []" in p for p in found)
    assert any(p.startswith("s.toml:1: judges: no LLM judges") and "judges = []" in p for p in found)
    assert problems(text + 'raters = ["ada"]\n') == [p for p in found if ": judges:" in p]
    d = parse_study_text(text + 'raters = []\n[[judges]]\nname = "j"\n', "s.toml")
    assert d["raters"] == [] and [j["name"] for j in d["judges"]] == ["j"]


def test_every_problem_names_the_file_line_and_key():
    text = ('name = "Bad Name"\n'            # 1
            'cases = ["toll-bridge"]\n'       # 2
            'conditions = ["B1", "Z9"]\n'     # 3
            'colour = "blue"\n'               # 4
            '\n'                              # 5
            '[model]\n'                       # 6
            'name = "mock"\n'                 # 7
            'temperature = 3.5\n'             # 8
            '\n'                              # 9
            '[[judges]]\n'                    # 10
            'name = "j"\n'                    # 11
            '[[judges]]\n'                    # 12
            'name = "k"\n'                    # 13
            'pipeline = "fancy"\n'            # 14
            '[architectures.C2]\n'            # 15
            'debate_rounds = "two"\n'         # 16
            '[[architectures.C2.roster]]\n'   # 17
            'id = "chair"\n'                  # 18
            'name = "Chair"\n'                # 19
            'chair = true\n')                 # 20
    found = problems(text)
    assert "s.toml:1: name: must be 2-63 characters of lowercase letters, digits and '-' (it is the study id)" in found
    assert any(p.startswith("s.toml:3: conditions: 'Z9' is not a known condition") for p in found)
    assert any(p.startswith("s.toml:4: colour: unknown key") for p in found)
    assert "s.toml:8: model.temperature: must be at least 0 and at most 2 (got 3.5)" in found
    assert "s.toml:14: judges[1].pipeline: must be one of direct, adversarial" in found
    assert "s.toml:16: architectures.C2.debate_rounds: must be an integer from 0 to 6" in found
    assert any(p.startswith("s.toml:17: architectures.C2.roster[0].brief: is required") for p in found)
    assert any(p.startswith("s.toml:17: architectures.C2.roster: needs at least two members") for p in found)


def test_invalid_toml_names_its_line():
    (p,) = problems('name = "x"\ncases = [\n')
    assert p.startswith("s.toml:") and "invalid TOML" in p


@pytest.mark.parametrize("extra,key", [
    ("replicates = 0\n", "replicates"),
    ("cost_ceiling = -1\n", "cost_ceiling"),
    ('raters = ["a", "a"]\n', "raters"),
    ("[thresholds]\nkappa_anticipation = 1.5\n", "thresholds.kappa_anticipation"),
    ("[thresholds]\nkappa_other = 0.5\n", "thresholds.kappa_other"),
    ("[blinding]\noverlap = 0\n", "blinding.overlap"),
    ("[architectures.C1]\nrespondents = 0\n", "architectures.C1.respondents"),
    ("[architectures.B1]\nx = 1\n", "architectures.B1"),
    ("[architectures.C2]\nmover = \"chair\"\n", "architectures.C2.mover"),
    ("[model]\nseed = 1.5\n", "model.seed"),
])
def test_bad_values_are_refused_by_key(extra, key):
    text = 'name = "ok-name"\ncases = ["toll-bridge"]\n' + extra
    assert any(re.match(rf"s\.toml:\d+: {re.escape(key)}: ", p) for p in problems(text)), problems(text)


def test_a_draft_case_is_refused_with_a_clear_message(store):
    db, _, _ = store
    text = study_text("drafty", cases=("toll-bridge", "unfinished"))
    with pytest.raises(StudyError) as info:
        create_study(db, text=text, name="drafty.toml")
    (p,) = info.value.problems
    assert str(p).startswith("drafty.toml:3: cases: case 'unfinished' is draft: only ready cases can enter a study")


def test_missing_cases_and_rubrics_are_refused(store):
    db, _, _ = store
    text = study_text("missing", cases=("no-such-case",)) + "\n"
    text = text.replace('raters = ', 'rubrics = ["anticipation", "no-such-rubric"]\nraters = ')
    with pytest.raises(StudyError) as info:
        create_study(db, text=text, name="m.toml")
    messages = [p.message for p in info.value.problems]
    assert any("no case 'no-such-case' in the store" in m for m in messages)
    assert any("no rubric with id 'no-such-rubric'" in m for m in messages)


def test_create_stores_definition_and_source_and_can_replace_an_unfrozen_study(store):
    from store.studies import get_study

    db, _, _ = store
    first = create_study(db, text=study_text("twice"), name="t.toml")
    assert first["action"] == "created"
    row = get_study(db, "twice")
    assert row["definition"]["model"]["name"] == "openai/test" and row["source_text"] == study_text("twice")
    again = create_study(db, text=study_text("twice", conditions=("B1", "B2")), name="t.toml")
    assert again["action"] == "replaced" and get_study(db, "twice")["definition"]["conditions"] == ["B1", "B2"]
    assert create_study(db, text=study_text("twice", conditions=("B1", "B2")), name="t.toml")["action"] == "unchanged"


def test_the_shipped_mock_study_parses_and_the_readme_documents_every_key():
    d = parse_study_text((ROOT / "studies" / "glenda-crock-mock.toml").read_text(), "glenda-crock-mock.toml")
    assert d["name"] == "glenda-crock-mock" and d["cases"] == ["glenda-crock"]
    assert d["conditions"] == ["B1", "B2", "B3", "C1", "C2", "C3", "P1"] and d["model"]["name"] == "mock"
    assert d["raters"] == ["rater-a", "rater-b"] and [j["model"] for j in d["judges"]] == ["mock"]
    readme = (ROOT / "studies" / "README.md").read_text()

    leaves, tables = set(), set()
    for key, value in d.items():
        if isinstance(value, dict):
            tables.add(f"[{key}]")
            for sub, v in value.items():
                if isinstance(v, dict):  # [architectures.C2]
                    tables.add(f"[{key}.{sub}]")
                    leaves |= set(v)
                else:
                    leaves.add(sub)
        elif key == "judges":
            tables.add("[[judges]]")
            leaves |= {k for j in value for k in j}
        else:
            leaves.add(key)
    tables.discard("[architectures]")
    undocumented = sorted({k for k in leaves if f"`{k}`" not in readme} | {t for t in tables if t not in readme})
    assert undocumented == []
    for name, (members, _mover) in NAMED_ROSTERS.items():  # each named roster and each role's brief is documented
        assert f"`{name}`" in readme
        for member in members:
            assert member.brief in readme


def test_named_structure_options_are_checked_by_name():
    """Issue 30: the roster, C1's framing and C3's fan are named choices; a wrong name is refused with the key,
    the choices and what they mean."""
    base = 'name = "tiny"\ncases = ["toll-bridge"]\nraters = []\njudges = []\n'
    found = problems(base + '[architectures.C2]\nroster = "topical"\n[architectures.C1]\nframing = "all"\n'
                            '[architectures.C3]\nfan = "risky"\n')
    assert any("architectures.C2.roster: 'topical' is not a named roster; use one of functional, content-briefs"
               in p for p in found)
    assert any("architectures.C1.framing: must be one of synthesis, respondents" in p for p in found)
    assert any("architectures.C3.fan: must be one of neutral, tail-risk" in p for p in found)
    d = parse_study_text(base + '[architectures.C2]\nroster = "content-briefs"\n', "s.toml")
    c2 = d["architectures"]["C2"]
    assert c2["roster_name"] == "content-briefs" and c2["mover"] == "strategist"
    assert [m["id"] for m in c2["roster"]][:2] == ["chair", "risk-analyst"]


def test_the_evaluator_key_names_whose_scores_fill_the_tables():
    """Issue 30: `evaluator` is checked against the study's raters and judges, kept in the definition (so it is
    frozen and hashed with it) only when given, and defaults to the raters, else the one judge."""
    from workbench.studies.evaluator import describe, evaluators_of

    base = 'name = "tiny"\ncases = ["toll-bridge"]\n'
    judge = '[[judges]]\nname = "j"\n'
    d = parse_study_text(base + 'raters = []\n' + judge, "s.toml")
    assert "evaluator" not in d  # a file without it keeps the definition (and freeze) it had
    assert [e.key for e in evaluators_of(d)] == ["judge:j"] and describe(d).endswith("(the default)")
    d = parse_study_text(base + 'raters = ["ada"]\n' + judge, "s.toml")
    assert [e.key for e in evaluators_of(d)] == ["raters"]
    d = parse_study_text(base + 'raters = ["ada"]\nevaluator = "both"\n' + judge, "s.toml")
    assert d["evaluator"] == "both" and [e.key for e in evaluators_of(d)] == ["raters", "judge:j"]
    d = parse_study_text(base + 'raters = ["ada"]\nevaluator = "judge:j"\n' + judge, "s.toml")
    assert [e.key for e in evaluators_of(d)] == ["judge:j"]
    assert problems(base + 'raters = []\nevaluator = "raters"\n' + judge) == [
        's.toml:4: evaluator: "raters" needs raters (the study names none)']
    assert problems(base + 'raters = ["ada"]\nevaluator = "judge:k"\n' + judge) == [
        "s.toml:4: evaluator: no judge named 'k' (judges: j)"]
    assert problems(base + 'raters = []\nevaluator = "both"\n' + judge) == [
        's.toml:4: evaluator: "both" needs raters and at least one [[judges]] table']
    assert "must be \"raters\", \"judge:<name>\" or \"both\"" in problems(base + 'raters = []\nevaluator = "llm"\n'
                                                                          + judge)[0]
    two = judge + '[[judges]]\nname = "k"\n'
    assert "name the one its tables come from" in problems(base + 'raters = []\n' + two)[0]
    assert parse_study_text(base + 'raters = []\nevaluator = "judge:k"\n' + two, "s.toml")["evaluator"] == "judge:k"


def test_the_evaluator_is_part_of_the_freeze_hash():
    from workbench.studies.freeze import frozen_definition

    base = 'name = "tiny"\ncases = ["toll-bridge"]\nraters = ["ada"]\n[[judges]]\nname = "j"\n'
    plain = parse_study_text(base, "s.toml")
    judged = parse_study_text(base.replace('raters = ["ada"]\n', 'raters = ["ada"]\nevaluator = "judge:j"\n'),
                              "s.toml")
    assert frozen_definition(plain) != frozen_definition(judged)
