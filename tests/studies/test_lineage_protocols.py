"""Lineage for every protocol (issue 42 item 1): each protocol names what its report presents as a result a
later study could pre-register, and a later study on the same data that pre-registers it is told so at create;
its report labels the affected results exploratory, naming the earlier study. A replication on new data stays
possible for every protocol (the data is checked new)."""

from __future__ import annotations

import pytest

from store.runs import ensure_runs, finish_run
from tests.protocols.calibration.calkit import make_db
from workbench.studies import StudyError, create_study, freeze_study

FAULTLINE = '''name = "{name}"
protocol = "faultline"
conditions = {conditions}
{extra}

[model]
name = "mock"

[faultline]
topics = ["{topic}"]
pairs = {pairs}
rounds = 1
'''
TOPIC = "nuclear-power"
MEDIUM, LOW = "technologist-and-ethicist", "pragmatist-and-economist"   # two divergence levels


def _faultline(db, name, conditions, pairs=(MEDIUM,), topic=TOPIC, extra=""):
    text = FAULTLINE.format(name=name, conditions=list(conditions), pairs=list(pairs), topic=topic, extra=extra)
    return create_study(db, text=text.replace("'", '"'), name=f"{name}.toml")


def _debate(db, study, condition, pair, right: bool):
    """A finished debate whose personas' closing stances get both verifiable claims right (or both wrong)."""
    item = f"{TOPIC}--{pair}"
    run = f"{item}/{condition}/0"
    ensure_runs(db, study, [{"id": run, "case_id": item, "condition": condition, "replicate": 0}])
    sign = 1 if right else -1
    stance = {"chernobyl-year": 2 * sign, "plants-emit-co2": -2 * sign}
    finish_run(db, run, "done", output={"text": "debate", "report": {
        "pair": pair, "stances": {"opening": {"a": stance, "b": stance}, "closing": {"a": stance, "b": stance}},
        "messages": [], "errors": []}})


@pytest.fixture
def faultline_earlier(tmp_path):
    """fl-first: plain and qbaf on two pairs of two divergence levels; qbaf and the medium pair do best."""
    db, _ = make_db(tmp_path)
    _faultline(db, "fl-first", ["plain", "qbaf"], pairs=(MEDIUM, LOW))
    freeze_study(db, "fl-first")
    _debate(db, "fl-first", "qbaf", MEDIUM, True)
    _debate(db, "fl-first", "qbaf", LOW, True)
    _debate(db, "fl-first", "plain", MEDIUM, True)
    _debate(db, "fl-first", "plain", LOW, False)
    return db


def test_faultline_reports_its_best_architecture_and_divergence(faultline_earlier):
    from workbench.protocol.registry import get
    from store.studies import get_study

    values = get("faultline").reported_values(faultline_earlier, "fl-first", get_study(faultline_earlier,
                                                                                       "fl-first")["definition"])
    assert values == {"debate condition": "qbaf", "divergence": "medium"}   # ACC 1.0 vs 0.5 by hand


def test_faultline_a_chosen_architecture_is_named_at_create_and_in_the_report(faultline_earlier):
    from workbench.protocol.registry import get
    from workbench.reports import protocol_report

    db = faultline_earlier
    out = _faultline(db, "fl-qbaf", ["qbaf", "self-consistency"])
    said = " ".join(out["warnings"])
    assert "pre-registered debate condition = qbaf is the value study 'fl-first' reported as its result" in said
    assert "pre-registered divergence = medium is the value study 'fl-first' reported" in said
    assert "every table and comparison of that condition" in said
    freeze_study(db, "fl-qbaf")
    report = protocol_report(db, "fl-qbaf", get("faultline"))
    lineage = report[report.index("## Lineage"):]
    lineage = lineage[:lineage.index("\n## ", 3)]
    assert "**EXPLORATORY.**" in lineage and "debate condition = qbaf" in lineage and "'fl-first'" in lineage


def test_faultline_another_architecture_is_not_a_match(faultline_earlier):
    out = _faultline(faultline_earlier, "fl-plain", ["plain", "self-consistency"], pairs=(LOW,))
    said = " ".join(out["warnings"])
    assert "fl-first" in said and "pre-registered" not in said   # same data, seen: exploratory, but no match


def test_faultline_replication_must_be_on_new_data(faultline_earlier):
    db = faultline_earlier
    with pytest.raises(StudyError, match="needs new data"):
        _faultline(db, "fl-rep", ["qbaf", "self-consistency"], extra='replication_of = "fl-first"')
    out = _faultline(db, "fl-rep", ["qbaf", "self-consistency"], topic="four-day-week",
                     extra='replication_of = "fl-first"')
    assert out["action"] == "created" and not any("fl-first" in w for w in out["warnings"])


# --- M11: the human-agreement r a report shows, pre-registered as the next study's target ------------------

M11 = '''name = "{name}"
protocol = "m11"
{extra}
raters = ["ann"]

[model]
name = "mock"

[m11]
items = "{items}"
runs = 1

[thresholds]
human_r = {human_r}
'''


def _m11(db, name, items, human_r=0.85, extra=""):
    return create_study(db, text=M11.format(name=name, items=items, human_r=human_r, extra=extra),
                        name=f"{name}.toml")


def _m11_items(tmp_path, name, ids):
    import json

    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"id": i, "title": f"Product {i}", "validated_use": "Holding things",
                                        "attribute_table": ["Red", "Large"], "hard_constraints": [],
                                        "reasoning": "Applied the 3-step test: none is a mechanism."}) + "\n"
                            for i in ids))
    return str(path)


@pytest.fixture
def m11_earlier(tmp_path, monkeypatch):
    """m11-first: its human-agreement r is 0.712 (the hook is fed a known agreement; the r is the report's)."""
    db, _ = make_db(tmp_path)
    items = _m11_items(tmp_path, "a", ["p1", "p2", "p3"])
    _m11(db, "m11-first", items)
    freeze_study(db, "m11-first")
    ensure_runs(db, "m11-first", [{"id": "p1/likert/0", "case_id": "p1", "condition": "likert", "replicate": 0}])
    finish_run(db, "p1/likert/0", "done", output={"text": "x", "report": {}})
    import workbench.protocols.m11.human as human

    real = human.human_validation
    def fed(db, sid, results, options, target=0.85):
        out = real(db, sid, results, options, target)
        return {**out, "pearson": {**out["pearson"], "value": 0.7123}} if sid == "m11-first" else out

    monkeypatch.setattr(human, "human_validation", fed)
    return db, items, tmp_path


def test_m11_a_target_set_to_an_earlier_r_is_named(m11_earlier):
    from workbench.protocol.registry import get
    from workbench.reports import protocol_report

    db, items, _ = m11_earlier
    out = _m11(db, "m11-next", items, human_r=0.71)
    said = " ".join(out["warnings"])
    assert "pre-registered human_r = 0.71 is the value study 'm11-first' reported as its result" in said
    assert "the human-agreement verdict" in said
    freeze_study(db, "m11-next")
    report = protocol_report(db, "m11-next", get("m11"))
    assert "**EXPLORATORY.**" in report and "human_r = 0.71 is the value study 'm11-first'" in report


def test_m11_the_seed_target_is_not_a_match_and_a_replication_needs_new_outputs(m11_earlier):
    db, items, tmp_path = m11_earlier
    out = _m11(db, "m11-seed", items)                       # the seed's 0.85: fixed before any study
    assert not any("pre-registered human_r" in w for w in out["warnings"])
    with pytest.raises(StudyError, match="needs new data"):
        _m11(db, "m11-rep", items, human_r=0.71, extra='replication_of = "m11-first"')
    fresh = _m11_items(tmp_path, "b", ["q1", "q2"])
    assert _m11(db, "m11-rep", fresh, human_r=0.71, extra='replication_of = "m11-first"')["action"] == "created"


# --- hindsight: the observed kappa as the next target, the best committee run alone ------------------------

HINDSIGHT = '''name = "{name}"
protocol = "hindsight"
cases = ["glenda-crock", "blast-radius"]
conditions = {conditions}
raters = ["rater-a", "rater-b"]
rubrics = ["anticipation", "epistemic-humility"]
judges = []

[model]
name = "mock"

[thresholds]
kappa_anticipation = {kappa}
'''


def _cohen(a: list[int], b: list[int]) -> float:
    """Cohen's unweighted kappa by hand: (po − pe) / (1 − pe)."""
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    pe = sum((a.count(c) / n) * (b.count(c) / n) for c in range(4))
    return (po - pe) / (1 - pe)


@pytest.fixture
def hindsight_earlier(tmp_path):
    """The seeded study of tests/metrics_integration (3 cases, 7 conditions, 2 raters), unblinded."""
    from store import open_store
    from tests.metrics_integration.conftest import ANT, standard_spec
    from tests.metrics_integration.seeding import seed_study

    db = open_store(tmp_path / "store.db")
    spec = standard_spec()
    seed_study(db, spec)
    a = [v for case in spec.cases for v in ANT["rater-a"][case]]
    b = [v for case in spec.cases for v in ANT["rater-b"][case]]
    return db, round(_cohen(a, b), 2)


def test_hindsight_reports_its_kappas_and_best_committee(hindsight_earlier):
    from workbench.protocol.registry import get
    from store.studies import get_study

    db, kappa = hindsight_earlier
    values = get("hindsight").reported_values(db, "seeded-study", get_study(db, "seeded-study")["definition"])
    assert values["kappa_anticipation"] == pytest.approx(kappa)
    # Table 1 Anticipation by hand (case means of the two raters): C1 1.83, C2 2.67, C3 2.50
    assert values["committee condition"] == "C2"


def test_hindsight_a_target_set_to_the_observed_kappa_and_the_best_committee_are_named(hindsight_earlier):
    db, kappa = hindsight_earlier
    out = create_study(db, text=HINDSIGHT.format(name="hs-next", conditions='["B1", "C2"]', kappa=kappa),
                       name="hs-next.toml")
    said = " ".join(out["warnings"])
    assert f"pre-registered kappa_anticipation = {kappa:g} is the value study 'seeded-study' reported" in said
    assert "pre-registered committee condition = C2 is the value study 'seeded-study' reported" in said
    assert "the inter-rater verdict against kappa_anticipation" in said


def test_hindsight_the_seed_target_and_another_committee_are_not_matches(hindsight_earlier):
    db, _ = hindsight_earlier
    out = create_study(db, text=HINDSIGHT.format(name="hs-other", conditions='["B1", "C1"]', kappa=0.7),
                       name="hs-other.toml")
    said = " ".join(out["warnings"])
    assert "seeded-study" in said and "pre-registered" not in said


def test_hindsight_replication_must_be_on_new_cases(tmp_path):
    from store import open_store
    from tests.metrics_integration.conftest import standard_spec
    from tests.metrics_integration.seeding import seed_study

    db = open_store(tmp_path / "store.db")
    seed_study(db, standard_spec())
    from pathlib import Path

    from workbench.cases.library import import_cases

    fresh_case = tmp_path / "fresh-case.md"           # a new case: the shipped one under another id
    shipped = (Path(__file__).parents[2] / "cases" / "glenda-crock.md").read_text()
    fresh_case.write_text(shipped.replace('id = "glenda-crock"', 'id = "fresh-case"'))
    import_cases(db, [fresh_case])
    text = HINDSIGHT.format(name="hs-rep", conditions='["B1", "C2"]', kappa=0.7)
    text = text.replace("[model]", 'replication_of = "seeded-study"\n\n[model]', 1)
    with pytest.raises(StudyError, match="needs new data, and 2 of this study's data unit"):
        create_study(db, text=text, name="hs-rep.toml")
    fresh = text.replace('["glenda-crock", "blast-radius"]', '["fresh-case"]')
    assert create_study(db, text=fresh, name="hs-rep.toml")["action"] == "created"
