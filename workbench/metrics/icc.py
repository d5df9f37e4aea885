"""Intraclass correlations in the six Shrout & Fleiss (1979) forms, with F-based CIs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .estimate import Estimate, is_missing

ICC_FORMS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")


def _complete_rows(ratings: Sequence[Sequence[Any]]) -> tuple[np.ndarray, int]:
    rows = [list(r) for r in ratings]
    if not rows:
        return np.empty((0, 0)), 0
    k = len(rows[0])
    if any(len(r) != k for r in rows):
        raise ValueError("every target row needs one cell per rater (use None for missing)")
    keep = [r for r in rows if not any(is_missing(v) for v in r)]
    return np.array(keep, dtype=float).reshape(len(keep), k), len(rows) - len(keep)


def icc(ratings: Sequence[Sequence[Any]], *, confidence: float = 0.95) -> dict[str, Estimate]:
    """All six Shrout & Fleiss (1979) intraclass correlations for n targets x k raters.

    ``ratings[i][j]`` is rater j's score of target i. Two-way ANOVA mean
    squares: MSR (targets), MSC (raters), MSE (residual) and, for the one-way
    model, MSW = (SS_raters + SS_error) / (n (k-1)). Then

    * ICC(1,1) = (MSR - MSW) / (MSR + (k-1) MSW)   one-way random, single rater
    * ICC(2,1) = (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n)
      two-way random, absolute agreement, single rater
    * ICC(3,1) = (MSR - MSE) / (MSR + (k-1) MSE)   two-way mixed, consistency
    * ICC(1,k) = (MSR - MSW) / MSR
    * ICC(2,k) = (MSR - MSE) / (MSR + (MSC - MSE) / n)
    * ICC(3,k) = (MSR - MSE) / MSR

    CIs: F-based, as Shrout & Fleiss (1979) and McGraw & Wong (1996), the
    same formulas as R ``psych::ICC``: F = MSR/MSW (forms 1) or MSR/MSE
    (forms 3) with exact F quantiles; ICC(2,1) uses the Satterthwaite
    approximate df, and ICC(2,k) applies Spearman-Brown to the ICC(2,1)
    limits. ``details`` holds F, df1, df2 and the p-value of H0: ICC = 0.

    Missing data: ANOVA needs complete rows, so a target missing any rating
    is dropped; ``n`` is the number of complete targets and
    ``details["n_dropped"]`` the number dropped.

    Degenerate cases: fewer than 2 raters, fewer than 2 complete targets, or
    all ratings identical -> every form undefined. A form whose denominator
    is 0 is undefined on its own. Perfect consistency (no residual error)
    gives the value (e.g. ICC(3,1) = 1) but no CI, since F is infinite.
    """
    from scipy import stats

    x, dropped = _complete_rows(ratings)
    n, k = x.shape
    base = {"n_dropped": dropped, "k": k}

    def all_undefined(reason: str) -> dict[str, Estimate]:
        return {f: Estimate.undefined(reason, n=n, method=f, details=base) for f in ICC_FORMS}

    if k < 2:
        return all_undefined("fewer than 2 raters")
    if n < 2:
        return all_undefined("fewer than 2 targets with complete ratings")

    grand = float(x.mean())
    ss_total = float(((x - grand) ** 2).sum())
    ss_rows = float(k * ((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = float(n * ((x.mean(axis=0) - grand) ** 2).sum())
    # Round-off noise must not pose as residual error (perfect consistency gives exactly 0).
    ss_err = max(0.0, ss_total - ss_rows - ss_cols)
    if ss_err < 1e-12 * max(ss_total, 1.0):
        ss_err = 0.0
    if ss_total == 0:
        return all_undefined("all ratings are identical: no variance to partition")
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    msw = (ss_cols + ss_err) / (n * (k - 1))
    alpha = 1.0 - confidence
    q = lambda d1, d2: float(stats.f.ppf(1 - alpha / 2, d1, d2))  # noqa: E731
    ms = {"MSR": msr, "MSC": msc, "MSE": mse, "MSW": msw}
    out: dict[str, Estimate] = {}

    def put(form: str, value_fn, ci_fn, f_fn, df1: float, df2: float, how: str) -> None:
        # Python floats raise ZeroDivisionError, so every 0-denominator is caught here.
        try:
            value = float(value_fn())
        except ZeroDivisionError:
            out[form] = Estimate.undefined("a variance component in the denominator is 0",
                                           n=n, method=form, details=base)
            return
        details: dict[str, Any] = {**base, **ms, "df1": df1, "df2": df2}
        try:
            f = float(f_fn())
            details.update(F=f, p_value=float(stats.f.sf(f, df1, df2)))
            lo, hi = (float(b) for b in ci_fn(f))
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ZeroDivisionError
        except ZeroDivisionError:
            out[form] = Estimate(value, n=n, method=form, details=details,
                                 ci_undefined_reason="F ratio is infinite or 0 (a mean square is "
                                                     "0): no F-based interval")
            return
        if lo > hi:  # the Satterthwaite df of degenerate ratings (real small-model judges) can cross the bounds
            out[form] = Estimate(value, n=n, method=form, details=details,
                                 ci_undefined_reason=f"the F-based interval's bounds cross ({lo:.3g} > {hi:.3g}): "
                                                     "the ratings are too degenerate for it (few targets, raters "
                                                     "with little variance)")
            return
        out[form] = Estimate(value, lo, hi, n=n, method=f"{form}; {how}", confidence=confidence,
                             details=details)

    def f_ci(f: float, d1: float, d2: float, average: bool) -> tuple[float, float]:
        fl, fu = f / q(d1, d2), f * q(d2, d1)
        if average:
            return 1 - 1 / fl, 1 - 1 / fu
        return (fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)

    # One-way random forms (1): F = MSR / MSW; two-way mixed forms (3): F = MSR / MSE. One CI for both.
    for model, error_ms, d1, d2 in ((1, msw, n - 1, n * (k - 1)), (3, mse, n - 1, (n - 1) * (k - 1))):
        f_fn = lambda e=error_ms: msr / e  # noqa: E731
        put(f"ICC({model},1)", lambda e=error_ms: (msr - e) / (msr + (k - 1) * e),
            lambda f, d1=d1, d2=d2: f_ci(f, d1, d2, False), f_fn, d1, d2, "F-based CI")
        put(f"ICC({model},k)", lambda e=error_ms: (msr - e) / msr,
            lambda f, d1=d1, d2=d2: f_ci(f, d1, d2, True), f_fn, d1, d2, "F-based CI")

    # Two-way random forms (2): F = MSR / MSE.
    d1, d2 = n - 1, (n - 1) * (k - 1)

    def icc2() -> float:
        return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)

    def ci_2(_f: float) -> tuple[float, float]:
        # Satterthwaite approximate df (McGraw & Wong 1996; as psych::ICC).
        r, fj = icc2(), msc / mse
        vn = (k - 1) * (n - 1) * (k * r * fj + n * (1 + (k - 1) * r) - k * r) ** 2
        vd = (n - 1) * k ** 2 * r ** 2 * fj ** 2 + (n * (1 + (k - 1) * r) - k * r) ** 2
        v = vn / vd
        f_u, f_l = q(n - 1, v), q(v, n - 1)
        lo = n * (msr - f_u * mse) / (f_u * (k * msc + (k * n - k - n) * mse) + n * msr)
        hi = n * (f_l * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_l * msr)
        return lo, hi

    def spearman_brown(r: float) -> float:
        return r * k / (1 + (k - 1) * r)

    put("ICC(2,1)", icc2, ci_2, lambda: msr / mse, d1, d2, "F-based CI (Satterthwaite df)")
    put("ICC(2,k)", lambda: (msr - mse) / (msr + (msc - mse) / n),
        lambda f: tuple(spearman_brown(b) for b in ci_2(f)), lambda: msr / mse, d1, d2,
        "F-based CI (Spearman-Brown of the ICC(2,1) limits)")
    return {form: out[form] for form in ICC_FORMS}
