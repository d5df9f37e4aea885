"""Pearson and Spearman against R's cor.test output (RExRepos, correlation.md)
and SciPy routes."""

import math

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import pearson_r, spearman_rho

DV1 = [97, 76, 56, 99, 50, 62, 36, 69, 55, 17]
DV2 = [42, 74, 22, 99, 73, 44, 10, 68, 19, -34]


def test_pearson_matches_r_cor_test():
    # R: cor.test(DV1, DV2) -> cor 0.7777, 95% CI 0.2902 0.9447, p-value = 0.008084
    e = pearson_r(DV1, DV2)
    assert e.value == pytest.approx(0.7777, abs=5e-5)
    assert e.ci_low == pytest.approx(0.2902, abs=5e-5)
    assert e.ci_high == pytest.approx(0.9447, abs=5e-5)
    assert e.details["p_value"] == pytest.approx(0.008084, abs=5e-7)


def test_pearson_matches_scipy_exactly():
    x = np.random.default_rng(1).normal(size=25)
    y = x + np.random.default_rng(2).normal(size=25)
    ref = stats.pearsonr(x, y)
    ci = ref.confidence_interval(0.9)
    e = pearson_r(x, y, confidence=0.9)
    assert e.value == pytest.approx(ref.statistic, abs=1e-12)
    assert (e.ci_low, e.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert e.details["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)


def test_spearman_matches_r_and_bonett_wright_ci():
    # R: cor(DV1, DV2, method="spearman") = 0.7333
    e = spearman_rho(DV1, DV2)
    ref = stats.spearmanr(DV1, DV2)
    assert e.value == pytest.approx(0.7333, abs=5e-5)
    assert e.value == pytest.approx(ref.statistic, abs=1e-12)
    assert e.details["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    half = 1.959963985 * math.sqrt((1 + e.value ** 2 / 2) / (10 - 3))
    z = math.atanh(e.value)
    assert (e.ci_low, e.ci_high) == pytest.approx((math.tanh(z - half), math.tanh(z + half)))


def test_spearman_handles_ties_with_average_ranks():
    x, y = [1, 2, 2, 3, 3, 3, 4], [2, 1, 3, 3, 2, 4, 4]
    assert spearman_rho(x, y).value == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_pairwise_deletion():
    e = pearson_r(DV1 + [None, 5], DV2 + [3, float("nan")])
    assert e.n == 10 and e.details["n_dropped"] == 2
    assert e.value == pytest.approx(pearson_r(DV1, DV2).value)


def test_degenerate_correlations():
    assert "fewer than 3" in pearson_r([1, 2], [2, 1]).undefined_reason
    assert "no variance" in spearman_rho([1, 1, 1, 1], [1, 2, 3, 4]).undefined_reason
    three = pearson_r([1, 2, 3], [1, 3, 2])
    assert three.defined and not three.has_ci and "n < 4" in three.ci_undefined_reason
    perfect = pearson_r([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert perfect.value == 1.0 and not perfect.has_ci
