"""Power analysis and planted-effect recovery on the statistics core: no model calls, seconds.

The planted model of one comparison A − B on one metric, per case c, condition k, replicate j, rater r:

    true score   T[c,k,j] = d·[k = A] + sqrt(ρ)·u[c] + sqrt(1 − ρ)·e[c,k,j]      (unit true-score SD)
    rater score  X[c,k,j,r] = T[c,k,j] + b[r] + sqrt((1 − icc) / icc)·η[c,k,j,r]

u, e, η standard normal; b a rater's fixed bias (cancels in a paired comparison); ρ the share of the
true-score variance that belongs to the case (`case_correlation`); icc the raters' planted reliability.
So d is the planted effect in true-score SDs (Cohen's d). The metric core scores an item by the mean over
raters and a case by the mean over its replicates, then computes the paired d_z over cases
(`cohens_d_paired`); the d_z it estimates is

    d_z = d / sqrt(2(1 − ρ)/m + 2(1 − icc)/(icc·R·m))      (m replicates, R raters)

A comparison is detected when the 95% CI of d_z excludes 0, which for the noncentral-t CI is exactly a
two-sided paired t test at α = 0.05 (at ncp = 0 the noncentral t is the central t); the power table
uses SciPy's `ttest_rel` over all simulations at once for speed, and `recovery` runs
`cohens_d_paired` itself on each simulation.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

DEFAULT_D = 0.5  # the project's choice when neither the study nor --effect plants one: Cohen's "medium"
DEFAULT_SIMS = 2000


@dataclass(frozen=True)
class Design:
    cases: int
    replicates: int = 1
    raters: int = 2
    icc: float = 0.7
    case_correlation: float = 0.5
    alpha: float = 0.05

    def implied_dz(self, d: float) -> float:
        m, r = self.replicates, max(1, self.raters)
        var = 2 * (1 - self.case_correlation) / m + 2 * (1 - self.icc) / (self.icc * r * m)
        return d / math.sqrt(var)


def simulate_differences(design: Design, d: float, sims: int, seed: int):
    """(sims, cases) per-case differences of the two conditions' case scores, as the core computes them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n, m, r = design.cases, design.replicates, max(1, design.raters)
    rho, noise = design.case_correlation, math.sqrt((1 - design.icc) / design.icc)
    u = rng.standard_normal((sims, n, 1, 1)) * math.sqrt(rho)
    e = rng.standard_normal((sims, n, 2, m)) * math.sqrt(1 - rho)
    eta = rng.standard_normal((sims, n, 2, m, r)) * noise
    bias = rng.standard_normal((sims, 1, 1, 1, r)) * 0.3  # raters' own biases: they cancel in a pair
    true = u + e + np.array([d, 0.0]).reshape(1, 1, 2, 1)
    scores = (true[..., None] + bias + eta).mean(axis=4).mean(axis=3)  # item: mean of raters; case: of replicates
    return scores[:, :, 0] - scores[:, :, 1]


def power(design: Design, d: float, sims: int = DEFAULT_SIMS, seed: int = 0) -> float:
    """P(the 95% CI of the paired d_z excludes 0 on the side of the planted effect)."""
    from scipy import stats

    diffs = simulate_differences(design, d, sims, seed)
    t, p = stats.ttest_rel(diffs, diffs * 0.0, axis=1)
    sign = 1.0 if d >= 0 else -1.0
    return float(((p < design.alpha) & (t * sign > 0)).mean())


def power_independent(n_per_group: int, d: float, sims: int = DEFAULT_SIMS, seed: int = 0,
                      alpha: float = 0.05) -> float:
    """The textbook two-sample design (no raters, no cases): power of a two-sided t test."""
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((sims, n_per_group)) + d
    b = rng.standard_normal((sims, n_per_group))
    t, p = stats.ttest_ind(a, b, axis=1)
    return float(((p < alpha) & (t > 0)).mean())


def analytic_power_paired(design: Design, d: float) -> float:
    """The exact power of the paired t test at the implied d_z (noncentral t), for checking the simulation."""
    from scipy import stats

    n = design.cases
    df, ncp = n - 1, design.implied_dz(d) * math.sqrt(n)
    crit = stats.t.ppf(1 - design.alpha / 2, df)
    return float(stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp))


@dataclass
class Recovery:
    planted_d: float
    implied_dz: float
    sims: int
    coverage: float          # share of CIs that contain the implied d_z
    mean_estimate: float
    detected: float          # share of CIs that exclude 0 on the planted side

    def to_dict(self) -> dict:
        return asdict(self)


def recovery(design: Design, d: float, sims: int = 200, seed: int = 0) -> Recovery:
    """Simulate the design `sims` times and estimate each with the metric core's `cohens_d_paired`."""
    from workbench.metrics.effect_sizes import cohens_d_paired

    diffs = simulate_differences(design, d, sims, seed)
    target = design.implied_dz(d)
    covered = detected = 0
    total = 0.0
    for row in diffs:
        est = cohens_d_paired(list(row), [0.0] * len(row))
        total += est.value
        covered += est.ci_low <= target <= est.ci_high
        detected += (est.ci_low > 0) if d >= 0 else (est.ci_high < 0)
    return Recovery(d, target, sims, covered / sims, total / sims, detected / sims)


# --- a study's pre-registered comparisons ------------------------------------------------------------

CASE_GRID = (5, 10, 15, 20, 30, 40, 60, 80)


def study_power(definition: dict, effects: dict[str, float], sims: int = DEFAULT_SIMS,
                comparisons: list[str] | None = None, grid: tuple[int, ...] = CASE_GRID) -> dict:
    """Power of each comparison (A:B:metric) at the study's cases, replicates and raters, and a
    table of power against the number of cases. Effects: `--effect`, else the planted ones of
    [simulation] (effects[A] − effects[B]), else DEFAULT_D."""
    from workbench.simmodel.params import params_of

    from workbench.protocol.registry import protocol_of

    params = params_of(definition)
    n_cases = protocol_of(definition).units(definition) or 1
    # raters: 0 when the study has none (faultline: its metrics are measured once per run, by its own
    # pipeline); the simulation then draws one measurement per run with the same reliability (max(1, raters))
    design = Design(cases=n_cases, replicates=int(definition.get("replicates") or 1),
                    raters=len(definition.get("raters") or []), icc=params["rater_icc"],
                    case_correlation=params["case_correlation"])
    rows = []
    for label in comparisons or []:
        a, b, metric = (label.split(":") + ["anticipation"])[:3]
        planted = params["humility" if "humility" in metric else "effects"]
        if label in effects:
            d, source = effects[label], "--effect"
        elif f"{a}:{b}" in effects:
            d, source = effects[f"{a}:{b}"], "--effect"
        elif "simulation" in definition and (a in planted or b in planted):
            d, source = planted.get(a, 0.0) - planted.get(b, 0.0), "[simulation]"
        else:
            d, source = DEFAULT_D, "default (Cohen's medium)"
        seed = abs(hash_label(label)) % (2 ** 31)
        at_n = power(design, d, sims, seed) if design.cases >= 2 else None
        curve = {n: power(Design(n, design.replicates, design.raters, design.icc, design.case_correlation),
                          d, sims, seed) for n in grid}
        rows.append({"comparison": f"{a}:{b}:{metric}", "d": d, "source": source,
                     "implied_dz": design.implied_dz(d), "power": at_n, "power_by_cases": curve})
    return {"design": asdict(design), "sims": sims, "comparisons": rows, "case_grid": list(grid),
            "method": "paired d_z over cases, detected when its 95% CI excludes 0 (two-sided paired t)"}


def measurement_text(design: dict) -> str:
    """How each run's score is measured in the generic simulated design, in words (its `design_text`): by
    the study's raters, or, with none, once per run by the protocol's own measure."""
    if design["raters"] >= 1:
        return f"{design['raters']} rater(s) at ICC {design['icc']:.2f}"
    return f"no raters (each run's score is measured once, at an assumed reliability of {design['icc']:.2f})"


def hash_label(label: str) -> int:
    import hashlib

    return int(hashlib.sha256(label.encode()).hexdigest()[:8], 16)


def power_document(definition: dict, effects: dict[str, float] | None = None, sims: int = DEFAULT_SIMS,
                   grid: tuple[int, ...] = CASE_GRID) -> dict:
    """The power document of `workbench --batch power`, the Studies screen's panel and the report's
    "Designed power" line (`grid=()`: the study's N only). The protocol computes it on its own metrics
    when it can (`StudyProtocol.power_document`, e.g. faultline from its planted effects); otherwise the
    generic design here: the study's pre-registered comparisons (plus any `A:B:METRIC` named in `effects`),
    each at the study's N and against the number of cases. No comparison at all: `comparisons` is empty.
    Every document has `design_text`, `size_text` (its N in words), `unit`, `effect_name`, `method`,
    `comparisons` (each with `comparison`, `effect`, `source`, `power`, `power_by_cases`) and `case_grid`;
    a ValueError says what the protocol cannot take."""
    from workbench.protocol.registry import protocol_of

    effects = effects or {}
    doc = protocol_of(definition).power_document(definition, effects, sims, tuple(grid))
    if doc is None:
        doc = generic_document(definition, effects, sims, tuple(grid))
    doc["study"] = definition.get("name")
    return doc


def generic_document(definition: dict, effects: dict[str, float], sims: int, grid: tuple[int, ...]) -> dict:
    """The shared design (a score per run, its raters, Cohen's d) for a protocol without its own."""
    from workbench.simulation.comparisons import preregistered

    comparisons = list(dict.fromkeys(preregistered(definition) + [k for k in effects if k.count(":") == 2]))
    if not comparisons:
        return {"design": None, "sims": sims, "comparisons": [], "case_grid": list(grid)}
    doc = study_power(definition, effects, sims, comparisons, grid)
    d = doc["design"]
    doc.update(design_text=f"{d['cases']} case(s), {d['replicates']} replicate(s), {measurement_text(d)}, "
                           f"case correlation {d['case_correlation']:.2f}",
               size_text=f"{d['cases']} case(s)", unit="cases", effect_name="d",
               effect_meaning="Cohen's d in true-score SDs")
    for row in doc["comparisons"]:
        row["effect"] = row["d"]
    return doc
