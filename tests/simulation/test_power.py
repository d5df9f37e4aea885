"""Power analysis and planted-effect recovery on the statistics core (issue 16)."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from workbench.simulation.power import (
    Design,
    power,
    power_independent,
    recovery,
    study_power,
)


def test_textbook_two_sample_power():
    """Cohen (1988): two-sided t, alpha .05, d = 0.5, n = 64 per group -> power 0.80."""
    sims = 4000
    got = power_independent(64, 0.5, sims=sims, seed=3)
    # the exact value by the noncentral t, computed independently of the simulation
    df, ncp = 126, 0.5 * math.sqrt(64 / 2)
    crit = stats.t.ppf(0.975, df)
    exact = stats.nct.sf(crit, df, ncp)
    assert exact == pytest.approx(0.80, abs=0.005)
    se = math.sqrt(exact * (1 - exact) / sims)
    assert abs(got - exact) < 4 * se


def test_power_is_on_table_4s_cohens_d_and_matches_the_noncentral_t():
    """Issue 30: the power analysis is on the statistic Table 4 prints, Cohen's d over cases as independent
    groups. With no case correlation the two conditions' case scores are independent samples, so the power
    is the textbook two-sample one at the implied d (noncentral t, computed here)."""
    design = Design(cases=20, replicates=1, raters=2, icc=0.7, case_correlation=0.0)
    # the d Table 4 estimates, by hand: 1 / sqrt(0 + 1/1 + 0.3/(0.7*2))
    assert design.implied_d(1.0) == pytest.approx(1 / math.sqrt(1 + 0.3 / 1.4))
    assert design.implied_dz(1.0) == pytest.approx(1 / math.sqrt(2 + 0.6 / 1.4))
    sims = 3000
    got = power(design, 1.0, sims=sims, seed=5)
    df, ncp = 38, design.implied_d(1.0) * math.sqrt(20 / 2)
    crit = stats.t.ppf(0.975, df)
    exact = stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp)
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / sims)
    # more raters and replicates can only help
    assert power(Design(20, 3, 3, 0.7, 0.5), 0.5, 2000, 1) > power(Design(20, 1, 1, 0.7, 0.5), 0.5, 2000, 1)


def test_no_power_under_the_minimum_of_units_for_a_ci():
    """Table 4 prints no CI under MIN_BOOTSTRAP_UNITS cases, so it can detect nothing there."""
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    assert power(Design(MIN_BOOTSTRAP_UNITS - 1), 3.0, 500, 1) == 0.0
    assert power(Design(MIN_BOOTSTRAP_UNITS), 3.0, 500, 1) > 0.5


def test_planted_effect_is_recovered_and_no_effect_is_found_where_none_is_planted():
    """Smoke version of benchmarks/sim_recovery.py: C2 - B1, d = 1.0, 20 cases, two raters at ICC 0.7, through
    the core's Cohen's d with its bootstrap CI."""
    design = Design(cases=20, raters=2, icc=0.7)
    planted = recovery(design, 1.0, sims=120, seed=11, n_resamples=999)
    assert abs(planted.mean_estimate - planted.implied_d) < 0.2
    assert 0.85 <= planted.coverage <= 1.0
    assert planted.detected > 0.75
    assert planted.agrees_with_t > 0.85  # the power table's t test decides as the bootstrap CI does
    null = recovery(design, 0.0, sims=120, seed=12, n_resamples=999)
    assert abs(null.mean_estimate) < 0.1
    assert null.detected < 0.08
    assert 0.85 <= null.coverage <= 1.0


def test_a_judge_only_study_is_powered_on_its_judge():
    """The power analysis is computed from the primary evaluator: one judge at the planted judge_icc."""
    definition = {"protocol": "hindsight", "cases": [f"c{i}" for i in range(10)], "conditions": ["B1", "C2"],
                  "replicates": 1, "raters": [], "judges": [{"name": "j"}], "model": {"name": "sim"},
                  "simulation": {"effects": {"C2": 0.8}, "rater_icc": 0.7, "judge_icc": 0.4}}
    doc = study_power(definition, {}, sims=200, comparisons=["C2:B1:anticipation"])
    assert (doc["design"]["raters"], doc["design"]["icc"]) == (1, 0.4)
    assert "LLM judge j" in doc["evaluator"]


def test_study_power_uses_planted_effects_and_the_study_design():
    definition = {"protocol": "hindsight", "cases": [f"c{i}" for i in range(10)], "conditions": ["B1", "C2"],
                  "replicates": 1, "raters": ["a", "b"], "model": {"name": "sim"},
                  "simulation": {"effects": {"C2": 0.8}, "rater_icc": 0.7, "case_correlation": 0.5}}
    doc = study_power(definition, {}, sims=500, comparisons=["C2:B1:anticipation"])
    row = doc["comparisons"][0]
    assert row["d"] == pytest.approx(0.8) and row["source"] == "[simulation]"
    assert doc["design"]["cases"] == 10
    curve = row["power_by_cases"]
    assert curve[80] > curve[5]
    override = study_power(definition, {"C2:B1:anticipation": 0.0}, sims=500, comparisons=["C2:B1:anticipation"])
    assert override["comparisons"][0]["power"] < 0.1
