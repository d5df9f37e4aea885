"""Calibration of probabilities against binary outcomes (seed 004 Arm A) and
judge-panel agreement with the pre-registered decision rule (seed 004 Arm C).

Usable on any probability-vs-outcome data: proxy p = sigmoid(v_hat) against
ground truth, judge scores in [0, 1] against outcomes, or human scores.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .agreement import krippendorff_alpha
from .correlation import spearman_rho
from .estimate import Estimate, is_missing, to_jsonable
from .icc import icc

_POSITIVE = (1, True)
_NEGATIVE = (0, -1, False)


def binary_outcomes(outcomes: Sequence[Any]) -> list[int | None]:
    """Map outcomes to 1/0, keeping None for missing.

    Accepted: 1/True -> 1; 0/False/-1 -> 0 (so the seed's ground_truth in
    {+1, -1} works directly). Anything else is an error, not a guess.
    """
    out: list[int | None] = []
    for v in outcomes:
        if is_missing(v):
            out.append(None)
        elif v in _POSITIVE:
            out.append(1)
        elif v in _NEGATIVE:
            out.append(0)
        else:
            raise ValueError(f"outcome {v!r} is not binary (use 1/0, True/False or +1/-1)")
    return out


def _paired_prob_outcome(probabilities: Sequence[Any], outcomes: Sequence[Any]
                         ) -> tuple[np.ndarray, np.ndarray, int]:
    if len(probabilities) != len(outcomes):
        raise ValueError("probabilities and outcomes differ in length")
    ys = binary_outcomes(outcomes)
    p_kept, y_kept, dropped = [], [], 0
    for p, y in zip(probabilities, ys):
        if is_missing(p) or y is None:
            dropped += 1
            continue
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"probability {p} outside [0, 1]")
        p_kept.append(p)
        y_kept.append(y)
    return np.asarray(p_kept, float), np.asarray(y_kept, float), dropped


def _bin_index(values: np.ndarray, n_bins: int, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    # Edges lo + i (hi-lo)/n_bins computed exactly so 0.3 lands in [0.3, 0.4), not below it.
    edges = lo + (hi - lo) * np.arange(n_bins + 1) / n_bins
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, n_bins - 1)


@dataclass(frozen=True)
class ReliabilityBin:
    """One equal-width bin [lower, upper) of predicted probability (the last bin includes 1)."""

    lower: float
    upper: float
    count: int
    mean_predicted: float | None
    observed_frequency: float | None

    @property
    def gap(self) -> float | None:
        if self.count == 0:
            return None
        return abs(self.observed_frequency - self.mean_predicted)

    def to_dict(self) -> dict[str, Any]:
        return {"lower": self.lower, "upper": self.upper, "count": self.count,
                "mean_predicted": self.mean_predicted,
                "observed_frequency": self.observed_frequency, "gap": self.gap}


def _mean(values: np.ndarray) -> float:
    # math.fsum is exact, so the mean does not depend on the order of the pairs: items come ordered by
    # their blind ids, which are random per store, and one study must give one number in every store
    return math.fsum(float(v) for v in values) / len(values)


def reliability_bins(probabilities: Sequence[Any], outcomes: Sequence[Any], *,
                     n_bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width reliability-diagram bins over [0, 1].

    Each bin reports its count, the mean predicted probability and the
    observed frequency of the positive outcome; empty bins have None for both
    (no number is invented for them). Missing: pairs with a missing
    probability or outcome are dropped.
    """
    if n_bins < 1:
        raise ValueError("n_bins must be >= 1")
    p, y, _ = _paired_prob_outcome(probabilities, outcomes)
    idx = _bin_index(p, n_bins)
    bins = []
    for b in range(n_bins):
        mask = idx == b
        count = int(mask.sum())
        bins.append(ReliabilityBin(
            lower=b / n_bins, upper=(b + 1) / n_bins, count=count,
            mean_predicted=_mean(p[mask]) if count else None,
            observed_frequency=_mean(y[mask]) if count else None))
    return bins


@dataclass(frozen=True)
class CalibrationReport:
    """Reliability bins plus ECE, MCE and Brier score for one set of predictions."""

    bins: tuple[ReliabilityBin, ...]
    ece: Estimate
    mce: Estimate
    brier: Estimate
    n: int
    n_dropped: int

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({"bins": list(self.bins), "ece": self.ece, "mce": self.mce,
                            "brier": self.brier, "n": self.n, "n_dropped": self.n_dropped})


def brier_score(probabilities: Sequence[Any], outcomes: Sequence[Any]) -> Estimate:
    """Brier score = mean((p - y)^2) with y in {0, 1}; 0 is perfect, lower is better.

    Missing: pairs with a missing probability or outcome are dropped
    (``details["n_dropped"]``). No pairs -> undefined. No CI is computed.
    """
    p, y, dropped = _paired_prob_outcome(probabilities, outcomes)
    if len(p) == 0:
        return Estimate.undefined("no (probability, outcome) pairs", method="brier score",
                                  details={"n_dropped": dropped})
    return Estimate(_mean((p - y) ** 2), n=len(p), method="brier score",
                    details={"n_dropped": dropped})


def calibration(probabilities: Sequence[Any], outcomes: Sequence[Any], *,
                n_bins: int = 10) -> CalibrationReport:
    """Reliability bins, expected and maximum calibration error, Brier score.

    Definitions (equal-width bins over [0, 1], ``n_bins`` of them):
    ECE = sum_b (n_b / N) |obs_b - conf_b| (count-weighted mean gap);
    MCE = max_b |obs_b - conf_b| over non-empty bins; obs_b is the observed
    frequency of the positive outcome and conf_b the mean predicted
    probability in bin b. Brier as :func:`brier_score`.

    Missing: pairs with a missing probability or outcome are dropped.
    No pairs -> all three undefined. No CIs are computed.
    """
    p, y, dropped = _paired_prob_outcome(probabilities, outcomes)
    bins = tuple(reliability_bins(p.tolist(), y.astype(int).tolist(), n_bins=n_bins))
    n = len(p)
    details = {"n_bins": n_bins, "n_dropped": dropped}
    if n == 0:
        undef = Estimate.undefined("no (probability, outcome) pairs", details=details)
        return CalibrationReport(bins, undef, undef, undef, 0, dropped)
    gaps = [(b.count, b.gap) for b in bins if b.count]
    ece = sum(c * g for c, g in gaps) / n
    mce = max(g for _, g in gaps)
    return CalibrationReport(
        bins=bins,
        ece=Estimate(ece, n=n, method=f"ECE ({n_bins} equal-width bins, count-weighted)",
                     details=details),
        mce=Estimate(mce, n=n, method=f"MCE ({n_bins} equal-width bins)", details=details),
        brier=brier_score(p.tolist(), y.astype(int).tolist()),
        n=n, n_dropped=dropped)


def sigmoid(x: np.ndarray) -> np.ndarray:
    x = np.clip(np.asarray(x, float), -500, 500)  # exp overflow guard; p saturates long before
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class KSweep:
    """ECE (and Brier) of p = sigmoid(k * v_hat) for each k of a pre-registered grid."""

    points: tuple[tuple[float, CalibrationReport], ...]
    best_k: float | None
    best_ece: Estimate
    at_grid_edge: bool
    note: str

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({
            "points": [{"k": k, "ece": r.ece, "mce": r.mce, "brier": r.brier}
                       for k, r in self.points],
            "best_k": self.best_k, "best_ece": self.best_ece,
            "at_grid_edge": self.at_grid_edge, "note": self.note})


def sigmoid_k_sweep(v_hat: Sequence[Any], outcomes: Sequence[Any], ks: Sequence[float], *,
                    n_bins: int = 10) -> KSweep:
    """Sweep the sigmoid slope k: p = sigmoid(k * v_hat); report ECE per k and the minimiser.

    ``ks`` is the pre-registered grid (seed 004 fixes it before data
    collection, so there is no default). The ECE-minimising k is returned
    (ties: the smallest k). If the minimum sits on the first or last grid
    point, ``at_grid_edge`` is set and ``note`` says the true minimiser may lie
    outside the grid. Missing: pairs with missing v_hat or outcome dropped.
    """
    grid = sorted(float(k) for k in ks)
    if not grid:
        raise ValueError("ks must contain at least one k")
    if len(v_hat) != len(outcomes):
        raise ValueError("v_hat and outcomes differ in length")
    keep = [i for i, v in enumerate(v_hat) if not is_missing(v)]
    v = np.asarray([float(v_hat[i]) for i in keep])
    ys = [outcomes[i] for i in keep]
    points = tuple((k, calibration(sigmoid(k * v).tolist(), ys, n_bins=n_bins)) for k in grid)
    defined = [(k, r) for k, r in points if r.ece.defined]
    if not defined:
        return KSweep(points, None, Estimate.undefined("no (v_hat, outcome) pairs"), False,
                      "ECE undefined for every k")
    best_k, best = min(defined, key=lambda kr: (kr[1].ece.value, kr[0]))
    edge = len(grid) > 1 and best_k in (grid[0], grid[-1])
    note = (f"ECE is minimised at k = {best_k:g}" +
            (" on the edge of the grid; the true minimiser may lie outside it" if edge else ""))
    return KSweep(points, best_k, best.ece, edge, note)


# ---- judge panel (seed 004 Arm C) ----------------------------------------------------

SEED_ALPHA_THRESHOLD = 0.5   # seed 004: "if alpha < 0.5 ... escalate"
SEED_STRONG_ALPHA = 0.7      # seed 004 Outcomes: "judges agree (alpha >= 0.7): the strong result"
SEED_MIN_JUDGES = 3


@dataclass(frozen=True)
class DisagreementBin:
    """Judge disagreement among items whose mean judge score falls in [lower, upper)."""

    lower: float
    upper: float
    count: int
    mean_abs_pairwise_difference: float | None
    mean_sd: float | None

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class JudgePanelAgreement:
    judges: tuple[str, ...]
    n_items: int
    alpha: Estimate
    pairwise_spearman: Mapping[str, Estimate]
    icc_2_1: Estimate
    disagreement_by_bin: tuple[DisagreementBin, ...]
    alpha_threshold: float
    strong_threshold: float
    verdict: str            # "strong" | "usable_with_caution" | "too_noisy" | "undefined"
    decision: str           # the seed's rule, stated for this result
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({k: getattr(self, k) for k in (
            "judges", "n_items", "alpha", "pairwise_spearman", "icc_2_1", "disagreement_by_bin",
            "alpha_threshold", "strong_threshold", "verdict", "decision", "notes")})


def _decision(alpha: Estimate, threshold: float, strong: float) -> tuple[str, str]:
    if not alpha.defined:
        return "undefined", (f"Krippendorff's alpha is undefined ({alpha.undefined_reason}); "
                             "the pre-registered decision rule cannot be applied.")
    a = alpha.value
    if a >= strong:
        return "strong", (f"alpha = {a:.3f} >= {strong:g}: judges agree -- the strong result; the "
                          "judge ensemble can serve as the external anchor (seed 004, Outcomes).")
    if a < threshold:
        return "too_noisy", (
            f"alpha = {a:.3f} < {threshold:g} (pre-registered threshold): the judge ensemble is "
            "too noisy to anchor -- escalate (add a 4th judge, switch to a stronger model, or "
            "fall back to human spot-checks on a smaller subsample) "
            "(seed 004, Arm C decision rule).")
    return "usable_with_caution", (
        f"{threshold:g} <= alpha = {a:.3f} < {strong:g}: not below the pre-registered escalation "
        f"threshold, so the rule does not require escalation, but short of the alpha >= {strong:g} "
        "the seed calls the strong result. Seed 004 names no outcome for this band; treat the "
        "ensemble as usable with caution and report alpha beside every judge-anchored finding.")


def judge_panel_agreement(
    scores: Mapping[str, Sequence[Any]],
    *,
    alpha_threshold: float = SEED_ALPHA_THRESHOLD,
    strong_threshold: float = SEED_STRONG_ALPHA,
    n_bins: int = 5,
    score_range: tuple[float, float] = (0.0, 1.0),
) -> JudgePanelAgreement:
    """Agreement of an LLM-judge panel on the same items, with seed 004's decision rule.

    ``scores`` maps judge name -> scores for the same items in the same order
    (None/NaN = no verdict, e.g. a judge_error). Reports:

    * Krippendorff's alpha at the interval level (seed: "alpha (continuous)")
      -- missing handled natively;
    * Spearman rho for every judge pair -- pairwise deletion;
    * ICC(2,1), two-way random absolute agreement -- complete items only;
    * disagreement by bin: items are binned (equal width over
      ``score_range``) by their mean judge score; per bin, the count, the
      mean over items of the mean pairwise |difference| between judges, and
      the mean over items of the across-judge SD (ddof=1). Items with fewer
      than 2 judge scores are left out.

    Decision rule (seed 004 Arm C; ``alpha_threshold`` is the pre-registered
    value, 0.5 in the seed): alpha >= ``strong_threshold`` (0.7) -> "strong";
    alpha < ``alpha_threshold`` -> "too_noisy", escalate; in between ->
    "usable_with_caution" (a band the seed does not name). The full sentence
    is in ``decision``. The seed calls for at least 3 judges; a 2-judge
    panel is computed but flagged in ``notes``.
    """
    if alpha_threshold > strong_threshold:
        raise ValueError("alpha_threshold must not exceed strong_threshold")
    judges = tuple(scores)
    if len(judges) < 2:
        undef = Estimate.undefined("fewer than 2 judges")
        return JudgePanelAgreement(judges, 0, undef, {}, undef, (), alpha_threshold,
                                   strong_threshold, *_decision(undef, alpha_threshold,
                                                                strong_threshold),
                                   notes=("agreement needs at least 2 judges",))
    lengths = {len(scores[j]) for j in judges}
    if len(lengths) != 1:
        raise ValueError("every judge must have one entry per item (None for missing)")
    n_items = lengths.pop()
    matrix = np.array([[np.nan if is_missing(v) else float(v) for v in scores[j]] for j in judges])

    alpha = krippendorff_alpha(matrix.tolist(), level="interval")
    spearman = {f"{a} vs {b}": spearman_rho(scores[a], scores[b])
                for a, b in itertools.combinations(judges, 2)}
    icc21 = icc([[None if math.isnan(v) else v for v in row] for row in matrix.T])["ICC(2,1)"]

    lo, hi = score_range
    rated = (~np.isnan(matrix)).sum(axis=0) >= 2
    cols = matrix[:, rated]
    means = np.nanmean(cols, axis=0) if cols.size else np.empty(0)
    idx = _bin_index(means, n_bins, lo, hi)
    mpad, sds = [], []
    for col in cols.T:
        v = col[~np.isnan(col)]
        mpad.append(float(np.mean([abs(p - q) for p, q in itertools.combinations(v, 2)])))
        sds.append(float(np.std(v, ddof=1)))
    mpad_a, sd_a = np.asarray(mpad), np.asarray(sds)
    width = (hi - lo) / n_bins
    bins = []
    for b in range(n_bins):
        mask = idx == b
        c = int(mask.sum())
        bins.append(DisagreementBin(lo + b * width, lo + (b + 1) * width, c,
                                    float(mpad_a[mask].mean()) if c else None,
                                    float(sd_a[mask].mean()) if c else None))

    notes = []
    if len(judges) < SEED_MIN_JUDGES:
        notes.append(f"seed 004 pre-registers at least {SEED_MIN_JUDGES} judges; this panel has "
                     f"{len(judges)}")
    if abs(alpha_threshold - SEED_ALPHA_THRESHOLD) > 1e-12:
        notes.append(f"pre-registered alpha threshold {alpha_threshold:g} differs from the seed's "
                     f"{SEED_ALPHA_THRESHOLD:g}")
    verdict, decision = _decision(alpha, alpha_threshold, strong_threshold)
    return JudgePanelAgreement(judges, n_items, alpha, spearman, icc21, tuple(bins),
                               alpha_threshold, strong_threshold, verdict, decision, tuple(notes))
