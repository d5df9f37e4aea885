"""Decision quality (seed 001): DQ-1 perspective diversity, DQ-2 anchoring
elimination, DQ-3 blind-spot coverage, their weighted score, and the
sequential vs parallel baseline comparison.

Inputs are plain data: a similarity matrix (or embeddings, via
``embeddings.cosine_similarity_matrix``), similarities to the first
perspective, and per-concern assessments made by a judge model or a rater.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .descriptive import mean_ci, mean_difference_ci
from .effect_sizes import cohens_d, mann_whitney_u
from .estimate import Estimate, is_missing, to_jsonable

# ---- DQ-1 -------------------------------------------------------------------------

INDEPENDENCE_THRESHOLD = 0.65
# Seed 001 gives ranges (low 2-3, medium 4-5, high 6-8); we take the upper
# bound so "fully diverse" means meeting the whole expectation, not half of it.
EXPECTED_PERSPECTIVES: Mapping[str, int] = {"low": 3, "medium": 5, "high": 8}
EXPECTED_PERSPECTIVE_RANGES: Mapping[str, tuple[int, int]] = {
    "low": (2, 3), "medium": (4, 5), "high": (6, 8)}


def perspective_diversity(
    similarity: Any,
    *,
    complexity: str | None = "medium",
    expected: int | None = None,
    threshold: float = INDEPENDENCE_THRESHOLD,
    expected_by_complexity: Mapping[str, int] = EXPECTED_PERSPECTIVES,
) -> Estimate:
    """DQ-1 Perspective Diversity = min(1, independent / expected).

    Definition (seed 001 §2.1): a perspective is *independent* when ALL its
    cosine similarities to the other perspectives are below ``threshold``
    (default 0.65, strict "<"). ``similarity`` is the n x n symmetric
    pairwise cosine-similarity matrix (the diagonal is ignored). ``expected``
    comes from the complexity class: low 3, medium 5, high 8 -- the upper
    bound of the seed's ranges 2-3 / 4-5 / 6-8 (override per class with
    ``expected_by_complexity`` or directly with ``expected``). Capped at 1.0.

    Note the seed's rule is literal: two near-duplicate perspectives both
    fail the test, so neither counts (not "one of them counts").

    Missing data: a NaN in the matrix is an error, not skipped (a
    similarity is computed, never judged).

    Degenerate cases: no perspectives -> undefined. One perspective is
    trivially independent (1 / expected).
    """
    s = np.asarray(similarity, dtype=float)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError("similarity must be a square matrix")
    if np.isnan(s).any():
        raise ValueError("similarity matrix contains NaN")
    if not np.allclose(s, s.T, atol=1e-6):
        raise ValueError("similarity matrix must be symmetric")
    if expected is None:
        if complexity not in expected_by_complexity:
            raise ValueError(f"complexity must be one of {sorted(expected_by_complexity)} "
                             "or pass expected=")
        expected = int(expected_by_complexity[complexity])
    if expected < 1:
        raise ValueError("expected must be >= 1")
    n = s.shape[0]
    details: dict[str, Any] = {"threshold": threshold, "expected": expected,
                               "complexity": complexity}
    if n == 0:
        return Estimate.undefined("no perspectives", method="DQ-1 perspective diversity",
                                  details=details)
    off = s.copy()
    np.fill_diagonal(off, -np.inf)
    max_sim = off.max(axis=1) if n > 1 else np.array([-np.inf])
    independent = [i for i in range(n) if max_sim[i] < threshold]
    ratio = len(independent) / expected
    details.update(
        independent_count=len(independent), independent_indices=independent,
        uncapped_ratio=ratio,
        max_similarity=[None if math.isinf(m) else float(m) for m in max_sim])
    return Estimate(min(1.0, ratio), n=n, method="DQ-1 perspective diversity", details=details)


# ---- DQ-2 -------------------------------------------------------------------------

ANCHORING_R_THRESHOLD = 0.3


def anchoring_elimination(
    similarity_to_first: Sequence[float],
    orders: Sequence[float] | None = None,
    *,
    min_points_for_correlation: int = 3,
    anchoring_threshold: float = ANCHORING_R_THRESHOLD,
) -> Estimate:
    """DQ-2 Anchoring Elimination = 1 - |Pearson r(generation order, similarity to first)|.

    Inputs: ``similarity_to_first[i]`` is the cosine similarity of perspective
    i to the first-generated perspective (index 0 *is* the first); ``orders[i]`` its
    generation order (default 1, 2, ..., n: sequential).

    Definition used here (seed 001 §2.2, with two documented choices):

    1. The first perspective is excluded as self-reference -- its similarity to itself is 1 by
       construction and would dominate r. The seed's parallel example marks
       it "(excluded as self-reference)", and its reading "later ones drift
       back" describes the trend of perspectives 2..n. So r is over (order_i, sim_i) for
       i = 2..n.
    2. Edge cases: 1 perspective -> undefined (the seed's null). All orders
       equal (parallel generation) -> 1.0 by construction. Fewer than
       ``min_points_for_correlation`` (3) points after excluding the first, i.e. 2 or
       3 perspectives -> direct similarity comparison,
       1 - mean(max(0, sim_i)) over perspectives 2..n. The seed prescribes this only for 2
       perspectives; we extend it to 3 because a Pearson r over two points is
       always +-1, which would score every 3-perspective run 0.
       Order constant among perspectives 2..n but different from the first, or similarities all
       equal -> r is 0/0 -> undefined.

    ``details["anchoring_detected"]`` is r > ``anchoring_threshold`` (0.3, the
    seed's "significantly positive").

    Discrepancy with the seed's worked example: for similarities
    (1.00, 0.72, 0.68, 0.75, 0.80) at orders 1..5 the seed states r = 0.15 and
    DQ-2 = 0.85. Pearson r actually is 0.791 over perspectives 2..5 (DQ-2 = 0.209, our
    definition) and -0.467 over perspectives 1..5 (DQ-2 = 0.533); Spearman gives 0.8 and
    -0.1. None reproduces 0.15, so the seed's number is treated as an
    arithmetic slip and the formula is followed.

    Missing data: a perspective with a missing similarity is dropped (its
    order with it); the first perspective's own is never needed.
    """
    sims = list(similarity_to_first)
    ords = list(range(1, len(sims) + 1)) if orders is None else list(orders)
    if len(ords) != len(sims):
        raise ValueError("orders and similarity_to_first differ in length")
    name = "DQ-2 anchoring elimination"
    n = len(sims)
    details: dict[str, Any] = {"n_perspectives": n}
    if n <= 1:
        return Estimate.undefined("fewer than 2 perspectives: insufficient data (seed: null)",
                                  n=n, method=name, details=details)
    if len({float(o) for o in ords}) == 1:
        details["rule"] = "parallel"
        return Estimate(1.0, n=n, method=f"{name}: parallel generation, 1.0 by construction",
                        details=details)
    later = [(float(o), float(s)) for o, s in zip(ords[1:], sims[1:]) if not is_missing(s)]
    details["n_dropped"] = (n - 1) - len(later)
    if not later:
        return Estimate.undefined("no similarity to the first perspective for any later one", n=n,
                                  method=name, details=details)
    o = np.array([p[0] for p in later])
    s = np.array([p[1] for p in later])
    if len(later) < min_points_for_correlation:
        details["rule"] = "direct similarity"
        value = 1.0 - float(np.mean(np.clip(s, 0.0, 1.0)))
        return Estimate(value, n=n, method=f"{name}: direct similarity to the first perspective "
                        f"({len(later) + 1} perspectives, too few for a correlation)",
                        details=details)
    if np.ptp(o) == 0:
        return Estimate.undefined("generation order does not vary after the first perspective: correlation is 0/0",
                                  n=n, method=name, details=details)
    if np.ptp(s) == 0:
        return Estimate.undefined("similarity to the first perspective is constant: correlation is 0/0",
                                  n=n, method=name, details=details)
    do, ds = o - o.mean(), s - s.mean()
    r = float(np.dot(do, ds) / math.sqrt(np.dot(do, do) * np.dot(ds, ds)))
    r = max(-1.0, min(1.0, r))
    details.update(rule="correlation", pearson_r=r, anchoring_detected=r > anchoring_threshold)
    return Estimate(1.0 - abs(r), n=n, method=f"{name}: 1 - |pearson r| over P2..Pn",
                    details=details)


# ---- DQ-3 -------------------------------------------------------------------------

CONCERN_TAXONOMIES: Mapping[str, tuple[str, ...]] = {
    "Technology Decision": ("Performance", "Cost", "Security", "Scalability", "Maintainability",
                            "Developer Experience", "Vendor Lock-in", "Migration Risk"),
    "Business Strategy": ("Revenue Impact", "Cost Impact", "Competitive Position",
                          "Customer Impact", "Employee Impact", "Regulatory Risk", "Timeline",
                          "Reversibility"),
    "Policy Decision": ("Economic Impact", "Social Impact", "Environmental Impact",
                        "Legal Compliance", "Implementation Feasibility", "Public Perception",
                        "Equity/Fairness", "Unintended Consequences"),
}
_DOMAIN_ALIASES = {
    "technology decision": "Technology Decision", "technology": "Technology Decision",
    "tech": "Technology Decision",
    "business strategy": "Business Strategy", "business": "Business Strategy",
    "policy decision": "Policy Decision", "policy": "Policy Decision",
}
UNKNOWN_DOMAIN = "unknown (union of all taxonomies)"

_ASSESSMENT_WORDS = {
    "addressed": 1.0, "yes": 1.0, "full": 1.0,
    "partial": 0.5, "mentioned": 0.5,
    "absent": 0.0, "no": 0.0, "not addressed": 0.0, "missing": 0.0,
}


def _norm(s: str) -> str:
    return " ".join(s.replace("_", " ").replace("-", " ").casefold().split())


def concerns_for(domain: str | None, custom_concerns: Sequence[str] = ()) -> tuple[list[str], str]:
    """The concern list for a domain, plus custom concerns; unknown domain -> union of all.

    Returns (concerns, resolved domain label). Case, '_' and '-' in the
    domain name do not matter ("technology_decision" works).
    """
    label = _DOMAIN_ALIASES.get(_norm(domain)) if domain else None
    if label is None:
        base: list[str] = []
        for concerns in CONCERN_TAXONOMIES.values():
            base.extend(c for c in concerns if c not in base)
        label = UNKNOWN_DOMAIN
    else:
        base = list(CONCERN_TAXONOMIES[label])
    seen = {_norm(c) for c in base}
    for c in custom_concerns:
        if _norm(c) not in seen:
            base.append(c)
            seen.add(_norm(c))
    return base, label


def _assessment_score(v: Any) -> float:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, str):
        key = _norm(v)
        if key not in _ASSESSMENT_WORDS:
            raise ValueError(f"unknown assessment {v!r}; use addressed / partial / absent")
        return _ASSESSMENT_WORDS[key]
    f = float(v)
    if f not in (0.0, 0.5, 1.0):
        raise ValueError(f"assessment {f} must be 0, 0.5 or 1")
    return f


def blind_spot_coverage(
    assessments: Mapping[str, Any],
    *,
    domain: str | None = None,
    custom_concerns: Sequence[str] = (),
) -> Estimate:
    """DQ-3 Blind-Spot Coverage = addressed concerns / relevant concerns.

    Definition (seed 001 §2.3): each concern of the domain's taxonomy (the
    three seed taxonomies verbatim in ``CONCERN_TAXONOMIES``; unknown or
    missing domain -> the union of all three; ``custom_concerns`` extend it)
    scores 1 if addressed substantively, 0.5 if mentioned but not analysed,
    0 if absent. ``assessments`` maps concern name (case-insensitive) to
    1 / 0.5 / 0, True / False, or "addressed" / "partial" / "absent"; it comes
    from a judge model (rubric of seed §2.3) or a rater.

    Missing data: a concern with no assessment (absent key or None, e.g. a
    judge_error) makes the result undefined, listing the concerns -- scoring
    it 0 would count a failed judgement as a blind spot. An assessment for
    a concern outside the list is an error (likely a typo).
    """
    concerns, label = concerns_for(domain, custom_concerns)
    by_norm = {_norm(k): v for k, v in assessments.items()}
    known = {_norm(c) for c in concerns}
    stray = sorted(k for k in assessments if _norm(k) not in known)
    if stray:
        raise ValueError(f"assessments for concerns not in the {label} list: {stray}")
    name = "DQ-3 blind-spot coverage"
    details: dict[str, Any] = {"domain": label, "n_concerns": len(concerns),
                               "custom_concerns": list(custom_concerns)}
    missing = [c for c in concerns if is_missing(by_norm.get(_norm(c)))]
    if missing:
        details["unassessed"] = missing
        return Estimate.undefined(f"{len(missing)} concern(s) not assessed: {', '.join(missing)}",
                                  n=len(concerns), method=name, details=details)
    scores = {c: _assessment_score(by_norm[_norm(c)]) for c in concerns}
    details["scores"] = scores
    return Estimate(sum(scores.values()) / len(concerns), n=len(concerns), method=name,
                    details=details)


# ---- weighted score ---------------------------------------------------------------

DEFAULT_WEIGHTS = (0.35, 0.30, 0.35)


def _as_part(x: Estimate | float | None, label: str) -> Estimate:
    if isinstance(x, Estimate):
        return x
    if x is None:
        return Estimate.undefined(f"{label} not available")
    return Estimate(float(x), n=1, method=label)


def decision_quality_score(
    dq1: Estimate | float | None,
    dq2: Estimate | float | None,
    dq3: Estimate | float | None,
    *,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
) -> Estimate:
    """DecisionQualityScore = w1 DQ-1 + w2 DQ-2 + w3 DQ-3 (default 0.35 / 0.30 / 0.35).

    Weights are used as given when they sum to 1, else normalised to sum 1.

    Undefined parts: the seed makes DQ-2 null for a single perspective, so an
    undefined DQ-2 is dropped and w1, w3 are renormalised to sum to 1
    (0.5 / 0.5 with the defaults); ``method`` and ``details`` say so. DQ-1 or
    DQ-3 undefined means the run has no perspectives or unjudged concerns,
    so the score is undefined rather than built from what is left.
    """
    w = [float(v) for v in weights]
    if len(w) != 3 or any(v < 0 for v in w) or sum(w) <= 0:
        raise ValueError("weights must be three non-negative numbers with a positive sum")
    parts = [_as_part(dq1, "DQ-1"), _as_part(dq2, "DQ-2"), _as_part(dq3, "DQ-3")]
    labels = ("DQ-1", "DQ-2", "DQ-3")
    details: dict[str, Any] = {"weights_given": w,
                               "parts": {lab: p.value for lab, p in zip(labels, parts)}}
    name = "weighted DQ score"
    for lab, p in ((labels[0], parts[0]), (labels[2], parts[2])):
        if not p.defined:
            return Estimate.undefined(f"{lab} is undefined ({p.undefined_reason})",
                                      method=name, details=details)
    use = [0, 1, 2] if parts[1].defined else [0, 2]
    total = sum(w[i] for i in use)
    if total <= 0:
        return Estimate.undefined("the defined parts all have weight 0", method=name,
                                  details=details)
    used = [w[i] / total if i in use else 0.0 for i in range(3)]
    details["weights_used"] = used
    value = sum(used[i] * parts[i].value for i in use)
    if not parts[1].defined:
        details["renormalised"] = True
        details["dq2_undefined_reason"] = parts[1].undefined_reason
        name += (f" (DQ-2 undefined: weights renormalised over DQ-1 and DQ-3 to "
                 f"{used[0]:.3g} / {used[2]:.3g})")
    return Estimate(value, n=3 if parts[1].defined else 2, method=name, details=details)


# ---- sequential vs parallel ---------------------------------------------------------

@dataclass(frozen=True)
class BaselineComparison:
    """Per-run DQ values of two conditions compared (seed 001 §5 step 8)."""

    sequential: Estimate          # mean with bootstrap CI
    parallel: Estimate
    difference: Estimate          # mean(parallel) - mean(sequential), bootstrap CI
    mann_whitney: Estimate        # rank-biserial r of parallel vs sequential; U and p in details
    cohens_d: Estimate            # parallel vs sequential, pooled SD
    n_undefined_sequential: int
    n_undefined_parallel: int

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(dict(vars(self)))


def _values(runs: Sequence[Estimate | float | None]) -> tuple[list[float], int]:
    vals, undefined = [], 0
    for r in runs:
        v = r.value if isinstance(r, Estimate) else r
        if v is None or is_missing(v):
            undefined += 1
        else:
            vals.append(float(v))
    return vals, undefined


def compare_sequential_parallel(
    sequential: Sequence[Estimate | float | None],
    parallel: Sequence[Estimate | float | None],
    *,
    confidence: float = 0.95,
    seed: int = 0,
) -> BaselineComparison:
    """Compare per-run DQ values (any of DQ-1/2/3 or the weighted score) between
    the sequential baseline and parallel generation.

    Reports each condition's mean with a seeded bootstrap CI, the mean
    difference parallel - sequential with a bootstrap CI, the Mann-Whitney U
    test (rank-biserial r; U and p in details) and Cohen's d.

    Missing data: undefined runs (None or an undefined Estimate) are left
    out of every statistic and counted in ``n_undefined_*``.
    """
    seq, seq_undef = _values(sequential)
    par, par_undef = _values(parallel)
    return BaselineComparison(
        sequential=mean_ci(seq, confidence=confidence, seed=seed),
        parallel=mean_ci(par, confidence=confidence, seed=seed),
        difference=mean_difference_ci(par, seq, confidence=confidence, seed=seed),
        mann_whitney=mann_whitney_u(par, seq),
        cohens_d=cohens_d(par, seq, confidence=confidence),
        n_undefined_sequential=seq_undef,
        n_undefined_parallel=par_undef,
    )
