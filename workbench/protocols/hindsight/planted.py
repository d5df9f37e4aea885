"""A hindsight `sim` study's planted effects beside what its scores recovered (the report's "Planted vs
recovered" section).

The simulator names each outcome point as a risk (and gives each caveat) with probability Φ(latent), the
latent being baseline + the condition's planted effect + unit-variance case and run parts; so a condition's
expected share is Φ((baseline + effect) / √2). Read back from the study's scores (raters' and judges'
current scores of the condition's non-pilot items, as a share of each criterion's range: the rubric
`anticipation` for `effects`, `epistemic-humility` for `humility`), the effect against a reference
condition with none planted is √2·(Φ⁻¹(share) − Φ⁻¹(reference share)): the planted rater and judge
biases cancel in it, their rounding and clipping do not quite. CI: SciPy's BCa bootstrap over cases, the
independent unit (paired, seeded), none under `metrics.descriptive.MIN_BOOTSTRAP_UNITS` cases (issue 42: two
cases gave −0.609 [−4.252, 3.034]). A blinded study gives no rows: a report read before unblinding names no condition.
"""

from __future__ import annotations

import math

from workbench.protocol.base import PlantedValue

READ_AS = (("effects", "anticipation"), ("humility", "epistemic-humility"))
CLIP = 0.005   # how far inside (0, 1) a mean share is kept for its probit


def case_shares(data, rubric: str, condition: str) -> dict[str, float]:
    """case → mean share of the range scored on `rubric` for `condition`'s non-pilot items (every evaluator)."""
    sums: dict[str, list[float]] = {}
    for r in [*data.scores, *data.verdicts]:
        item = data.items.get(r.item_id)
        info = data.rubrics.get(r.rubric_hash)
        if (r.value is None or item is None or item.pilot or item.condition != condition or info is None
                or info.rubric_id != rubric):
            continue
        crit = info.criterion(r.criterion)
        if crit is None or crit.max <= crit.min:
            continue
        sums.setdefault(item.case_id, []).append((r.value - crit.min) / (crit.max - crit.min))
    return {case: sum(v) / len(v) for case, v in sums.items()}


def read_back(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, float | None, float | None, str]:
    """√2·(Φ⁻¹(mean a) − Φ⁻¹(mean b)) over the cases both have, with a paired BCa bootstrap CI over cases (the
    independent unit), none under the project's minimum of cases; the last element says why there is none."""
    import numpy as np

    from workbench.metrics.descriptive import too_few_units

    cases = sorted(set(a) & set(b))
    if not cases:
        return None, None, None, ""
    x, y = np.array([a[c] for c in cases]), np.array([b[c] for c in cases])
    value = float(_effect(x, y))
    if small := too_few_units(len(cases)):
        return value, None, None, f"{small} (cases)"
    lo, hi = _bca(x, y)
    return value, lo, hi, "" if lo is not None else "bootstrap interval not finite"


def _effect(p, q, axis=-1):
    import numpy as np
    from scipy import stats

    def probit(shares):  # a mean share of 0 or 1 has no probit: kept just inside
        return stats.norm.ppf(np.clip(np.mean(shares, axis=axis), CLIP, 1 - CLIP))
    return math.sqrt(2) * (probit(p) - probit(q))


def _bca(x, y) -> tuple[float | None, float | None]:
    """SciPy's paired BCa interval of the effect (cases resampled together, seeded)."""
    import warnings

    import numpy as np
    from scipy import stats

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap((x, y), _effect, paired=True, vectorized=True, n_resamples=2000, method="BCa",
                              rng=np.random.default_rng(0))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else (None, None)


def planted_values(db, study_id: str, definition: dict) -> list[PlantedValue] | None:
    """None: nothing planted on a condition of the study; []: planted, but the study is blinded."""
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.simmodel.params import params_of

    params = params_of(definition)
    conditions = list(definition.get("conditions") or [])
    if not any(c in conditions for key, _ in READ_AS for c in params.get(key) or {}):
        return None
    data = load_study_data(db, study_id)
    if data.blinded:
        return []
    rows = []
    for key, rubric in READ_AS:
        planted = {c: v for c, v in (params.get(key) or {}).items() if c in conditions}
        reference = next((c for c in conditions if not planted.get(c)), None)
        ref_shares = case_shares(data, rubric, reference) if reference else {}
        for cond, value in planted.items():
            measure = (f"{rubric} scores of {cond} against {reference} (planted 0): √2·Δ probit of the mean "
                       "share of the range" if reference else f"{rubric} scores: no condition without a planted "
                       "effect to read against")
            row = PlantedValue(f"{key}.{cond}", value, measure)
            if reference:
                row.recovered, row.ci_low, row.ci_high, row.note = read_back(case_shares(data, rubric, cond),
                                                                             ref_shares)
                if row.recovered is None:
                    row.note = f"no case has {rubric} scores for both {cond} and {reference}"
            rows.append(row)
    return rows
