"""Decision quality (seed 001) of a study's runs, from the perspectives they emitted.

Per run (every run with `perspective` events; DQ-3 also for runs without):

* **Perspectives**: the run's `perspective` events (payload text, order,
  parallel), sorted by (order, event sequence). B3 emits them sequentially
  (order 1..n), C1 its respondents and C2 its members' openings in parallel.
* **DQ-1** perspective diversity: embeddings of the perspective texts
  (default: the bundled MiniLM, cached in the store), cosine similarity
  matrix, independence threshold 0.65, expected count from the case's
  complexity class (low 3 / medium 5 / high 8; a case without a class is
  treated as medium and says so).
* **DQ-2** anchoring elimination: similarity of each perspective to the first;
  when every perspective is marked parallel, all orders are 1 and DQ-2 = 1.0
  by construction; one perspective -> undefined (seed: null); two or three ->
  direct similarity (see ``anchoring_elimination``).
* **DQ-3** blind-spot coverage of the run's final output against the case's
  concern taxonomy (``cases.concern_domain``: technology / business / policy;
  unknown -> the union), plus the study's ``[metrics] custom_concerns``;
  1 / 0.5 / 0 per concern. Assessments come from raters (source "rater") or
  the concern model (source "model", see ``concern_coverage``). With
  ``concern_source="auto"`` a run uses its raters' assessments when at least
  one rater covered every concern (several raters: the mean of their
  coverages), else the model's. A failed model assessment leaves the concern
  unassessed, so DQ-3 is undefined for that run -- never a 0.
* **Weighted score** 0.35 DQ-1 + 0.30 DQ-2 + 0.35 DQ-3 (DQ-2 undefined ->
  renormalised over DQ-1 and DQ-3).

Per condition: the mean over cases of each case's mean over its runs, with a
95% bootstrap CI over cases, the independent unit (undefined runs left out and
counted; none under the project's minimum of cases). Baseline (seed 001 §5): sequential = B3 runs vs
parallel = C1 and C2 runs (P1 replicates are left out so a case is not
counted three times), by ``compare_sequential_parallel``.

Blinded studies: only the condition-free mean over all runs; no per-run or
per-condition line (a run id may name its condition).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.metrics.decision_quality import (
    DEFAULT_WEIGHTS,
    EXPECTED_PERSPECTIVES,
    INDEPENDENCE_THRESHOLD,
    BaselineComparison,
    anchoring_elimination,
    blind_spot_coverage,
    compare_sequential_parallel,
    concerns_for,
    decision_quality_score,
    perspective_diversity,
)
from workbench.metrics.descriptive import mean_ci
from workbench.metrics.embeddings import cosine_similarity_matrix
from workbench.metrics.estimate import Estimate

from .study_data import ConcernScore, Perspective, StudyData, sorted_conditions
from .tables import BLINDED_LABEL

SEQUENTIAL_CONDITIONS = ("B3",)
PARALLEL_CONDITIONS = ("C1", "C2")
DQ_PARTS = ("dq1", "dq2", "dq3", "weighted")
DQ_LABELS = {"dq1": "DQ-1 diversity", "dq2": "DQ-2 anchoring", "dq3": "DQ-3 coverage", "weighted": "DQ weighted"}
# Seed 001's baseline targets (§2.1-2.3 "Baseline Target"): (naive / sequential, ThinkTank / parallel) ranges.
# The seed gives none for the weighted score.
SEED_TARGETS = {"dq1": ((0.3, 0.5), (0.7, 0.9)), "dq2": ((0.5, 0.7), (0.9, 1.0)), "dq3": ((0.4, 0.6), (0.7, 0.9))}


def target_verdict(est: Estimate, target: tuple[float, float]) -> str:
    """An observed mean against a seed target range: "within", "below", "above" or "undefined"."""
    if not est.defined:
        return "undefined"
    lo, hi = target
    return "below" if est.value < lo else "above" if est.value > hi else "within"


def targets_text() -> str:
    return "; ".join(f"{DQ_LABELS[p]} sequential {s[0]:g}-{s[1]:g}, parallel {q[0]:g}-{q[1]:g}"
                     for p, (s, q) in SEED_TARGETS.items())


@dataclass(frozen=True)
class RunDQ:
    run_id: str
    case_id: str
    condition: str | None
    n_perspectives: int
    generation: str                 # parallel | sequential | none
    dq1: Estimate
    dq2: Estimate
    dq3: Estimate
    weighted: Estimate
    similarity: tuple[tuple[float, ...], ...] = ()
    agents: tuple[str, ...] = ()
    concern_source: str = "none"    # rater | model | none
    concerns: tuple[tuple[str, float | None], ...] = ()
    unsplit: bool = False           # its reply could not be split into perspectives: out of the DQ-1/DQ-2 means

    def part(self, name: str) -> Estimate:
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "case_id": self.case_id, "condition": self.condition,
                "n_perspectives": self.n_perspectives, "generation": self.generation,
                **{p: self.part(p).to_dict() for p in DQ_PARTS},
                "similarity": [list(r) for r in self.similarity], "concern_source": self.concern_source,
                "concerns": dict(self.concerns), "unsplit": self.unsplit}


@dataclass(frozen=True)
class DQRow:
    group: str                      # a condition, or "all"
    n_runs: int
    parts: dict[str, Estimate]
    # seed 001 §5 step 8 asks for mean and SD per condition: the sample SD (n - 1) over runs with a value
    sd: dict[str, float | None] = field(default_factory=dict)
    # seed 001 §2.2 step 4: runs whose r(order, similarity to first) > 0.3, of the runs where r was computed
    anchoring_flagged: int = 0
    anchoring_tested: int = 0
    unsplit: int = 0                # runs whose reply could not be split into perspectives (flagged)

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "n_runs": self.n_runs, **{k: v.to_dict() for k, v in self.parts.items()},
                "sd": dict(self.sd), "anchoring_flagged": self.anchoring_flagged,
                "anchoring_tested": self.anchoring_tested, "unsplit": self.unsplit}


@dataclass(frozen=True)
class DQReport:
    runs: tuple[RunDQ, ...]
    rows: tuple[DQRow, ...]
    baseline: dict[str, BaselineComparison]
    notes: tuple[str, ...]
    blinded: bool
    encoded: int = 0                # texts the embedder had to encode (0 with a warm cache)

    @property
    def unsplit_note(self) -> str | None:
        """The flag every DQ table carries when a multi-perspective reply could not be split."""
        n = sum(1 for r in self.runs if r.unsplit)
        if not n:
            return None
        where = "" if self.blinded else " (" + ", ".join(
            f"{r.group} {r.unsplit}" for r in self.rows if r.unsplit and r.group != "all") + ")"
        return (f"FLAGGED: {n} run(s){where} whose reply could not be split into the perspectives the prompt asked "
                "for (no layout read, or a count other than asked): DQ-1 and DQ-2 leave them out of every mean and "
                "the baseline; none is counted as one perspective, nor as the count read.")

    def to_dict(self) -> dict[str, Any]:
        return {"runs": [] if self.blinded else [r.to_dict() for r in self.runs],
                "rows": [r.to_dict() for r in self.rows], "unsplit_note": self.unsplit_note,
                "baseline": {k: v.to_dict() for k, v in self.baseline.items()},
                "notes": list(self.notes), "label": BLINDED_LABEL if self.blinded else None,
                "texts_encoded": self.encoded}


# --- DQ-3 assessments ---------------------------------------------------------------------------------

def concern_list(data: StudyData, case_id: str) -> tuple[list[str], str]:
    case = data.cases.get(case_id)
    return concerns_for(case.concern_domain if case else None, data.custom_concerns)


def _coverage(assessments: dict[str, float | None], concerns: list[str], domain: str | None,
              custom: Sequence[str]) -> Estimate:
    known = {c.casefold() for c in concerns}
    kept = {k: v for k, v in assessments.items() if k.casefold() in known}
    return blind_spot_coverage(kept, domain=domain, custom_concerns=custom)


def run_coverage(data: StudyData, run_id: str, rows: Sequence[ConcernScore], *,
                 source: str = "auto") -> tuple[Estimate, str, dict[str, float | None]]:
    """DQ-3 for one run from its concern rows; returns (estimate, source used, assessments used)."""
    run = data.runs.get(run_id)
    case = data.cases.get(run.case_id) if run else None
    domain = case.concern_domain if case else None
    concerns, _ = concerns_for(domain, data.custom_concerns)
    by_rater: dict[str, dict[str, float | None]] = defaultdict(dict)
    model: dict[str, float | None] = {}
    for r in rows:
        if r.source == "rater":
            by_rater[r.rater or "?"][r.concern] = r.value
        elif r.source == "model":
            model[r.concern] = r.value
    if source in ("auto", "rater"):
        covs = {name: _coverage(a, concerns, domain, data.custom_concerns) for name, a in sorted(by_rater.items())}
        defined = {k: v for k, v in covs.items() if v.defined}
        if defined:
            if len(defined) == 1:
                name, est = next(iter(defined.items()))
                return est, "rater", dict(by_rater[name])
            value = sum(e.value for e in defined.values()) / len(defined)
            return (Estimate(value, n=len(concerns), method="DQ-3 blind-spot coverage (mean over raters)",
                             details={"raters": sorted(defined)}), "rater", {})
        if source == "rater":
            return (Estimate.undefined("no rater assessed every concern of this run", method="DQ-3"), "none", {})
    if model:
        return _coverage(model, concerns, domain, data.custom_concerns), "model", model
    return (Estimate.undefined("concerns not assessed yet (`metrics STUDY --assess-concerns`, or a rater)",
                               method="DQ-3 blind-spot coverage"), "none", {})


# --- per run ------------------------------------------------------------------------------------------

def _perspectives_by_run(data: StudyData) -> dict[str, list[Perspective]]:
    out: dict[str, list[Perspective]] = defaultdict(list)
    for p in data.perspectives:
        out[p.run_id].append(p)  # an unsplit reply's flag rides on its one event (see run_decision_quality)
    # parallel perspectives share order 1 and arrive in whatever order their calls finish: the agent (a member,
    # a respondent) keeps the matrix the same from one store to the next
    return {k: sorted(v, key=lambda p: (p.order, p.agent or "", p.seq)) for k, v in out.items()}


def run_decision_quality(data: StudyData, embedder, *, threshold: float = INDEPENDENCE_THRESHOLD,
                         weights: Sequence[float] = DEFAULT_WEIGHTS,
                         concern_source: str = "auto") -> list[RunDQ]:
    """DQ-1/2/3 and the weighted score for every finished run that has perspectives or an output."""
    persp = _perspectives_by_run(data)
    concern_rows: dict[str, list[ConcernScore]] = defaultdict(list)
    for c in data.concern_scores:
        concern_rows[c.run_id].append(c)
    run_ids = sorted((set(persp) | set(data.outputs)) & set(data.runs))
    unsplit = {rid for rid in run_ids if any(p.unsplit for p in persp.get(rid, []))}
    persp = {rid: ps for rid, ps in persp.items() if rid not in unsplit}  # never one perspective
    texts = [p.text for rid in run_ids for p in persp.get(rid, [])]
    vectors = embedder.embed(texts) if texts else np.empty((0, 0))
    out, offset = [], 0
    for rid in run_ids:
        run = data.runs[rid]
        ps = persp.get(rid, [])
        n = len(ps)
        vec = vectors[offset:offset + n]
        offset += n
        case = data.cases.get(run.case_id)
        complexity = case.complexity if case and case.complexity in EXPECTED_PERSPECTIVES else "medium"
        if n:
            sim = cosine_similarity_matrix(vec)
            dq1 = perspective_diversity(sim, complexity=complexity, threshold=threshold)
            parallel = all(p.parallel for p in ps)
            orders = [1] * n if parallel else [p.order for p in ps]
            dq2 = anchoring_elimination([float(x) for x in sim[0]], orders)
            generation = "parallel" if parallel else "sequential"
        else:
            sim = np.empty((0, 0))
            why = ("flagged: its reply could not be split into perspectives" if rid in unsplit
                   else "the run emitted no perspectives")
            dq1 = Estimate.undefined(why, method="DQ-1 perspective diversity")
            dq2 = Estimate.undefined(why, method="DQ-2 anchoring elimination")
            generation = "unsplit" if rid in unsplit else "none"
        if rid in data.outputs:
            dq3, source, used = run_coverage(data, rid, concern_rows.get(rid, []), source=concern_source)
        else:
            dq3, source, used = Estimate.undefined("the run has no final output", method="DQ-3"), "none", {}
        weighted = decision_quality_score(dq1, dq2, dq3, weights=weights)
        out.append(RunDQ(rid, run.case_id, run.condition, n, generation, dq1, dq2, dq3, weighted,
                         tuple(tuple(float(x) for x in row) for row in sim),
                         tuple(p.agent or f"P{i + 1}" for i, p in enumerate(ps)), source,
                         tuple(sorted(used.items())), rid in unsplit))
    return out


def _sd(values: list[float]) -> float | None:
    if len(values) < 2:
        return None  # one run has no spread
    m = sum(values) / len(values)
    return (sum((v - m) ** 2 for v in values) / (len(values) - 1)) ** 0.5


def _case_means(runs: Sequence[RunDQ], part: str) -> list[float]:
    """One value per case, the mean of its runs' defined values: the case is the independent unit (P1's three
    replicates of one case are not three cases), so the bootstrap resamples cases (issue 42)."""
    per_case: dict[str, list[float]] = defaultdict(list)
    for r in runs:
        if r.part(part).defined:
            per_case[r.case_id].append(r.part(part).value)
    return [sum(v) / len(v) for v in per_case.values()]


def _summary_row(group: str, runs: Sequence[RunDQ]) -> DQRow:
    parts, sds = {}, {}
    tested = [r for r in runs if "anchoring_detected" in (r.dq2.details or {})]
    flagged = sum(1 for r in tested if r.dq2.details["anchoring_detected"])
    for p in DQ_PARTS:
        values = [r.part(p).value for r in runs if r.part(p).defined]
        sds[p] = _sd(values)
        if values:
            parts[p] = mean_ci(_case_means(runs, p))
            continue
        reasons = Counter(r.part(p).undefined_reason for r in runs)
        why = reasons.most_common(1)[0][0] if reasons else "no runs"
        parts[p] = Estimate.undefined(f"no run with a defined value; e.g. {why}" if len(reasons) > 1 else why,
                                      method="mean")
    return DQRow(group, len(runs), parts, sds, flagged, len(tested), sum(1 for r in runs if r.unsplit))


def decision_quality_report(data: StudyData, embedder, *, threshold: float = INDEPENDENCE_THRESHOLD,
                            weights: Sequence[float] = DEFAULT_WEIGHTS, concern_source: str = "auto") -> DQReport:
    before = getattr(embedder, "encoded_count", 0)
    runs = run_decision_quality(data, embedder, threshold=threshold, weights=weights,
                                concern_source=concern_source)
    encoded = getattr(embedder, "encoded_count", 0) - before
    notes = [f"Embeddings: {getattr(embedder, 'model', '?')}; independence threshold {threshold}; "
             f"weights {'/'.join(f'{w:g}' for w in weights)}. Cells: mean over cases of each case's runs [95% bootstrap CI over cases]; "
             "runs with an undefined value are left out of that column."]
    if data.blinded:
        rows = (_summary_row("all", runs),)
        notes.insert(0, f"{BLINDED_LABEL}: only the mean over all runs is shown.")
        return DQReport(tuple(runs), rows, {}, tuple(notes), True, encoded)
    by_cond: dict[str, list[RunDQ]] = defaultdict(list)
    for r in runs:
        by_cond[r.condition or "?"].append(r)
    rows = tuple(_summary_row(c, by_cond[c]) for c in sorted_conditions(list(by_cond)))
    rows += (_summary_row("all", runs),)
    seq = [r for r in runs if r.condition in SEQUENTIAL_CONDITIONS and r.n_perspectives]
    par = [r for r in runs if r.condition in PARALLEL_CONDITIONS and r.n_perspectives]
    baseline = {}
    if seq or par:
        # One value per case on each side (the mean of its runs there): a case's C1 and C2 runs are one unit,
        # never two, for the bootstrap, Mann-Whitney and d alike (issue 42: every statistic over the unit)
        baseline = {p: compare_sequential_parallel(_case_means(seq, p), _case_means(par, p)) for p in DQ_PARTS}
        notes.append("Baseline: sequential = B3 runs vs parallel = C1 and C2 runs, each side one value per case "
                     "(the mean of that case's runs there: the case is the unit, so C1 and C2 are pooled within "
                     "it), difference = parallel - sequential; Mann-Whitney rank-biserial r; Cohen's d, "
                     "independent.")
    return DQReport(tuple(runs), rows, baseline, tuple(notes), False, encoded)
