"""Agreement between raters: Cohen's kappa, percent agreement, Krippendorff's alpha."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from .estimate import Estimate, is_missing, z_critical

KAPPA_WEIGHTS = (None, "linear", "quadratic")
ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _complete_label_pairs(a: Sequence[Any], b: Sequence[Any]) -> tuple[list[Any], list[Any], int]:
    if len(a) != len(b):
        raise ValueError(f"raters scored different numbers of items: {len(a)} vs {len(b)}")
    xs, ys, dropped = [], [], 0
    for u, v in zip(a, b):
        if is_missing(u) or is_missing(v):
            dropped += 1
        else:
            xs.append(u)
            ys.append(v)
    return xs, ys, dropped


def _category_order(observed: set[Hashable],
                    categories: Sequence[Hashable] | None) -> list[Hashable]:
    if categories is None:
        try:
            return sorted(observed)  # type: ignore[type-var]
        except TypeError as exc:
            raise ValueError(
                "labels are not sortable; pass categories= in their scale order") from exc
    cats = list(categories)
    if len(set(cats)) != len(cats):
        raise ValueError("categories contain duplicates")
    unknown = observed - set(cats)
    if unknown:
        raise ValueError(f"labels not in categories: {sorted(map(str, unknown))}")
    return cats


def agreement_weights(k: int, weights: str | None) -> np.ndarray:
    """k x k agreement weights: 1 on the diagonal, falling with category distance."""
    i, j = np.indices((k, k))
    if weights is None:
        return (i == j).astype(float)
    if k < 2:
        return np.ones((k, k))
    if weights == "linear":
        return 1.0 - np.abs(i - j) / (k - 1)
    if weights == "quadratic":
        return 1.0 - (i - j) ** 2 / (k - 1) ** 2
    raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}")


def cohens_kappa(
    rater_a: Sequence[Any],
    rater_b: Sequence[Any],
    *,
    weights: str | None = None,
    categories: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
) -> Estimate:
    """Cohen's kappa for two raters, unweighted or weighted (linear, quadratic).

    Definition: with p_ij the proportion of items rater A put in category i
    and rater B in j, row/column margins r_i and c_j, and agreement weights
    w_ij (identity when unweighted; 1 - |i-j|/(k-1) linear; 1 - (i-j)^2/(k-1)^2
    quadratic), p_o = sum w_ij p_ij, p_e = sum w_ij r_i c_j and
    kappa = (p_o - p_e) / (1 - p_e) (Cohen 1960, 1968).

    Categories: ``categories`` fixes the scale and its order (pass the full
    scale, e.g. [0, 1, 2, 3], so an unused category still counts in the
    weights); default is the sorted set of labels actually used, as R
    ``irr::kappa2`` does. Weights use category *positions*, so the scale is
    treated as equally spaced.

    CI: kappa +- z * ASE, the large-sample standard error of Fleiss, Cohen &
    Everitt (1969) -- the ASE SAS PROC FREQ prints -- clipped to [-1, 1].
    ``details`` also has the ASE under H0: kappa = 0, its z and two-sided p.

    Missing data: pairwise deletion, only items both raters scored count;
    ``details["n_dropped"]`` counts the others.

    Degenerate cases: no item scored by both, or only one -> undefined; chance agreement
    p_e = 1 (both raters used one and the same category throughout) ->
    undefined. Perfect agreement (or disagreement) has ASE 0, so the CI is left empty.
    """
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}")
    name = "cohen's kappa" if weights is None else f"cohen's kappa ({weights} weights)"
    xs, ys, dropped = _complete_label_pairs(rater_a, rater_b)
    n = len(xs)
    details: dict[str, Any] = {"n_dropped": dropped}
    if n == 0:
        return Estimate.undefined("no complete pair: no item has a value from both raters (or both measures)", method=name, details=details)
    if n < 2:
        # One item gives kappa = 0 whenever the two values differ (p_o = p_e = 0): a number with no meaning.
        return Estimate.undefined("only 1 item has a value from both raters: kappa needs at least 2",
                                  n=n, method=name, details=details)
    cats = _category_order(set(xs) | set(ys), categories)
    index = {c: i for i, c in enumerate(cats)}
    k = len(cats)
    table = np.zeros((k, k))
    for u, v in zip(xs, ys):
        table[index[u], index[v]] += 1
    p = table / n
    r, c = p.sum(axis=1), p.sum(axis=0)
    w = agreement_weights(k, weights)
    p_o = float((w * p).sum())
    p_e = float((w * np.outer(r, c)).sum())
    details.update(p_observed=p_o, p_expected=p_e, categories=[str(x) for x in cats])
    if p_e >= 1.0 - 1e-12:
        return Estimate.undefined(
            "chance agreement is 1 (both raters used a single, identical category): kappa is 0/0",
            n=n, method=name, details=details)
    kappa = (p_o - p_e) / (1.0 - p_e)

    # Fleiss, Cohen & Everitt (1969) asymptotic variances.
    w_row = w @ c          # wbar_i. = sum_j c_j w_ij
    w_col = r @ w          # wbar_.j = sum_i r_i w_ij
    spread = w_row[:, None] + w_col[None, :]
    denom = n * (1.0 - p_e) ** 2
    var = (float((p * (w - spread * (1 - kappa)) ** 2).sum())
           - (kappa - p_e * (1 - kappa)) ** 2) / denom
    var0 = (float((np.outer(r, c) * (w - spread) ** 2).sum()) - p_e ** 2) / denom
    if var0 > 0:
        from statistics import NormalDist

        se0 = math.sqrt(var0)
        details.update(ase_h0=se0, z=kappa / se0, p_value=2 * NormalDist().cdf(-abs(kappa / se0)))
    if var <= 1e-15:
        return Estimate(kappa, n=n, method=name, details=details,
                        ci_undefined_reason="asymptotic standard error is 0 "
                                            "(perfect agreement or disagreement)")
    se = math.sqrt(var)
    half = z_critical(confidence) * se
    details["ase"] = se
    return Estimate(kappa, max(-1.0, kappa - half), min(1.0, kappa + half), n=n,
                    method=f"{name}; Fleiss-Cohen-Everitt asymptotic CI", confidence=confidence,
                    details=details)


def percent_agreement(
    rater_a: Sequence[Any],
    rater_b: Sequence[Any],
    *,
    tolerance: float = 0.0,
    confidence: float = 0.95,
) -> Estimate:
    """Proportion of items on which two raters agree, with a Wilson score CI.

    Definition: (# items with a == b) / (# items both scored). With
    ``tolerance > 0`` (numeric scores only) |a - b| <= tolerance counts as
    agreement, like R ``irr::agree``. ``value`` is a proportion in [0, 1],
    not a percentage.

    CI: Wilson (1927) score interval for a binomial proportion.

    Missing data: pairwise deletion, as for kappa.

    Degenerate cases: no item scored by both -> undefined.
    """
    xs, ys, dropped = _complete_label_pairs(rater_a, rater_b)
    n = len(xs)
    details: dict[str, Any] = {"n_dropped": dropped, "tolerance": tolerance}
    if n == 0:
        return Estimate.undefined("no complete pair: no item has a value from both raters (or both measures)", method="percent agreement",
                                  details=details)
    if tolerance:
        agree = sum(abs(float(u) - float(v)) <= tolerance for u, v in zip(xs, ys))
    else:
        agree = sum(u == v for u, v in zip(xs, ys))
    p = agree / n
    z = z_critical(confidence)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    details["n_agree"] = agree
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n=n,
                    method="percent agreement; Wilson score CI", confidence=confidence,
                    details=details)


def _reliability_matrix(
    data: Sequence[Sequence[Any]] | Mapping[str, Sequence[Any]],
    level: str,
    value_domain: Sequence[Any] | None,
) -> tuple[np.ndarray, list[Any] | None]:
    """raters x units float matrix with NaN for missing; labels coded if needed."""
    rows = list(data.values()) if isinstance(data, Mapping) else list(data)
    if not rows:
        return np.empty((0, 0)), None
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        raise ValueError("every rater row must cover the same units (use None for missing)")
    cells = [v for r in rows for v in r if not is_missing(v)]
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                  for v in cells)
    if numeric and value_domain is None:
        return np.array([[np.nan if is_missing(v) else float(v) for v in r] for r in rows]), None
    if level in ("interval", "ratio") and not numeric:
        raise ValueError(f"{level} alpha needs numeric ratings")
    # Code labels by their position in the domain (ordinal needs an explicit order).
    if value_domain is None:
        if level != "nominal":
            raise ValueError("non-numeric ordinal ratings need value_domain in scale order")
        value_domain = sorted(set(cells), key=str)
    domain = list(value_domain)
    pos = {v: i for i, v in enumerate(domain)}
    unknown = {str(v) for v in cells if v not in pos}
    if unknown:
        raise ValueError(f"ratings outside value_domain: {sorted(unknown)}")
    if level in ("interval", "ratio"):
        return np.array([[np.nan if is_missing(v) else float(v) for v in r] for r in rows]), domain
    coded = np.array([[np.nan if is_missing(v) else float(pos[v]) for v in r] for r in rows])
    return coded, list(range(len(domain)))


def krippendorff_alpha(
    reliability_data: Sequence[Sequence[Any]] | Mapping[str, Sequence[Any]],
    *,
    level: str = "interval",
    value_domain: Sequence[Any] | None = None,
    n_boot: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Krippendorff's alpha at the nominal, ordinal, interval or ratio level.

    Definition: alpha = 1 - D_o / D_e, observed over expected disagreement
    on the coincidence matrix of pairable values (Krippendorff 2004), computed
    by the ``krippendorff`` package. That package's memory grows with
    units x distinct values^2, so for large continuous data the interval level
    uses the exact closed form instead (same number, O(ratings)); other levels
    then raise ValueError asking for a coarser scale. ``reliability_data`` is raters x units
    (rows are raters; a mapping rater -> row also works).

    Missing data: handled natively -- None/NaN cells are skipped and a unit
    counts only if at least two raters scored it. ``n`` is the number of such
    pairable units.

    Labels: numeric ratings are used as is. Non-numeric labels are coded by
    position in ``value_domain`` (required for ordinal; for nominal the
    sorted set of labels is used if omitted).

    CI: none by default. With ``n_boot > 0``, a seeded percentile bootstrap
    over units (resampling columns; a simple unit bootstrap, not
    Krippendorff's own algorithm); resamples where alpha is undefined are
    skipped and counted.

    Degenerate cases: fewer than 2 raters, no unit scored by two raters, or
    a single distinct value overall (expected disagreement 0) -> undefined.
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {ALPHA_LEVELS}")
    name = f"krippendorff's alpha ({level})"
    matrix, domain = _reliability_matrix(reliability_data, level, value_domain)
    n_raters = matrix.shape[0]
    details: dict[str, Any] = {"n_raters": n_raters,
                               "n_units": int(matrix.shape[1]) if matrix.size else 0}
    if n_raters < 2:
        return Estimate.undefined("fewer than 2 raters", method=name, details=details)
    per_unit = (~np.isnan(matrix)).sum(axis=0)
    pairable = int((per_unit >= 2).sum())
    if pairable == 1:
        # One pairable unit: alpha's expected disagreement comes from that unit alone (alpha = -1 or undefined).
        return Estimate.undefined("only 1 unit was scored by at least two raters: alpha needs at least 2",
                                  n=1, method=name, details=details)
    if pairable == 0:
        return Estimate.undefined("no unit was scored by at least two raters", method=name,
                                  details=details)
    values = matrix[:, per_unit >= 2]
    if len(np.unique(values[~np.isnan(values)])) < 2:
        return Estimate.undefined("all pairable ratings are identical: expected disagreement is 0",
                                  n=pairable, method=name, details=details)
    value = _alpha_or_none(matrix, level, domain)
    if value is None:
        return Estimate.undefined("alpha is not finite for these data", n=pairable, method=name,
                                  details=details)
    if n_boot <= 0:
        return Estimate(value, n=pairable, method=name, details=details,
                        ci_undefined_reason="no CI requested (n_boot=0)")
    rng = np.random.default_rng(seed)
    cols = np.flatnonzero(per_unit >= 2)
    boots = []
    for _ in range(n_boot):
        b = _alpha_or_none(matrix[:, rng.choice(cols, size=len(cols), replace=True)], level, domain)
        if b is not None:
            boots.append(b)
    details.update(n_boot=n_boot, n_boot_undefined=n_boot - len(boots), seed=seed)
    if len(boots) < max(10, n_boot // 2):
        return Estimate(value, n=pairable, method=name, details=details,
                        ci_undefined_reason="too many bootstrap resamples had undefined alpha")
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(boots, [tail, 100 - tail])
    return Estimate(value, float(lo), float(hi), n=pairable,
                    method=f"{name}; unit bootstrap percentile CI", confidence=confidence,
                    details=details)


# The krippendorff package builds an (units x values x values) array, so memory
# grows with the square of the number of distinct values; continuous judge
# scores on 1000 items would need tens of GB. Above this many cells the interval
# level switches to the exact closed form below.
_DENSE_LIMIT = 20_000_000


def _interval_alpha(matrix: np.ndarray) -> float | None:
    """Interval alpha in closed form, O(number of ratings).

    With squared-difference distances, sum_{i!=j in unit} (v_i - v_j)^2 =
    2 m_u SS_u, so D_o = (1/n) sum_u 2 m_u SS_u / (m_u - 1) and
    D_e = 2 SS_pooled / (n - 1) over the n pairable values (Krippendorff 2011).
    """
    counts = (~np.isnan(matrix)).sum(axis=0)
    cols = matrix[:, counts >= 2]
    m = counts[counts >= 2].astype(float)
    values = cols[~np.isnan(cols)]
    n = values.size
    if n < 2:
        return None
    ss_units = np.nansum((cols - np.nanmean(cols, axis=0)) ** 2, axis=0)
    d_o = float((2 * m * ss_units / (m - 1)).sum()) / n
    d_e = 2 * float(((values - values.mean()) ** 2).sum()) / (n - 1)
    if d_e == 0:
        return None
    return 1.0 - d_o / d_e


def _alpha_or_none(matrix: np.ndarray, level: str, domain: list[Any] | None) -> float | None:
    n_values = len(domain) if domain is not None else len(np.unique(matrix[~np.isnan(matrix)]))
    if matrix.shape[1] * n_values ** 2 > _DENSE_LIMIT:
        if level == "interval":
            return _interval_alpha(matrix)
        raise ValueError(f"{n_values} distinct values on {matrix.shape[1]} units is too large for "
                         f"{level} alpha; round the ratings to a coarser scale")
    import krippendorff

    try:
        with np.errstate(all="ignore"):
            a = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level,
                                         value_domain=domain))
    except ValueError:  # the package raises on one-value domains / no pairable unit
        return None
    return a if math.isfinite(a) else None
