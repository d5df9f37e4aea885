"""Planted vs recovered intervals resample the independent unit, cases, and never below the minimum (issue 42
item 5: two cases gave "effects.B3 −0.609 [−4.252, 3.034]")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS
from workbench.protocols.hindsight.planted import read_back


def _probit_effect(a, b, axis=-1):
    """√2·(Φ⁻¹(mean a) − Φ⁻¹(mean b)), written out here as the reference."""
    return math.sqrt(2) * (stats.norm.ppf(np.mean(a, axis=axis)) - stats.norm.ppf(np.mean(b, axis=axis)))


def test_two_cases_give_the_effect_without_an_interval():
    value, lo, hi, note = read_back({"c1": 0.7, "c2": 0.5}, {"c1": 0.4, "c2": 0.6})
    assert value == pytest.approx(_probit_effect([0.7, 0.5], [0.4, 0.6]))
    assert (lo, hi) == (None, None)
    assert note.startswith("n too small") and f"minimum is {MIN_BOOTSTRAP_UNITS}" in note and "(cases)" in note


def test_enough_cases_give_scipys_paired_bca_interval_over_cases():
    a = {f"c{i}": v for i, v in enumerate([0.72, 0.55, 0.81, 0.64, 0.7, 0.59])}
    b = {f"c{i}": v for i, v in enumerate([0.41, 0.5, 0.62, 0.38, 0.47, 0.52])}
    value, lo, hi, note = read_back(a, b)
    x, y = np.array(list(a.values())), np.array(list(b.values()))
    ref = stats.bootstrap((x, y), _probit_effect, paired=True, vectorized=True, n_resamples=2000, method="BCa",
                          rng=np.random.default_rng(0)).confidence_interval
    assert value == pytest.approx(_probit_effect(x, y)) and note == ""
    assert (lo, hi) == pytest.approx((ref.low, ref.high))


def test_a_judge_only_sim_studys_banner_names_no_simulated_raters():
    """Issue 42 item 11: the judge-only report's banner spoke of simulated raters it does not have."""
    from workbench.simulation.marks import mark_json, mark_text, title_mark

    judged = {"model": {"name": "sim"}, "judges": [{"name": "j", "model": "sim"}], "raters": []}
    rated = {**judged, "raters": ["rater-a"]}
    for text in (title_mark(judged, frozen=False), mark_text("x", judged), mark_json({}, judged)["simulated_banner"]):
        assert "simulated raters" not in text and "has no raters" in text and "judges simulated" in text
    assert "simulated raters" in title_mark(rated, frozen=False)
