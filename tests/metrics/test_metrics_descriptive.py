"""Mean and mean difference with seeded bootstrap CIs, checked against
hand-written bootstrap routes that share only the random stream."""

from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import mean_ci, mean_difference_ci

SCORES = np.array([2.0, 3, 3, 1, 0, 2, 3, 2, 1, 3, 2, 2, 0, 1, 3])


def _resampled_means(x, seed, b=9999):
    # scipy.stats.bootstrap draws rng.integers(0, n, (B, n)) for one sample.
    rng = np.random.default_rng(seed)
    return x[rng.integers(0, len(x), (b, len(x)))].mean(axis=1)


def test_percentile_ci_equals_hand_bootstrap():
    e = mean_ci(SCORES, method="percentile", seed=7)
    lo, hi = np.percentile(_resampled_means(SCORES, 7), [2.5, 97.5])
    assert e.value == pytest.approx(SCORES.mean())
    assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert e.method == "mean; bootstrap percentile CI"


def test_bca_ci_equals_hand_bca():
    # Efron's BCa by hand: bias from the share of resamples below the estimate,
    # acceleration from the jackknife.
    e = mean_ci(SCORES, seed=11)
    boot, theta, nd = _resampled_means(SCORES, 11), SCORES.mean(), NormalDist()
    z0 = nd.inv_cdf(((boot < theta).sum() + (boot <= theta).sum()) / 2 / len(boot))
    jack = np.array([np.delete(SCORES, i).mean() for i in range(len(SCORES))])
    d = jack.mean() - jack
    a = (d ** 3).sum() / (6 * ((d ** 2).sum()) ** 1.5)
    qs = [nd.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
          for z in (nd.inv_cdf(0.025), nd.inv_cdf(0.975))]
    lo, hi = np.percentile(boot, [100 * q for q in qs])
    assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert "BCa" in e.method and e.confidence == 0.95


def test_large_normal_sample_ci_matches_t_interval():
    x = np.random.default_rng(3).normal(10, 2, 400)
    e = mean_ci(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert e.ci_low == pytest.approx(lo, abs=0.03) and e.ci_high == pytest.approx(hi, abs=0.03)


def test_same_seed_same_interval_and_seed_matters():
    x = np.random.default_rng(0).normal(size=30)  # continuous, so resamples rarely tie
    a, b, c = mean_ci(x, seed=1), mean_ci(x, seed=1), mean_ci(x, seed=2)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)


def test_missing_values_are_dropped_and_counted():
    e = mean_ci([1, None, 3, float("nan"), 2])
    assert e.value == 2.0 and e.n == 3 and e.details["n_missing"] == 2


def test_degenerate_means():
    empty = mean_ci([None, float("nan")])
    assert not empty.defined and "no non-missing" in empty.undefined_reason
    one = mean_ci([2.5])
    assert one.value == 2.5 and not one.has_ci and one.ci_undefined_reason.startswith("n too small")
    flat = mean_ci([2, 2, 2, 2, 2])
    assert flat.value == 2 and not flat.has_ci and "zero variance" in flat.ci_undefined_reason


def test_no_bootstrap_ci_under_the_minimum_of_units_one_rule():
    """Two cases' "95% CI" was their range (issue 30): under MIN_BOOTSTRAP_UNITS there is none, and the values
    are kept for printing; from the minimum on, the bootstrap runs."""
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS
    from workbench.metrics.render import fmt_ci, fmt_est

    assert MIN_BOOTSTRAP_UNITS == 5
    two = mean_ci([1.0, 2.0])
    assert not two.has_ci and two.details["values"] == [1.0, 2.0]
    assert fmt_est(two) == "1.50 (n too small: 1.00, 2.00)" and fmt_ci(two) == "n too small: 1.00, 2.00"
    four = mean_ci([1, 2, 3, 4])
    assert not four.has_ci and four.ci_undefined_reason.startswith("n too small")
    five = mean_ci([1, 2, 3, 4, 6])
    assert five.has_ci and five.ci_low < five.value < five.ci_high
    diff = mean_difference_ci([1, 2, 3, 4, 5, 6], [1, 2, 3, 4])  # the rule holds per sample
    assert not diff.has_ci and fmt_ci(diff) == "n too small: 1.00, 2.00, 3.00, 4.00, 5.00, 6.00 vs 1.00, 2.00, 3.00, 4.00"


def test_mean_difference_percentile_matches_hand_two_sample_bootstrap():
    x = np.array([3.0, 2, 3, 3, 1, 2, 3])
    y = np.array([1.0, 2, 0, 1, 1, 2, 0, 1])
    e = mean_difference_ci(x, y, method="percentile", seed=5)
    rng = np.random.default_rng(5)
    bx = x[rng.integers(0, len(x), (9999, len(x)))].mean(axis=1)
    by = y[rng.integers(0, len(y), (9999, len(y)))].mean(axis=1)
    lo, hi = np.percentile(bx - by, [2.5, 97.5])
    assert e.value == pytest.approx(x.mean() - y.mean())
    assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert e.n == 15


def test_mean_difference_degenerate():
    assert not mean_difference_ci([], [1, 2]).defined
    e = mean_difference_ci([1], [1, 2, 3])
    assert e.value == -1 and not e.has_ci
    e = mean_difference_ci([2] * 5, [1] * 5)
    assert e.value == 1 and not e.has_ci and "constant" in e.ci_undefined_reason
