"""Tables 1-4 on the seeded study against values computed here, by hand, from the seed dicts."""

from __future__ import annotations

import numpy as np
import pytest

from tests.metrics_integration.conftest import ANT, BR, COND6, EH, GC, SLOTS9, B, G, H
from workbench.metrics.descriptive import mean_ci
from workbench.protocols.hindsight.metrics.tables import (
    Comparison,
    effect_size,
    interpret_d,
    parse_comparison,
    table1,
    table2,
    table3,
    table4,
)
from workbench.protocols.hindsight.metrics.study_data import load_study_data

CASES = [H, G, B]
RATERS = ["rater-a", "rater-b"]


def final(table, rater, case, i):
    """The seeded final value, honouring the seed's history: rater-b's EH on blast-radius C1 was undone."""
    if table is EH and rater == "rater-b" and case == B and SLOTS9[i] == ("C1", 0):
        return None
    return table[rater][case][i]


def item_mean(table, case, i):
    vals = [final(table, r, case, i) for r in RATERS if final(table, r, case, i) is not None]
    return sum(vals) / len(vals)


def unit(table, case, cond):
    idx = [i for i, (c, _) in enumerate(SLOTS9) if c == cond]
    return sum(item_mean(table, case, i) for i in idx) / len(idx)


@pytest.fixture
def data(seeded):
    db, _, _ = seeded
    return load_study_data(db, "seeded-study")


def test_history_rules_edit_undo_skip(data, seeded):
    _, _, s = seeded
    # rater-a first scored 3, then 0: the latest row wins.
    item = s.item_ids[(H, "B1", 0)]
    got = {r.evaluator: r.value for r in data.scores if r.item_id == item and r.rubric_id == "anticipation"}
    assert got == {"rater-a": 0.0, "rater-b": 1.0}
    # rater-b's EH on blast-radius C1 was scored then undone: no current value.
    item = s.item_ids[(B, "C1", 0)]
    got = {r.evaluator for r in data.scores if r.item_id == item and r.rubric_id == "epistemic-humility"}
    assert got == {"rater-a"}


@pytest.mark.parametrize("rubric,table", [("anticipation", ANT), ("epistemic-humility", EH)])
def test_table1_values_by_hand(data, rubric, table):
    t1 = table1(data)
    assert [r.condition for r in t1.rows] == COND6 and t1.p1_row.condition == "P1"
    for row in list(t1.rows) + [t1.p1_row]:
        cell = row.cells[rubric]
        units = [unit(table, case, row.condition) for case in CASES]
        assert cell.estimate.value == pytest.approx(np.mean(units))
        assert cell.estimate.n == 3 and row.n_cases[rubric] == 3
        # The CI is the bootstrap of exactly those per-case units (the unit of analysis), in case-id order.
        ref = mean_ci([unit(table, case, row.condition) for case in sorted(CASES)])
        assert (cell.estimate.ci_low, cell.estimate.ci_high) == pytest.approx((ref.ci_low, ref.ci_high))


def test_table1_spot_values(data):
    t1 = {r.condition: r for r in table1(data).rows}
    # C2 anticipation: rater means per case (3, 2, 3) -> 8/3. B1: harbor (0 + 1) / 2, glenda 1, blast 0 -> 0.5.
    assert t1["C2"].cells["anticipation"].estimate.value == pytest.approx(8 / 3)
    assert t1["B1"].cells["anticipation"].estimate.value == pytest.approx(0.5)
    # C1 EH on blast-radius: rater-b's score was undone, so the unit is rater-a's 1 alone.
    assert t1["C1"].cells["epistemic-humility"].units[0].value == 1.0


def test_table1_p1_averages_replicates(data):
    p1 = table1(data).p1_row.cells["anticipation"]
    # harbor: replicate means (3, 2, 3) -> 8/3; glenda (2, 2, 2.5) -> 13/6; blast (3, 3, 2) -> 8/3
    assert sorted(u.value for u in p1.units) == pytest.approx(sorted([8 / 3, 13 / 6, 8 / 3]))
    assert all(len(u.item_ids) == 3 for u in p1.units)


def test_pilot_items_never_count(data, seeded):
    _, _, s = seeded
    pilots = set(s.pilot_ids)
    t1 = table1(data)
    for row in t1.rows:
        assert not pilots & set(row.cells["anticipation"].item_ids)


def composite(table, rater, i):
    vals = table[rater][i]
    return None if any(v is None for v in vals) else sum(vals)


@pytest.mark.parametrize("rubric,table", [("glenda-crock", GC), ("blast-radius", BR)])
def test_table3_composites_by_hand(data, rubric, table):
    t3 = table3(data)
    assert [m.key for m in t3.metrics] == ["glenda-crock", "blast-radius"]
    assert {m.key: m.scale for m in t3.metrics} == {"glenda-crock": (0, 3), "blast-radius": (0, 6)}
    for row in list(t3.rows) + [t3.p1_row]:
        idx = [i for i, (c, _) in enumerate(SLOTS9) if c == row.condition]
        item_means = []
        for i in idx:
            comps = [composite(table, r, i) for r in RATERS if composite(table, r, i) is not None]
            item_means.append(sum(comps) / len(comps))
        cell = row.cells[rubric]
        assert cell.estimate.value == pytest.approx(np.mean(item_means))
        assert cell.estimate.n == 1 and not cell.estimate.has_ci  # one case: no CI, and it says why
        assert cell.estimate.ci_undefined_reason.startswith("n too small")
        assert cell.estimate.details["values"] == [cell.estimate.value]  # the values, printed instead
    # rater-b left frame_analysis empty on B1: only rater-a's composite (0) counts.
    assert t3.rows[0].cells["glenda-crock"].estimate.value == 0.0


def test_table2_topology(data):
    t2 = table2(data)
    rows = {r.case_id: r for r in t2.rows}
    assert rows[G].pattern == "Ridge" and rows[G].switching_assumption == "whether regulators act on the dossier"
    assert rows[H].convergent_recommendation == "Issue the bond in two tranches"
    assert all(r.n_runs == 3 for r in t2.rows)
    assert t2.counts == {"Basin": 1, "Ridge": 1, "Plateau": 1, "no topology row": 0}


def dz(a, b):
    d = np.array(a) - np.array(b)
    return d.mean() / d.std(ddof=1)


def pooled_d(a, b):
    sp = np.sqrt(((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1)) / (len(a) + len(b) - 2))
    return (np.mean(a) - np.mean(b)) / sp


def test_table4_seed_comparisons_are_cohens_d_with_d_z_beside(data):
    t4 = table4(data, [parse_comparison("C1:B1:eh")])
    labels = [(r.comparison.a, r.comparison.b, r.metric.key, r.seed) for r in t4.rows]
    assert labels == [("C2", "B1", "anticipation", True), ("C2", "B3", "anticipation", True),
                      ("C3", "C2", "anticipation", True), ("C2", "B1", "epistemic-humility", True),
                      ("C1", "B1", "epistemic-humility", False)]
    for r in t4.rows:
        table = ANT if r.metric.key == "anticipation" else EH
        a = [unit(table, c, r.comparison.a) for c in CASES]
        b = [unit(table, c, r.comparison.b) for c in CASES]
        # the seed's statistic: Cohen's d over the cases as independent groups; d_z over the 3 shared cases beside
        assert r.estimate.value == pytest.approx(pooled_d(a, b))
        assert r.paired.value == pytest.approx(dz(a, b)) and r.n_shared == 3
        # three cases per condition: under the minimum for a bootstrap CI, so no CI and no Cohen's word
        assert not r.estimate.has_ci and r.estimate.ci_undefined_reason.startswith("n too small")
        assert sorted(r.estimate.details["values_x"]) == pytest.approx(sorted(a))
        assert sorted(r.estimate.details["values_y"]) == pytest.approx(sorted(b))
        assert r.interpretation == f"inconclusive (n too small for a CI; n = {r.estimate.n})"


def test_table4_user_duplicate_of_seed_row_is_dropped(data):
    t4 = table4(data, [Comparison("C2", "B1", "ant")])
    assert len(t4.rows) == 4


def test_effect_size_independent_when_cases_are_not_shared(data):
    # Keep C2 on harbor and glenda only, B1 on glenda and blast only: one shared case.
    data.items = {k: v for k, v in data.items.items()
                  if not ((v.condition == "C2" and v.case_id == B) or (v.condition == "B1" and v.case_id == H))}
    r = effect_size(data, Comparison("C2", "B1", "anticipation"))
    assert r.paired is None and r.n_shared == 1  # one shared case: no d_z
    a = [unit(ANT, c, "C2") for c in (H, G)]
    b = [unit(ANT, c, "B1") for c in (G, B)]
    assert r.estimate.value == pytest.approx(pooled_d(a, b))


def test_effect_size_undefined_with_reason(data):
    r = effect_size(data, Comparison("C9", "B1", "anticipation"))
    assert not r.estimate.defined and "C9" in r.estimate.undefined_reason
    r = effect_size(data, Comparison("C2", "B1", "nonsense"))
    assert not r.estimate.defined and "nonsense" in r.estimate.undefined_reason


@pytest.mark.parametrize("text", ["C1-B1-ant", "C1:B1", ":B1:ant", ""])
def test_parse_comparison_rejects(text):
    with pytest.raises(ValueError, match="A:B:METRIC"):
        parse_comparison(text)


@pytest.mark.parametrize("d,label", [(0.0, "negligible"), (-0.19, "negligible"), (0.2, "small"),
                                     (-0.49, "small"), (0.5, "medium"), (0.79, "medium"), (-0.8, "large"),
                                     (None, "undefined")])
def test_interpretation_labels(d, label):
    assert interpret_d(d) == label


def test_an_effect_whose_ci_spans_zero_is_inconclusive_not_large():
    """The issue's case: d_z 2.12 from two cases with a CI of [-0.65, 5.01] was called "large"."""
    from workbench.metrics.estimate import Estimate
    from workbench.protocols.hindsight.metrics.tables import interpret_effect

    assert interpret_effect(Estimate(2.12, ci_low=-0.65, ci_high=5.01, n=2)) == "inconclusive (CI spans 0; n = 2)"
    assert interpret_effect(Estimate(2.12, ci_low=0.4, ci_high=5.01, n=6)) == "large"
    assert interpret_effect(Estimate(-0.6, ci_low=-1.1, ci_high=-0.1, n=9)) == "medium"
    assert interpret_effect(Estimate(0.9, n=2)) == "inconclusive (no CI; n = 2)"
