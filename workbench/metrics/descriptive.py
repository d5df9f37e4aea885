"""Means and mean differences with seeded bootstrap confidence intervals."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .estimate import Estimate, clean_numeric

DEFAULT_RESAMPLES = 9999
DEFAULT_SEED = 0


def _bootstrap_ci(
    data: tuple[np.ndarray, ...],
    statistic: Any,
    *,
    confidence: float,
    n_resamples: int,
    seed: int,
    method: str,
) -> tuple[float | None, float | None, str]:
    """Run scipy's bootstrap; fall back from BCa to percentile if BCa is not finite.

    BCa needs a jackknife acceleration that is undefined for some small or
    lumpy samples (scipy then warns and returns NaN); the percentile interval
    is still meaningful there, so we use it and say so in ``method``.
    """
    from scipy import stats

    methods = [method] if method.lower() == "percentile" else [method, "percentile"]
    for m in methods:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                data,
                statistic,
                n_resamples=n_resamples,
                confidence_level=confidence,
                method=m,
                vectorized=True,
                rng=np.random.default_rng(seed),
            )
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(lo) and np.isfinite(hi):
            label = f"bootstrap {m}" if m == method else "bootstrap percentile (BCa not finite)"
            return lo, hi, label
    return None, None, "bootstrap failed"


def mean_ci(
    values: Sequence[Any],
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    method: str = "BCa",
) -> Estimate:
    """Arithmetic mean with a seeded bootstrap confidence interval.

    Definition: value = sum(x) / n over the non-missing values. CI: SciPy
    ``stats.bootstrap`` with ``n_resamples`` resamples from
    ``numpy.random.default_rng(seed)``, BCa by default (bias-corrected and
    accelerated); if BCa comes out non-finite the percentile interval is used
    and ``method`` says so. Same data + same seed = same interval.

    Missing data: None/NaN are dropped; ``details["n_missing"]`` counts them.

    Degenerate cases: n = 0 -> undefined. n = 1 or zero variance -> the mean is
    reported but the CI is left empty with ``ci_undefined_reason`` (a
    bootstrap of a constant sample is a single point, which would falsely
    suggest certainty).
    """
    x, n_missing = clean_numeric(values)
    n = len(x)
    details = {"n_missing": n_missing}
    if n == 0:
        return Estimate.undefined("no non-missing values", method="mean", details=details)
    value = float(np.mean(x))
    if n < 2:
        return Estimate(value, n=n, method="mean", details=details,
                        ci_undefined_reason="n < 2: no variability to bootstrap")
    if np.ptp(x) == 0:
        return Estimate(value, n=n, method="mean", details={**details, "sd": 0.0},
                        ci_undefined_reason="zero variance: the bootstrap distribution "
                                            "is a single point")
    lo, hi, label = _bootstrap_ci(
        (x,), lambda a, axis: np.mean(a, axis=axis),
        confidence=confidence, n_resamples=n_resamples, seed=seed, method=method,
    )
    details.update(sd=float(np.std(x, ddof=1)), n_resamples=n_resamples, seed=seed)
    if lo is None:
        return Estimate(value, n=n, method="mean", details=details,
                        ci_undefined_reason="bootstrap interval not finite")
    return Estimate(value, lo, hi, n=n, method=f"mean; {label} CI", confidence=confidence,
                    details=details)


def mean_difference_ci(
    x: Sequence[Any],
    y: Sequence[Any],
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    method: str = "BCa",
) -> Estimate:
    """Difference of means, mean(x) - mean(y), for two independent samples.

    CI: SciPy ``stats.bootstrap`` resampling each sample independently
    (``paired=False``), seeded, BCa with percentile fallback as in
    :func:`mean_ci`.

    Missing data: None/NaN dropped from each sample separately.

    Degenerate cases: an empty sample -> undefined; a sample with n < 2, or
    both samples constant -> difference reported, CI empty with a reason.
    """
    a, miss_a = clean_numeric(x)
    b, miss_b = clean_numeric(y)
    details = {"n_x": len(a), "n_y": len(b), "n_missing_x": miss_a, "n_missing_y": miss_b}
    n = len(a) + len(b)
    if len(a) == 0 or len(b) == 0:
        return Estimate.undefined("one of the samples has no non-missing values",
                                  n=n, method="mean difference", details=details)
    value = float(np.mean(a) - np.mean(b))
    details.update(mean_x=float(np.mean(a)), mean_y=float(np.mean(b)))
    if len(a) < 2 or len(b) < 2:
        return Estimate(value, n=n, method="mean difference", details=details,
                        ci_undefined_reason="a sample has n < 2: no variability to bootstrap")
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return Estimate(value, n=n, method="mean difference", details=details,
                        ci_undefined_reason="both samples constant: the bootstrap "
                                            "distribution is a single point")
    lo, hi, label = _bootstrap_ci(
        (a, b), lambda p, q, axis: np.mean(p, axis=axis) - np.mean(q, axis=axis),
        confidence=confidence, n_resamples=n_resamples, seed=seed, method=method,
    )
    details.update(n_resamples=n_resamples, seed=seed)
    if lo is None:
        return Estimate(value, n=n, method="mean difference", details=details,
                        ci_undefined_reason="bootstrap interval not finite")
    return Estimate(value, lo, hi, n=n, method=f"mean difference; {label} CI",
                    confidence=confidence, details=details)
