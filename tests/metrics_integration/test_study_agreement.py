"""Inter-rater agreement vs the pre-registered targets, human vs judge, judge errors and the blindness audit,
checked against hand computations from the seed dicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tests.metrics_integration.conftest import ANT, EH, SLOTS9, B, G, H
from workbench.protocols.hindsight.metrics.agreement_report import (
    agreement_report,
    blindness_audit,
    human_vs_judge,
    inter_rater,
    judge_errors,
    round_half_up,
)
from workbench.protocols.hindsight.metrics.judge_calibration import judge_calibration
from workbench.protocols.hindsight.metrics.study_data import load_study_data

CASES = [H, G, B]


def kappa_by_hand(a, b, k, weights=None):
    """Cohen's kappa from its definition: (p_o - p_e) / (1 - p_e) on a k x k table."""
    table = np.zeros((k, k))
    for x, y in zip(a, b):
        table[int(x), int(y)] += 1
    p = table / table.sum()
    i, j = np.indices((k, k))
    w = (i == j).astype(float) if weights is None else 1 - (i - j) ** 2 / (k - 1) ** 2
    po = (w * p).sum()
    pe = (w * np.outer(p.sum(1), p.sum(0))).sum()
    return (po - pe) / (1 - pe)


def pairs(table, skip=()):
    a, b = [], []
    for case in CASES:
        for i, slot in enumerate(SLOTS9):
            if (case, slot) in skip:
                continue
            a.append(table["rater-a"][case][i])
            b.append(table["rater-b"][case][i])
    return a, b


@pytest.fixture
def data(seeded):
    return load_study_data(seeded[0], "seeded-study")


def test_inter_rater_kappa_vs_targets(data):
    rows = {r.metric.key: r for r in inter_rater(data)}
    a, b = pairs(ANT)
    ant = rows["anticipation"]
    assert ant.n_items == 27 and ant.raters == ("rater-a", "rater-b")
    assert ant.kappa.value == pytest.approx(kappa_by_hand(a, b, 4))
    assert ant.kappa_quadratic.value == pytest.approx(kappa_by_hand(a, b, 4, "quadratic"))
    assert ant.target == 0.70
    assert ant.verdict == ("pass" if ant.kappa.value >= 0.70 else "fail")
    # EH: the undone cell leaves 26 items scored by both raters.
    a, b = pairs(EH, skip={(B, ("C1", 0))})
    eh = rows["epistemic-humility"]
    assert eh.n_items == 26 and eh.target == 0.65
    assert eh.kappa.value == pytest.approx(kappa_by_hand(a, b, 4))
    assert eh.verdict == ("pass" if eh.kappa.value >= 0.65 else "fail")
    assert {ant.verdict, eh.verdict} == {"pass", "fail"}  # the seed data exercises both outcomes
    # Krippendorff's alpha (ordinal) from the package, on the same two rows.
    import krippendorff

    a, b = pairs(ANT)
    ref = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal", value_domain=[0, 1, 2, 3])
    assert ant.alpha_ordinal.value == pytest.approx(ref)


def test_agreement_by_criterion_has_no_target(data):
    rows = {r.metric.key: r for r in inter_rater(data)}
    assert "glenda-crock:frame_analysis" in rows and "blast-radius:phasing" in rows
    assert rows["glenda-crock:frame_analysis"].n_items == 8  # rater-b left one frame_analysis empty
    assert rows["blast-radius"].verdict == "no target"


def test_thresholds_come_from_the_study(data):
    data.definition = {**data.definition, "thresholds": {"kappa_anticipation": 0.1,
                                                         "kappa_epistemic_humility": 0.99, "alpha_judges": 0.5}}
    rows = {r.metric.key: r for r in inter_rater(data)}
    assert rows["anticipation"].verdict == "pass" and rows["epistemic-humility"].verdict == "fail"


def test_three_raters_use_lights_kappa(data):
    from dataclasses import replace

    extra = [replace(s, evaluator="rater-c") for s in data.scores if s.evaluator == "rater-a"]
    data.scores = data.scores + extra
    row = next(r for r in inter_rater(data) if r.metric.key == "anticipation")
    assert len(row.raters) == 3 and row.basis.startswith("Light's")
    a, b = pairs(ANT)
    expected = (kappa_by_hand(a, b, 4) * 2 + 1.0) / 3  # (a,b), (a,c)=(a,a)=1, (b,c)=(b,a)
    assert row.kappa.value == pytest.approx(expected)


def test_human_vs_judge(data):
    rows = {(r.judge, r.metric.key): r for r in human_vs_judge(data)}
    r = rows[("judge-b", "anticipation")]
    assert r.n_items == 26 and r.n_errors == 1  # glenda-crock C2 was a judge_error: excluded, not 0
    human, judge = [], []
    for case in CASES:
        for i, slot in enumerate(SLOTS9):
            if (case, slot) == (G, ("C2", 0)):
                continue
            human.append(np.mean([ANT["rater-a"][case][i], ANT["rater-b"][case][i]]))
            judge.append(ANT["rater-b"][case][i])
    assert r.kappa_quadratic.value == pytest.approx(
        kappa_by_hand(judge, [round_half_up(h) for h in human], 4, "quadratic"))
    assert r.spearman.value == pytest.approx(stats.spearmanr(judge, human).statistic)
    assert round_half_up(1.5) == 2 and round_half_up(2.5) == 3 and round_half_up(0.49) == 0


def test_judge_errors_per_condition(data):
    rows = {(r.judge, r.condition): r for r in judge_errors(data)}
    assert rows[("judge-b", "C2")].error_pairs == 1 and rows[("judge-b", "B3")].error_pairs == 1
    assert rows[("judge-b", None)].error_pairs == 2 and rows[("judge-a", None)].error_pairs == 0
    assert rows[("judge-b", "C2")].ok_pairs == 5
    assert agreement_report(data).judge_error_rows == {"judge-b": 2}


def test_blindness_audit_vs_chance(data):
    rows = {r.condition: r for r in blindness_audit(data)}
    assert rows["C2"].n == 3 and rows["C2"].n_correct == 3 and rows["P1"].n == 9
    assert rows["B1"].n_correct == 1 and rows["B2"].n_correct == 0
    overall = rows[None]
    # issue 13: one chance rate everywhere; P1 is three C2 runs, so the auditor names 6 setups, not 7
    assert overall.n == 27 and overall.n_correct == 13 and overall.chance == pytest.approx(1 / 6)
    assert overall.p_value == pytest.approx(stats.binomtest(13, 27, 1 / 6, alternative="greater").pvalue)
    lo, hi = overall.accuracy.ci_low, overall.accuracy.ci_high
    z = stats.norm.ppf(0.975)
    p, n = 13 / 27, 27
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert (lo, hi) == pytest.approx((centre - half, centre + half))


def test_judge_calibration_against_human_outcome(data):
    rows = {r.judge: r for r in judge_calibration(data)}
    r = rows["judge-a"]
    p = [ANT["rater-a"][c][i] / 3 for c in sorted(CASES, key=str) for i in range(9)]
    assert r.report.n == 27 and sorted(r.probabilities) == pytest.approx(sorted(p))
    # Brier by hand on the same pairs.
    brier = np.mean([(pp - y) ** 2 for pp, y in zip(r.probabilities, r.outcomes)])
    assert r.report.brier.value == pytest.approx(brier)
    assert "all judges" in rows and rows["all judges"].report.n == 27 + 26


def test_blinded_agreement_is_condition_free(blinded):
    data = load_study_data(blinded[0], "seeded-study")
    rep = agreement_report(data)
    assert all(r.condition is None for r in rep.judge_errors)
    assert [r.condition for r in rep.audits] == [None]
    assert rep.inter_rater[0].n_items == 27  # agreement needs no condition


def test_cases_sharing_a_specialized_rubric_give_its_rows_once():
    """Issue 42 item 8: a study with several cases on one specialized rubric repeated every specialized row of
    both agreement tables once per case (24 duplicates in a six-case study)."""
    from workbench.metrics.ratings import CriterionInfo, RubricInfo
    from workbench.protocols.hindsight.metrics.agreement_report import agreement_metrics
    from workbench.protocols.hindsight.metrics.study_data import CaseInfo, StudyData

    cases = {f"c{i}": CaseInfo(f"c{i}", "t", "historical", None, None, "glenda-crock") for i in range(6)}
    data = StudyData("s", "s", "hindsight", {"rubrics": ["anticipation"]}, False, cases=cases)
    assert data.named_rubric_ids() == ["anticipation", "glenda-crock"]
    crit = tuple(CriterionInfo(c, c, 0, 1) for c in ("a", "b", "c"))
    data.rubrics = {"h1": RubricInfo(hash="h1", rubric_id="glenda-crock", name="GC", composite="sum", criteria=crit)}
    data.scores = [type("R", (), {"rubric_id": "glenda-crock"})()]
    labels = [m.label for m in agreement_metrics(data)]
    assert len(labels) == len(set(labels)) == 4          # three criteria and the composite, once each


def test_the_blindness_audits_per_condition_tests_are_holm_adjusted():
    """Issue 42: a multiple-comparison correction on every family of comparisons, uncorrected p beside it."""
    from types import SimpleNamespace

    from workbench.metrics.estimate import Estimate
    from workbench.protocols.hindsight.metrics.agreement_report import AuditRow
    from workbench.protocols.hindsight.metrics.render import audit_rendered

    acc = Estimate(0.5, 0.3, 0.7, n=10, method="x", confidence=0.95)
    rows = (AuditRow("B1", 10, 5, acc, 0.2, 0.01, ()), AuditRow("C1", 10, 5, acc, 0.2, 0.04, ()),
            AuditRow("C2", 10, 5, acc, 0.2, 0.03, ()), AuditRow(None, 30, 15, acc, 0.2, 0.001, ()))
    analysis = SimpleNamespace(blinded=False, forced=False, agreement=SimpleNamespace(audits=rows))
    table = audit_rendered(analysis)
    assert table.columns[-2:] == ["p (> chance)", "p (Holm)"]
    # by hand over the three conditions: 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06
    assert [r[-1] for r in table.rows] == ["0.030", "0.060", "0.060", "-"]
    assert "Holm-adjusted over the per-condition tests" in " ".join(table.notes)
