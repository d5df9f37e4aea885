"""Reliability bins, ECE/MCE/Brier against a hand computation; the k sweep
against an independent scipy.special.expit route; the judge panel against the
krippendorff package, scipy's spearmanr and hand-computed disagreement."""

import json

import krippendorff
import numpy as np
import pytest
from scipy import special, stats

from workbench.metrics import (
    brier_score,
    calibration,
    icc,
    judge_panel_agreement,
    reliability_bins,
    sigmoid_k_sweep,
)

P = [0.1, 0.2, 0.3, 0.35, 0.8, 1.0]
Y = [0, 1, 0, 1, 1, 1]


def test_bins_ece_mce_brier_by_hand():
    # 5 bins [0,.2) [.2,.4) [.4,.6) [.6,.8) [.8,1]:
    #   bin 0: {.1} y 0          conf .1         obs 0    gap .1
    #   bin 1: {.2,.3,.35} y 1,0,1  conf .85/3   obs 2/3  gap 1.15/3
    #   bin 4: {.8, 1.0} y 1,1   conf .9         obs 1    gap .1
    rep = calibration(P, Y, n_bins=5)
    counts = [b.count for b in rep.bins]
    assert counts == [1, 3, 0, 0, 2]
    assert rep.bins[1].mean_predicted == pytest.approx(0.85 / 3)
    assert rep.bins[1].observed_frequency == pytest.approx(2 / 3)
    assert rep.bins[2].mean_predicted is None and rep.bins[2].gap is None
    assert rep.ece.value == pytest.approx((1 * 0.1 + 3 * (1.15 / 3) + 2 * 0.1) / 6)
    assert rep.mce.value == pytest.approx(1.15 / 3)
    brier = (0.1 ** 2 + 0.8 ** 2 + 0.3 ** 2 + 0.65 ** 2 + 0.2 ** 2 + 0.0) / 6
    assert rep.brier.value == pytest.approx(brier)
    assert brier_score(P, Y).value == pytest.approx(brier)
    json.dumps(rep.to_dict())


def test_seed_style_plus_minus_one_outcomes_and_missing_pairs():
    rep = calibration(P + [None, 0.5], [-1, 1, -1, 1, 1, 1, 1, None], n_bins=5)
    assert rep.n == 6 and rep.n_dropped == 2
    assert rep.ece.value == pytest.approx(calibration(P, Y, n_bins=5).ece.value)


def test_bin_edges_are_exact():
    bins = reliability_bins([0.0, 0.3, 0.7, 1.0], [0, 1, 0, 1], n_bins=10)
    assert [b.count for b in bins] == [1, 0, 0, 1, 0, 0, 0, 1, 0, 1]


def test_calibration_input_errors_and_empty_input():
    with pytest.raises(ValueError):
        calibration([0.5], [2])
    with pytest.raises(ValueError):
        calibration([1.5], [1])
    empty = calibration([None], [1])
    assert not empty.ece.defined and not empty.brier.defined and empty.n == 0


def test_k_sweep_matches_independent_expit_route_and_finds_the_true_k():
    rng = np.random.default_rng(0)
    v = rng.normal(0, 1.5, 20000)
    y = (rng.random(20000) < special.expit(2.0 * v)).astype(int)
    grid = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0]
    sweep = sigmoid_k_sweep(v.tolist(), y.tolist(), grid)
    for k, rep in sweep.points:
        p = special.expit(k * v)
        idx = np.minimum((p * 10).astype(int), 9)
        ece = sum(abs(y[idx == b].mean() - p[idx == b].mean()) * (idx == b).sum()
                  for b in range(10) if (idx == b).any()) / len(p)
        assert rep.ece.value == pytest.approx(ece, abs=1e-9)
    assert sweep.best_k == 2.0 and not sweep.at_grid_edge
    assert sweep.best_ece.value == min(r.ece.value for _, r in sweep.points)
    edge = sigmoid_k_sweep(v.tolist(), y.tolist(), [0.25, 0.5])
    assert edge.best_k == 0.5 and edge.at_grid_edge and "outside" in edge.note
    json.dumps(sweep.to_dict())


def _panel(noise, seed, n=200, judges=("claude", "gpt4o_mini", "llama")):
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    return {j: np.clip(truth + rng.normal(0, noise, n), 0, 1).tolist() for j in judges}


def test_panel_statistics_match_reference_routes():
    scores = _panel(0.1, 1)
    scores["llama"][3] = None                       # a judge_error
    res = judge_panel_agreement(scores)
    m = np.array([[np.nan if v is None else v for v in scores[j]] for j in scores])
    assert res.alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="interval"), abs=1e-12)
    ref = stats.spearmanr(scores["claude"], scores["gpt4o_mini"]).statistic
    assert res.pairwise_spearman["claude vs gpt4o_mini"].value == pytest.approx(ref, abs=1e-12)
    assert res.pairwise_spearman["claude vs llama"].n == 199
    assert res.icc_2_1.value == pytest.approx(icc(m.T.tolist())["ICC(2,1)"].value)
    assert res.icc_2_1.n == 199
    assert res.n_items == 200 and res.notes == ()
    json.dumps(res.to_dict())


def test_decision_rule_bands_state_the_seed_rule():
    strong = judge_panel_agreement(_panel(0.05, 2))
    assert strong.alpha.value >= 0.7 and strong.verdict == "strong"
    assert "strong result" in strong.decision

    noisy = judge_panel_agreement({j: np.random.default_rng(i).random(100).tolist()
                                   for i, j in enumerate("abc")})
    assert noisy.alpha.value < 0.5 and noisy.verdict == "too_noisy"
    assert ("too noisy to anchor -- escalate (add a 4th judge, switch to a stronger model, "
            "or fall back to human spot-checks on a smaller subsample)") in noisy.decision

    middle = judge_panel_agreement(_panel(0.22, 3))
    assert 0.5 <= middle.alpha.value < 0.7 and middle.verdict == "usable_with_caution"
    assert "names no outcome for this band" in middle.decision

    stricter = judge_panel_agreement(_panel(0.22, 3), alpha_threshold=0.65)
    assert stricter.verdict == "too_noisy" and "differs from the seed" in stricter.notes[0]


def test_disagreement_by_bin_by_hand():
    scores = {"a": [0.1, 0.9, 0.5, None], "b": [0.3, 0.7, 0.5, 0.2], "c": [0.2, 0.8, None, 0.4]}
    res = judge_panel_agreement(scores, n_bins=2)
    low, high = res.disagreement_by_bin
    # low bin: item 0 (.1 .3 .2: |d| mean .4/3, sd .1), item 3 (.2 .4: |d| .2, sd sqrt(.02))
    assert low.count == 2
    assert low.mean_abs_pairwise_difference == pytest.approx((0.4 / 3 + 0.2) / 2)
    assert low.mean_sd == pytest.approx((0.1 + 0.02 ** 0.5) / 2)
    # high bin: item 1 (.9 .7 .8: |d| mean .4/3, sd .1), item 2 (.5 .5: 0, 0)
    assert high.count == 2
    assert high.mean_abs_pairwise_difference == pytest.approx((0.4 / 3) / 2)
    assert high.mean_sd == pytest.approx(0.05)
    assert not res.pairwise_spearman["a vs c"].defined      # only two shared items


def test_small_panels():
    two = judge_panel_agreement(_panel(0.05, 4, judges=("x", "y")))
    assert two.alpha.defined and "at least 3 judges" in two.notes[0]
    one = judge_panel_agreement({"solo": [0.1, 0.2]})
    assert one.verdict == "undefined" and not one.alpha.defined
    assert "cannot be applied" in one.decision
    with pytest.raises(ValueError):
        judge_panel_agreement(_panel(0.05, 4), alpha_threshold=0.8)


def test_brier_and_bin_means_do_not_depend_on_the_order_of_the_pairs():
    """Items reach the calibration ordered by their blind ids, random per store: np.mean's result moved
    in the last digit with the order (0.19162698412698415 vs ...417 for these pairs), so one study gave
    two Brier scores in two stores. An exact sum gives one mean in any order."""
    import random
    from fractions import Fraction

    p = [0.3333333333333333, 0.1, 0.7, 0.6666666666666666, 0.2, 0.9, 0.45]
    y = [1, 0, 1, 0, 0, 1, 1]
    exact = float(sum((Fraction(a) - b) ** 2 for a, b in zip(p, y)) / len(p))
    seen = set()
    for seed in range(50):
        order = list(range(len(p)))
        random.Random(seed).shuffle(order)
        report = calibration([p[i] for i in order], [y[i] for i in order], n_bins=2)
        seen.add((report.brier.value, tuple(b.mean_predicted for b in report.bins)))
    assert len(seen) == 1
    assert next(iter(seen))[0] == pytest.approx(exact, rel=1e-15)
