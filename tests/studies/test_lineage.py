"""Lineage across studies (issue 42 item 1): calibration-small reported "best k"; a new study on the same
interactions that pre-registers that k is told so at create, and its report labels its results exploratory,
naming the earlier study; a declared confirmatory replication is refused on used data and accepted on new."""

from __future__ import annotations

import pytest

from store.outputs import write_output
from store.runs import ensure_runs
from tests.protocols.calibration.calkit import make_db
from workbench.protocols.calibration.results import arm_a, load
from workbench.studies import StudyError, create_study, freeze_study

# a panel of three mock judges, a, b and c
STUDY = ('name = "{name}"\nprotocol = "calibration"\n{extra}\n\n[model]\nname = "mock"\n'
         + "".join(f'\n[[judges]]\nname = "{judge}"\nmodel = "mock"\n' for judge in "abc")
         + "\n[calibration]\nk = {k}\n\n[calibration.generator]\nper_bin = 20\nseed = {seed}\nk_true = 1.5\n")


def _create(db, name: str, k: float, seed: int = 9, extra: str = "") -> dict:
    return create_study(db, text=STUDY.format(name=name, k=k, seed=seed, extra=extra), name=f"{name}.toml")


@pytest.fixture
def earlier(tmp_path):
    """calibration-small: frozen, one judge result written (its numbers could be read), its best k."""
    db, _ = make_db(tmp_path)
    _create(db, "cal-first", 1.0)
    freeze_study(db, "cal-first")
    item = load(db, "cal-first").interactions[0].id
    ensure_runs(db, "cal-first", [{"id": f"{item}/a", "case_id": item, "condition": "a", "replicate": 0}])
    write_output(db, f"{item}/a", "0.5", {"judge": "a", "score": 0.5, "judge_error": False})
    best = arm_a(load(db, "cal-first"))["k_sweep"]["best_k"]
    assert best != 1.0
    return db, best


def test_a_parameter_an_earlier_study_reported_is_named_and_the_report_says_exploratory(earlier):
    from workbench.protocol.registry import get
    from workbench.reports import protocol_report

    db, best = earlier
    out = _create(db, "cal-first-v2", best)
    said = " ".join(out["warnings"])
    assert f"pre-registered k = {best:g} is the value study 'cal-first' reported as its result" in said
    assert "EXPLORATORY" in said and "study 'cal-first' had results on" in said
    freeze_study(db, "cal-first-v2")
    report = protocol_report(db, "cal-first-v2", get("calibration"))
    lineage = report[report.index("## Lineage"):report.index("## Outcome")]
    assert "**EXPLORATORY.**" in lineage and "'cal-first'" in lineage and f"reported k {best:g}" in lineage


def test_a_study_on_other_data_has_no_lineage(earlier):
    db, best = earlier
    out = _create(db, "cal-other", best, seed=10)           # other interactions (another generator seed)
    assert not any("cal-first" in w for w in out["warnings"])


def test_a_confirmatory_replication_must_be_on_new_data(earlier):
    db, best = earlier
    with pytest.raises(StudyError, match="needs new data, and 120 of this study's data unit"):
        _create(db, "cal-rep", best, extra='replication_of = "cal-first"')
    from store import studies as study_rows

    assert study_rows.get_study(db, "cal-rep") is None           # refused: nothing stored
    out = _create(db, "cal-rep", best, seed=11, extra='replication_of = "cal-first"')
    assert out["action"] == "created" and out["definition"]["replication_of"] == "cal-first"
