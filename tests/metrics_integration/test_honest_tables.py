"""Issue 13 item 8: Table 4 says which effect size each cell holds; the Glenda/Crock predictions of seed 000
§VIII sit beside the observed scores; DQ's SD per condition and seed 001's anchoring flag are reported."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from tests.metrics_integration.conftest import FakeEmbedder
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.metrics.decision_quality import anchoring_elimination
from workbench.protocols.hindsight.metrics.dq_study import RunDQ, _summary_row
from workbench.metrics.estimate import Estimate
from workbench.protocols.hindsight.metrics.tables import glenda_crock_predictions, table3
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import load_study_data
from workbench.protocols.hindsight.report import build_report


@pytest.fixture
def data(seeded):
    return load_study_data(seeded[0], "seeded-study")


def test_table4_columns_are_the_seeds_then_d_z_beside(data):
    analysis = analyze(data, embedder=FakeEmbedder())
    t4 = next(t for t in analysis_tables(analysis) if t.id == "table4")
    assert t4.columns[:5] == ["Comparison", "Metric", "Cohen's d", "95% CI", "Interpretation"]
    assert t4.columns[5] == "d_z (paired) [95% CI]"
    for row, r in zip(t4.rows, analysis.table4.rows):
        # every seed comparison involves C2, whose seeded runs record no resolution: the cell is marked (issue 45)
        assert row[2] == f"{r.estimate.value:.2f} †"
        # three cases per condition: "n too small" with the values in the CI column, and no size word
        assert row[3].startswith("n too small: ") and " vs " in row[3]
        assert row[4].startswith("inconclusive") and not any(w in row[4] for w in ("small", "medium", "large")[1:])
        assert row[5].startswith(f"{r.paired.value:.2f} (n too small: ")


def test_glenda_crock_predictions_beside_the_observed_means(data):
    rows = {r["condition"]: r for r in glenda_crock_predictions(table3(data))}
    # composites by hand from conftest.GC (rater-a, rater-b; rater-b's B1 misses a criterion, so only rater-a)
    expected = {"B1": 0.0, "B2": 1.0, "B3": 1.5, "C1": 1.5, "C2": 3.0, "C3": 2.5}
    assert {c: rows[c]["observed"].value for c in expected} == pytest.approx(expected)
    assert rows["B1"]["predicted"] == (0, 1) and rows["C2"]["predicted"] == (2, 3)
    assert {r["verdict"] for r in rows.values()} == {"within"}
    report = build_report(analyze(data, embedder=FakeEmbedder()))
    assert "### Glenda/Crock: predicted (seed 000 §VIII) vs observed - human raters" in report
    assert "| C2 | 2-3 | 3.00" in report


def test_a_contradicted_prediction_is_reported_as_such():
    metric = SimpleNamespace(rubric_id="glenda-crock", criterion=None, key="gc")
    row = lambda c, v: SimpleNamespace(condition=c, cells={"gc": SimpleNamespace(estimate=Estimate(v))})  # noqa: E731
    table = SimpleNamespace(metrics=[metric], rows=[row("B1", 2.5), row("C2", 1.0), row("B2", 1.5)])
    verdicts = {r["condition"]: r["verdict"] for r in glenda_crock_predictions(table)}
    assert verdicts == {"B1": "above", "C2": "below", "B2": "within"}


def run(dq1: float, sims: list[float]) -> RunDQ:
    dq2 = anchoring_elimination(sims)
    return RunDQ("r", "c", "B3", len(sims), "sequential", Estimate(dq1), dq2, Estimate.undefined("x"),
                 Estimate.undefined("x"))


def test_dq_sd_per_condition_and_the_anchoring_flag_by_hand():
    # later perspectives drift back towards the first: r over P2..P5 of (0.72, 0.68, 0.75, 0.80) = 0.791 > 0.3
    drifting = [1.0, 0.72, 0.68, 0.75, 0.80]
    # similarities fall with order: r < 0 -> not anchoring
    falling = [1.0, 0.8, 0.6, 0.5, 0.2]
    row = _summary_row("B3", [run(0.2, drifting), run(0.4, falling), run(0.9, [1.0, 0.5])])
    # SD of (0.2, 0.4, 0.9): mean 0.5, squares 0.09 + 0.01 + 0.16 = 0.26, / 2 = 0.13
    assert row.sd["dq1"] == pytest.approx(math.sqrt(0.13))
    assert row.sd["dq3"] is None
    assert (row.anchoring_flagged, row.anchoring_tested) == (1, 2)  # the two-perspective run has no r
