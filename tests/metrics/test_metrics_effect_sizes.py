"""Cohen's d / d_z and Mann-Whitney U against hand formulas, MBESS output,
noncentral-t quantiles and exact permutation enumeration."""

import itertools
import math
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import cohens_d, cohens_d_paired, mann_whitney_u


def _with_moments(mean, sd, n, seed):
    z = np.random.default_rng(seed).normal(size=n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean + sd * z


def test_cohens_d_matches_mbess_smd():
    # MBESS: smd(Mean.1=3.2, s.1=.8, Mean.2=2.45, s.2=.91, n.1=10, n.2=10) = 0.8753837
    x, y = _with_moments(3.2, 0.8, 10, 1), _with_moments(2.45, 0.91, 10, 2)
    e = cohens_d(x, y)
    assert e.value == pytest.approx(0.8753837, abs=1e-7)
    assert e.n == 20 and e.details["df"] == 18
    assert e.details["hedges_g"] == pytest.approx(0.8753837 * (1 - 3 / (4 * 18 - 1)), abs=1e-7)


@pytest.mark.parametrize("t, n1, n2, lower, smd, upper", [
    # Published MBESS output: ci.smd(ncp=2.509, n.1=182, n.2=145) and ci.smd(ncp=1.747, ...)
    (2.509, 182, 145, 0.05985009, 0.2792897, 0.4983036),
    (1.747, 168, 159, -0.02421889, 0.1932919, 0.4105067),
])
def test_cohens_d_noncentral_ci_matches_mbess_ci_smd(t, n1, n2, lower, smd, upper):
    d = t * math.sqrt(1 / n1 + 1 / n2)
    e = cohens_d(_with_moments(d, 1.0, n1, 3), _with_moments(0.0, 1.0, n2, 4))
    assert e.value == pytest.approx(smd, abs=5e-8)
    assert e.ci_low == pytest.approx(lower, abs=5e-8)
    assert e.ci_high == pytest.approx(upper, abs=5e-8)
    assert "noncentral t" in e.method


def test_noncentral_t_limits_put_t_obs_on_the_tail_quantiles():
    # An independent route: the ppf of the noncentral t at each limit must return t_obs.
    x = [3.1, 2.4, 3.9, 2.8, 3.3, 3.0, 2.2, 3.6]
    y = [2.0, 2.9, 1.8, 2.5, 2.2, 1.6, 2.7]
    e = cohens_d(x, y)
    n1, n2 = len(x), len(y)
    scale = math.sqrt(n1 * n2 / (n1 + n2))
    t_obs = stats.ttest_ind(x, y).statistic  # pooled-variance t, computed by scipy
    assert e.value * scale == pytest.approx(t_obs, rel=1e-10)
    df = n1 + n2 - 2
    assert stats.nct.ppf(0.975, df, e.ci_low * scale) == pytest.approx(t_obs, abs=1e-6)
    assert stats.nct.ppf(0.025, df, e.ci_high * scale) == pytest.approx(t_obs, abs=1e-6)


def test_cohens_d_normal_ci_is_hedges_olkin():
    x, y = [5, 6, 7, 8, 9, 7], [4, 5, 5, 6, 4, 5, 6]
    e = cohens_d(x, y, ci_method="normal")
    n1, n2 = len(x), len(y)
    sp = math.sqrt(((n1 - 1) * np.var(x, ddof=1) + (n2 - 1) * np.var(y, ddof=1)) / (n1 + n2 - 2))
    d = (np.mean(x) - np.mean(y)) / sp
    se = math.sqrt((n1 + n2) / (n1 * n2) + d * d / (2 * (n1 + n2)))
    assert e.value == pytest.approx(d)
    assert (e.ci_low, e.ci_high) == pytest.approx((d - 1.959963985 * se, d + 1.959963985 * se))


def test_paired_dz_and_its_ci():
    before = [2, 1, 2, 3, 1, 2, 0, 1, 2, 1]
    after = [3, 2, 2, 3, 2, 3, 1, 2, 3, None]      # last pair incomplete
    e = cohens_d_paired(after, before)
    diffs = np.array(after[:9]) - np.array(before[:9])
    dz = diffs.mean() / diffs.std(ddof=1)
    assert e.value == pytest.approx(dz) and e.n == 9 and e.details["n_dropped"] == 1
    t_obs = stats.ttest_rel(after[:9], before[:9]).statistic
    assert e.value * 3 == pytest.approx(t_obs)
    assert stats.nct.ppf(0.975, 8, e.ci_low * 3) == pytest.approx(t_obs, abs=1e-6)
    assert stats.nct.ppf(0.025, 8, e.ci_high * 3) == pytest.approx(t_obs, abs=1e-6)
    normal = cohens_d_paired(after, before, ci_method="normal")
    se = math.sqrt(1 / 9 + dz * dz / 18)
    assert normal.ci_low == pytest.approx(dz - 1.959963985 * se)


def test_effect_size_degenerate_inputs_are_undefined():
    assert "at least 2" in cohens_d([1], [1, 2, 3]).undefined_reason
    assert "pooled standard deviation is 0" in cohens_d([2, 2], [3, 3]).undefined_reason
    assert not cohens_d_paired([1, 2, 3], [0, 1, 2]).defined         # constant differences
    assert not cohens_d_paired([1, None], [2, 3]).defined            # one complete pair
    with pytest.raises(ValueError):
        cohens_d([1, 2], [3, 4], ci_method="bogus")


def _u_by_counting(x, y):
    return sum((a > b) + 0.5 * (a == b) for a in x for b in y)


def test_mann_whitney_exact_p_matches_full_permutation_enumeration():
    x, y = [1.2, 3.4, 5.6, 7.1], [2.2, 4.8, 8.3, 9.0, 9.5]
    e = mann_whitney_u(x, y)
    u = _u_by_counting(x, y)
    assert e.details["U"] == u and e.details["p_method"] == "exact"
    assert e.value == pytest.approx(2 * u / 20 - 1)
    pooled, mu = x + y, len(x) * len(y) / 2
    us = [_u_by_counting([pooled[i] for i in c], [pooled[i] for i in range(9) if i not in c])
          for c in itertools.combinations(range(9), 4)]
    p = np.mean([abs(v - mu) >= abs(u - mu) for v in us])
    assert e.details["p_value"] == pytest.approx(p)


def test_mann_whitney_with_ties_uses_tie_corrected_normal_approximation():
    x = [3, 3, 2, 3, 1, 2, 3, 2, 3, 3]
    y = [1, 2, 1, 0, 2, 1, 1, 3, 0, 1, 2]
    e = mann_whitney_u(x, y)
    n1, n2 = len(x), len(y)
    n = n1 + n2
    u = _u_by_counting(x, y)
    _, counts = np.unique(x + y, return_counts=True)
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - (counts ** 3 - counts).sum() / (n * (n - 1))))
    z = (abs(u - n1 * n2 / 2) - 0.5) / sigma
    assert e.details["p_method"] == "asymptotic"
    assert e.details["U"] == u
    assert e.details["p_value"] == pytest.approx(2 * (1 - NormalDist().cdf(z)), rel=1e-9)
    assert e.value == pytest.approx(2 * u / (n1 * n2) - 1)
    assert e.details["common_language"] == pytest.approx(u / (n1 * n2))


def test_mann_whitney_degenerate_inputs():
    assert not mann_whitney_u([], [1, 2]).defined
    same = mann_whitney_u([2, 2, 2], [2, 2])
    assert not same.defined and "identical" in same.undefined_reason


# --- Table 4's statistic (issue 30): Cohen's d with a BCa bootstrap CI (issue 42), d_z beside ---------------------

TABLE4_A = np.array([2.0, 3.0, 2.5, 1.0, 3.0, 2.0, 2.5])
TABLE4_B = np.array([1.0, 2.0, 0.5, 1.5, 1.0, 2.0, 0.0])


def _hand_d(x, y):
    """Cohen's d, pooled SD (ddof 1), written out here: the reference the core is checked against."""
    nx, ny = x.shape[-1], y.shape[-1]
    sp = np.sqrt(((nx - 1) * x.var(axis=-1, ddof=1) + (ny - 1) * y.var(axis=-1, ddof=1)) / (nx + ny - 2))
    with np.errstate(all="ignore"):
        return (x.mean(axis=-1) - y.mean(axis=-1)) / sp


def _hand_percentile(dist, confidence=0.95):
    dist = dist[~np.isnan(dist)]
    tail = (1 - confidence) / 2
    return tuple(np.quantile(dist, [tail, 1 - tail], method="inverted_cdf"))


def test_table4_d_and_its_bootstrap_ci_against_scipys_bca():
    """Issue 42: the d interval is BCa (a percentile interval of d at small n is skewed away from d). The
    reference is SciPy's own BCa over the hand-written d, each sample resampled on its own."""
    e = cohens_d(TABLE4_A, TABLE4_B, ci_method="bootstrap", seed=3)
    assert e.value == pytest.approx(float(_hand_d(TABLE4_A, TABLE4_B)))
    ref = stats.bootstrap((TABLE4_A, TABLE4_B), lambda x, y, axis: _hand_d(x, y), vectorized=True,
                          n_resamples=9999, method="BCa", rng=np.random.default_rng(3)).confidence_interval
    assert (e.ci_low, e.ci_high) == pytest.approx((ref.low, ref.high))
    assert e.ci_low < e.value < e.ci_high and "bootstrap BCa" in e.method
    # the percentile interval of the same resamples, which the core used to print, lies further right
    rng = np.random.default_rng(3)
    pct = _hand_percentile(_hand_d(TABLE4_A[rng.integers(0, 7, (9999, 7))], TABLE4_B[rng.integers(0, 7, (9999, 7))]))
    assert (e.ci_low, e.ci_high) != pytest.approx(pct)


def test_table4_d_z_and_its_paired_bootstrap_ci_against_scipys_bca():
    e = cohens_d_paired(TABLE4_A, TABLE4_B, ci_method="bootstrap", seed=4)
    diffs = TABLE4_A - TABLE4_B
    assert e.value == pytest.approx(diffs.mean() / diffs.std(ddof=1))
    assert e.value == pytest.approx(stats.ttest_rel(TABLE4_A, TABLE4_B).statistic / math.sqrt(7))  # SciPy's t / sqrt(n)

    def dz(x, y, axis=-1):
        d = x - y
        return d.mean(axis=axis) / d.std(axis=axis, ddof=1)

    ref = stats.bootstrap((TABLE4_A, TABLE4_B), dz, paired=True, vectorized=True, n_resamples=9999, method="BCa",
                          rng=np.random.default_rng(4)).confidence_interval
    assert (e.ci_low, e.ci_high) == pytest.approx((ref.low, ref.high)) and "cases resampled together" in e.method


def test_table4_d_is_not_d_z_on_paired_data():
    """The seed's column is Cohen's d; on correlated pairs d_z differs from it (the old Table 4 printed d_z)."""
    d = cohens_d(TABLE4_A, TABLE4_B).value
    dz = cohens_d_paired(TABLE4_A, TABLE4_B).value
    assert abs(d - dz) > 0.1


def test_table4_bootstrap_needs_the_minimum_of_units_per_condition():
    e = cohens_d([3.0, 2.0, 2.5, 1.0], [1.0, 0.0, 1.5, 0.5, 1.0], ci_method="bootstrap")
    assert e.defined and not e.has_ci and e.ci_undefined_reason.startswith("n too small")
    assert e.details["values_x"] == [3.0, 2.0, 2.5, 1.0]
    dz = cohens_d_paired([3.0, 2.0, 2.5, 1.0], [1.0, 0.0, 1.5, 0.5], ci_method="bootstrap")
    assert not dz.has_ci and dz.ci_undefined_reason.startswith("n too small")


def test_table4_bootstrap_without_variance_says_unbounded_rather_than_a_number():
    # every difference equals 1 but one: most resamples have sd 0 and d_z at +inf
    e = cohens_d_paired([2.0, 2, 2, 2, 2, 3], [1.0, 1, 1, 1, 1, 1], ci_method="bootstrap")
    assert e.defined and not e.has_ci and "unbounded" in e.ci_undefined_reason
