"""Pearson r and Spearman rho with Fisher-z confidence intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .estimate import Estimate, clean_pairs, z_critical


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    da, db = a - a.mean(), b - b.mean()
    r = float(np.dot(da, db) / math.sqrt(np.dot(da, da) * np.dot(db, db)))
    return max(-1.0, min(1.0, r))  # rounding can push |r| a hair past 1


def _correlate(x: Sequence[Any], y: Sequence[Any], *, rank: bool, confidence: float) -> Estimate:
    from scipy import stats

    name = "spearman rho" if rank else "pearson r"
    a, b, dropped = clean_pairs(x, y)
    n = len(a)
    details: dict[str, Any] = {"n_dropped": dropped}
    if n < 3:
        return Estimate.undefined("fewer than 3 complete pairs (two points always correlate +-1)",
                                  n=n, method=name, details=details)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return Estimate.undefined("one variable has no variance", n=n, method=name, details=details)
    if rank:
        a, b = stats.rankdata(a), stats.rankdata(b)
    r = _pearson(a, b)
    # Same t-test p-value for both (scipy's asymptotic route for Spearman too).
    if abs(r) < 1.0:
        t = r * math.sqrt((n - 2) / (1 - r * r))
        details["p_value"] = float(2 * stats.t.sf(abs(t), n - 2))
    else:
        details["p_value"] = 0.0
    if n < 4:
        return Estimate(r, n=n, method=name, details=details,
                        ci_undefined_reason="n < 4: Fisher z standard error needs n - 3 > 0")
    if abs(r) == 1.0:
        return Estimate(r, n=n, method=name, details=details,
                        ci_undefined_reason="|r| = 1: Fisher z is infinite")
    # Bonett & Wright (2000) widen the Fisher-z SE for Spearman's rho.
    var_z = (1 + r * r / 2) / (n - 3) if rank else 1 / (n - 3)
    z, half = math.atanh(r), z_critical(confidence) * math.sqrt(var_z)
    se_name = "Bonett-Wright SE" if rank else "SE 1/sqrt(n-3)"
    return Estimate(r, math.tanh(z - half), math.tanh(z + half), n=n,
                    method=f"{name}; Fisher z CI ({se_name})", confidence=confidence,
                    details=details)


def pearson_r(x: Sequence[Any], y: Sequence[Any], *, confidence: float = 0.95) -> Estimate:
    """Pearson product-moment correlation with a Fisher-z confidence interval.

    Definition: r = sum((x - mean x)(y - mean y)) / sqrt(sum((x - mean x)^2) sum((y - mean y)^2)).
    CI: tanh(atanh(r) +- z_{(1+c)/2} / sqrt(n - 3)) (Fisher 1921; what R's
    ``cor.test`` reports). ``details["p_value"]``: two-sided t test of r = 0.

    Missing data: pairwise deletion; ``details["n_dropped"]`` counts dropped pairs.

    Degenerate cases: n < 3 or a constant variable -> undefined; n = 3 or
    |r| = 1 -> r reported, CI empty with a reason.
    """
    return _correlate(x, y, rank=False, confidence=confidence)


def spearman_rho(x: Sequence[Any], y: Sequence[Any], *, confidence: float = 0.95) -> Estimate:
    """Spearman rank correlation with a Fisher-z confidence interval.

    Definition: Pearson r of the ranks (ties get average ranks).
    CI: Fisher z with the Bonett & Wright (2000) variance (1 + rho^2 / 2) / (n - 3),
    which covers better than 1 / (n - 3) for rank correlations.
    ``details["p_value"]``: two-sided t approximation (as SciPy ``spearmanr``).

    Missing data and degenerate cases: as :func:`pearson_r`.
    """
    return _correlate(x, y, rank=True, confidence=confidence)
