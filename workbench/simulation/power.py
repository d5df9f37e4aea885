"""Power analysis and planted-effect recovery on the statistics core: no model calls, seconds.

The planted model of one comparison A − B on one metric, per case c, condition k, replicate j, evaluator r:

    true score   T[c,k,j] = d·[k = A] + sqrt(ρ)·u[c] + sqrt(1 − ρ)·e[c,k,j]      (unit true-score SD)
    score        X[c,k,j,r] = T[c,k,j] + b[r] + sqrt((1 − icc) / icc)·η[c,k,j,r]

u, e, η standard normal; b an evaluator's fixed bias (a shift of every score, so it changes no difference);
ρ the share of the true-score variance that belongs to the case (`case_correlation`); icc the evaluators'
planted reliability. The evaluators are the study's primary evaluator (`workbench.studies.evaluator`): its
human raters at `rater_icc`, or one LLM judge at `judge_icc`. So d is the planted effect in true-score SDs.
The metric core scores an item by the mean over raters (a judge: its verdict) and a case by the mean over its
replicates, then Table 4 computes Cohen's d over cases, the two conditions' cases as independent groups:

    d(Table 4) = d / sqrt(ρ + (1 − ρ)/m + (1 − icc)/(icc·R·m))      (m replicates, R raters)

(d_z over the shared cases, printed beside it, estimates d / sqrt(2(1 − ρ)/m + 2(1 − icc)/(icc·R·m)).)
A comparison is detected when Table 4's 95% CI of d excludes 0 on the planted side. That CI is a bootstrap,
too slow to redraw for thousands of simulations, so the power table decides by the two-sample t test on the
same case scores (SciPy's `ttest_ind` over all simulations at once), which the bootstrap percentile CI of d
follows; `recovery` runs the core's `cohens_d(..., ci_method="bootstrap")` itself on each simulation and
reports how often the two agree. Under the minimum of units for a bootstrap CI (`MIN_BOOTSTRAP_UNITS`
cases) Table 4 prints no CI, so nothing is detected: power 0.
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

    def _noise(self) -> float:
        return (1 - self.icc) / (self.icc * max(1, self.raters) * self.replicates)

    def implied_d(self, d: float) -> float:
        """The Cohen's d Table 4 estimates: the planted d over the SD of a case's score under one condition."""
        rho, m = self.case_correlation, self.replicates
        return d / math.sqrt(rho + (1 - rho) / m + self._noise())

    def implied_dz(self, d: float) -> float:
        """The d_z printed beside it: the planted d over the SD of a case's difference."""
        return d / math.sqrt(2 * (1 - self.case_correlation) / self.replicates + 2 * self._noise())


def simulate_case_scores(design: Design, d: float, sims: int, seed: int):
    """(sims, cases, 2): each case's score under A and under B, as the core computes them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n, m, r = design.cases, design.replicates, max(1, design.raters)
    rho, noise = design.case_correlation, math.sqrt((1 - design.icc) / design.icc)
    u = rng.standard_normal((sims, n, 1, 1)) * math.sqrt(rho)
    e = rng.standard_normal((sims, n, 2, m)) * math.sqrt(1 - rho)
    eta = rng.standard_normal((sims, n, 2, m, r)) * noise
    bias = rng.standard_normal((sims, 1, 1, 1, r)) * 0.3  # evaluators' own biases: a shift of every score
    true = u + e + np.array([d, 0.0]).reshape(1, 1, 2, 1)
    return (true[..., None] + bias + eta).mean(axis=4).mean(axis=3)  # item: mean of raters; case: of replicates


def power(design: Design, d: float, sims: int = DEFAULT_SIMS, seed: int = 0) -> float:
    """P(Table 4's 95% CI of Cohen's d excludes 0 on the side of the planted effect)."""
    from scipy import stats

    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    if design.cases < MIN_BOOTSTRAP_UNITS:
        return 0.0
    scores = simulate_case_scores(design, d, sims, seed)
    t, p = stats.ttest_ind(scores[:, :, 0], scores[:, :, 1], axis=1)
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


@dataclass
class Recovery:
    planted_d: float
    implied_d: float         # the Cohen's d Table 4 estimates
    implied_dz: float
    sims: int
    coverage: float          # share of bootstrap CIs of d that contain the implied d
    mean_estimate: float     # mean Cohen's d
    detected: float          # share of CIs that exclude 0 on the planted side
    agrees_with_t: float     # share of simulations where that detection equals the t test's (the power table's)

    def to_dict(self) -> dict:
        return asdict(self)


def recovery(design: Design, d: float, sims: int = 200, seed: int = 0, n_resamples: int = 1999) -> Recovery:
    """Simulate the design `sims` times and estimate each with Table 4's statistic, the core's Cohen's d with
    its bootstrap CI (`n_resamples` per simulation; a design under the minimum of units has no CI)."""
    from scipy import stats

    from workbench.metrics.effect_sizes import cohens_d

    scores = simulate_case_scores(design, d, sims, seed)
    target = design.implied_d(d)
    covered = detected = agree = 0
    total = 0.0
    for k, case_scores in enumerate(scores):
        a, b = case_scores[:, 0], case_scores[:, 1]
        est = cohens_d(list(a), list(b), ci_method="bootstrap", n_resamples=n_resamples, seed=seed + k)
        total += est.value
        found = False
        if est.has_ci:
            covered += est.ci_low <= target <= est.ci_high
            found = (est.ci_low > 0) if d >= 0 else (est.ci_high < 0)
        detected += found
        t, p = stats.ttest_ind(a, b)
        by_t = bool(est.has_ci) and p < design.alpha and (t > 0 if d >= 0 else t < 0)
        agree += int(found == by_t)
    return Recovery(d, target, design.implied_dz(d), sims, covered / sims, total / sims, detected / sims,
                    agree / sims)


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
    raters, icc = measurement_of(definition, params)
    design = Design(cases=n_cases, replicates=int(definition.get("replicates") or 1), raters=raters, icc=icc,
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
                     "implied_d": design.implied_d(d), "power": at_n, "power_by_cases": curve})
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    return {"design": asdict(design), "sims": sims, "comparisons": rows, "case_grid": list(grid),
            "evaluator": evaluator_text(definition),
            "method": "Table 4's Cohen's d over cases, detected when its 95% CI excludes 0 (two-sample t); "
                      f"no CI under {MIN_BOOTSTRAP_UNITS} cases"}


def measurement_of(definition: dict, params: dict) -> tuple[int, float]:
    """(evaluators per item, their reliability) for the study's primary evaluator: its raters at `rater_icc`,
    or one judge at `judge_icc`. A study with neither (faultline: its metrics are measured once per run by its
    own pipeline) gets 0 raters; the simulation then draws one measurement per run at `rater_icc`."""
    from workbench.studies.evaluator import evaluators_of

    evaluators = evaluators_of(definition)
    if evaluators and evaluators[0].is_judge:
        return 1, params["judge_icc"]
    return len(definition.get("raters") or []), params["rater_icc"]


def evaluator_text(definition: dict) -> str:
    from workbench.studies.evaluator import describe

    return describe(definition)


def measurement_text(design: dict, judge: bool = False) -> str:
    """How each run's score is measured in the generic simulated design, in words (its `design_text`): by
    the study's raters or its judge (the primary evaluator), or, with none, once per run by the protocol's
    own measure."""
    if judge:
        return f"one LLM judge (the primary evaluator) at ICC {design['icc']:.2f}"
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
    from workbench.studies.evaluator import evaluators_of

    evaluators = evaluators_of(definition)
    judge = bool(evaluators) and evaluators[0].is_judge
    doc.update(design_text=f"{d['cases']} case(s), {d['replicates']} replicate(s), {measurement_text(d, judge)}, "
                           f"case correlation {d['case_correlation']:.2f}",
               size_text=f"{d['cases']} case(s)", unit="cases", effect_name="d",
               effect_meaning="planted Cohen's d in true-score SDs (d(T4): the d over cases Table 4 estimates)")
    for row in doc["comparisons"]:
        row["effect"] = row["d"]
    return doc
