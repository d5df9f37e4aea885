"""Seed 000 §XII: Tables 1-4 of the hindsight protocol, from a :class:`StudyData`.

Unit of analysis (the choice every table below shares)
------------------------------------------------------
* A **rating** is one evaluator's current value of a metric on one blind item.
  A one-criterion rubric (Anticipation, Epistemic Humility) gives the
  criterion's value; a multi-criterion rubric (Glenda/Crock, Blast Radius)
  gives the sum of its criteria, and only when that evaluator scored every
  criterion of the item (a partial composite is missing, never a low score).
* The **evaluator** is the study's (`evaluator` in the study file,
  `workbench.studies.evaluator`): the human raters, or one LLM judge; with
  both, every table is computed once per evaluator (one block each).
* The **item score** is, for the raters, the mean of the human raters' ratings
  of the item; for a judge, the judge's verdict (its runs already combined by
  their median, `workbench.judges.aggregate`; a judge_error is no verdict).
  Items the evaluator did not rate are missing.
* The **unit** of Tables 1, 3 and 4 is the (case, condition) pair: the mean of
  the item scores of that case under that condition (one item when
  replicates = 1; the mean over replicates otherwise). Cases are the
  independent units of the study, so a condition's cell is the mean over its
  cases with a 95% bootstrap CI (``mean_ci``: SciPy BCa, 9999 resamples,
  seed 0, percentile fallback; none under the project's minimum of units,
  ``MIN_BOOTSTRAP_UNITS``: "n too small" with the values) and "N cases" counts
  the cases that have a unit.
* Pilot items (the calibration pair) are never part of a table.
* **P1** runs are three C2 replicates per case. They are not a row of the
  B1-C3 comparison; Table 1 and Table 3 show them in a separate line below
  the rule ("P1 (3 x C2)"), each case's unit being the mean over its
  replicates, and Table 2 shows their topology. P1 takes part in Table 4
  only when a user asks for it by name.
* Table 4 is Cohen's d (pooled SD, the two conditions' cases as independent
  groups) with a BCa bootstrap CI (SciPy); where at least 2 cases have both
  conditions, the paired d_z over them stands beside it.

Blinded studies get :func:`overall_table` instead: per metric, the mean of
item scores over all non-pilot items (unit: the blind item), labelled
"blinded: conditions hidden". A forced unblinding is flagged on every table.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.metrics.descriptive import is_too_small, mean_ci
from workbench.metrics.effect_sizes import cohens_d, cohens_d_paired
from workbench.metrics.estimate import Estimate, to_jsonable
from workbench.metrics.ratings import Rating
from workbench.studies.evaluator import RATERS, Evaluator, evaluators_of

from .study_data import CONDITION_LABELS, StudyData

BLINDED_LABEL = "blinded: conditions hidden"
FORCED_LABEL = "FORCED UNBLINDING: scoring was not complete when the key was opened"

ANTICIPATION = "anticipation"
EPISTEMIC_HUMILITY = "epistemic-humility"
TABLE1_RUBRICS = (ANTICIPATION, EPISTEMIC_HUMILITY)
TABLE3_RUBRICS = ("glenda-crock", "blast-radius")
METRIC_ALIASES = {
    "anticipation": ANTICIPATION, "ant": ANTICIPATION,
    "epistemic-humility": EPISTEMIC_HUMILITY, "epistemic_humility": EPISTEMIC_HUMILITY,
    "humility": EPISTEMIC_HUMILITY, "eh": EPISTEMIC_HUMILITY,
    "glenda-crock": "glenda-crock", "glenda_crock": "glenda-crock", "gc": "glenda-crock",
    "blast-radius": "blast-radius", "blast_radius": "blast-radius", "br": "blast-radius",
}
# Seed §XII Table 4.
SEED_COMPARISONS = (("C2", "B1", ANTICIPATION), ("C2", "B3", ANTICIPATION),
                    ("C3", "C2", ANTICIPATION), ("C2", "B1", EPISTEMIC_HUMILITY))
# Cohen's (1988) conventional cut points for |d|.
D_LABELS = ((0.2, "negligible"), (0.5, "small"), (0.8, "medium"))


# --- metrics and ratings --------------------------------------------------------------------------

@dataclass(frozen=True)
class Metric:
    """What a table column measures: a rubric's composite, or one criterion of it."""

    key: str
    rubric_id: str
    criterion: str | None
    label: str
    scale: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "rubric_id": self.rubric_id, "criterion": self.criterion,
                "label": self.label, "scale": list(self.scale)}


def resolve_metric(data: StudyData, key: str) -> Metric:
    """A metric by name: a rubric id or alias ("anticipation", "eh"), or "rubric:criterion"."""
    raw = key.strip()
    rubric_part, _, criterion = raw.partition(":")
    rubric_id = METRIC_ALIASES.get(rubric_part.casefold(), rubric_part)
    info = data.rubric(rubric_id)
    if info is None:
        known = sorted({r.rubric_id for r in data.rubrics.values()})
        raise ValueError(f"unknown metric '{key}': no rubric '{rubric_id}' in this study "
                         f"(known: {', '.join(known) or 'none'})")
    if criterion:
        c = info.criterion(criterion)
        if c is None:
            raise ValueError(f"rubric '{rubric_id}' has no criterion '{criterion}' "
                             f"(criteria: {', '.join(x.id for x in info.criteria)})")
        return Metric(f"{rubric_id}:{criterion}", rubric_id, criterion, f"{info.name}: {c.name}", (c.min, c.max))
    if len(info.criteria) == 1:
        return Metric(rubric_id, rubric_id, info.criteria[0].id, info.name, info.scale)
    lo, hi = info.scale
    return Metric(rubric_id, rubric_id, None, f"{info.name} (composite {lo}-{hi})", (lo, hi))


def metric_values(ratings: Iterable[Rating], metric: Metric, data: StudyData) -> dict[str, dict[str, float]]:
    """item -> evaluator -> the evaluator's value of the metric (ok ratings only).

    A composite needs every criterion of the rubric version the evaluator
    used; an evaluator with complete composites under two versions of one
    rubric keeps the one written last.
    """
    groups: dict[tuple[str, str, str], dict[str, Rating]] = defaultdict(dict)
    for r in ratings:
        if r.rubric_id != metric.rubric_id or r.status != "ok" or r.value is None:
            continue
        groups[(r.item_id, r.evaluator, r.rubric_hash)][r.criterion] = r
    best: dict[tuple[str, str], tuple[int, float]] = {}
    for (item, evaluator, h), cells in groups.items():
        if metric.criterion is not None:
            if metric.criterion not in cells:
                continue
            value, last = cells[metric.criterion].value, cells[metric.criterion].row_id
        else:
            info = data.rubrics.get(h)
            if info is None or any(c.id not in cells for c in info.criteria):
                continue
            value = sum(cells[c.id].value for c in info.criteria)
            last = max(cells[c.id].row_id for c in info.criteria)
        if (item, evaluator) not in best or last > best[(item, evaluator)][0]:
            best[(item, evaluator)] = (last, float(value))
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (item, evaluator), (_, value) in best.items():
        out[item][evaluator] = value
    return dict(out)


HUMAN_RATERS = Evaluator(RATERS)


def study_evaluators(data: StudyData) -> list[Evaluator]:
    """The study's evaluators, the primary first (a study that names none: its human raters)."""
    return evaluators_of(dict(data.definition)) or [HUMAN_RATERS]


def primary_evaluator(data: StudyData) -> Evaluator:
    return study_evaluators(data)[0]


def evaluator_ratings(data: StudyData, evaluator: Evaluator) -> list[Rating]:
    """The ratings an evaluator's tables are computed from: every human score, or one judge's verdicts."""
    if evaluator.kind == RATERS:
        return data.scores
    return [v for v in data.verdicts if v.evaluator == evaluator.name]


def item_scores(data: StudyData, metric: Metric, evaluator: Evaluator | None = None) -> dict[str, float]:
    """item -> the evaluator's score (raters: mean over them; a judge: its verdict), non-pilot items only.
    Default evaluator: the study's primary one."""
    evaluator = evaluator or primary_evaluator(data)
    values = metric_values(evaluator_ratings(data, evaluator), metric, data)
    return {item: sum(v.values()) / len(v) for item, v in values.items()
            if item in data.items and not data.items[item].pilot and v}


# --- the (case, condition) unit ---------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    case_id: str
    value: float
    item_ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "value": self.value, "item_ids": list(self.item_ids)}


def condition_units(data: StudyData, metric: Metric, condition: str,
                    scores: dict[str, float] | None = None, evaluator: Evaluator | None = None) -> list[Unit]:
    """One unit per case: the mean item score of that case's items under ``condition``."""
    if data.blinded:
        raise ValueError("condition units need an unblinded study")
    scores = item_scores(data, metric, evaluator) if scores is None else scores
    by_case: dict[str, list[str]] = defaultdict(list)
    for item in data.study_items():
        if item.condition == condition and item.id in scores:
            by_case[item.case_id].append(item.id)
    return [Unit(case, sum(scores[i] for i in ids) / len(ids), tuple(sorted(ids)))
            for case, ids in sorted(by_case.items())]


@dataclass(frozen=True)
class Cell:
    estimate: Estimate
    units: tuple[Unit, ...]

    @property
    def item_ids(self) -> tuple[str, ...]:
        return tuple(i for u in self.units for i in u.item_ids)

    def to_dict(self) -> dict[str, Any]:
        return {"estimate": self.estimate.to_dict(), "units": [u.to_dict() for u in self.units]}


def _cell(units: Sequence[Unit]) -> Cell:
    est = mean_ci([u.value for u in units])
    if not units:
        est = Estimate.undefined("no rated items", method="mean")
    return Cell(est, tuple(units))


@dataclass(frozen=True)
class ConditionRow:
    condition: str
    label: str
    cells: dict[str, Cell]

    @property
    def n_cases(self) -> dict[str, int]:
        return {k: len(c.units) for k, c in self.cells.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "label": self.label, "n_cases": self.n_cases,
                "cells": {k: c.to_dict() for k, c in self.cells.items()}}


@dataclass(frozen=True)
class ConditionTable:
    """Table 1 or Table 3: conditions x metrics, mean [95% CI] over cases."""

    id: str
    title: str
    metrics: tuple[Metric, ...]
    rows: tuple[ConditionRow, ...]
    p1_row: ConditionRow | None
    notes: tuple[str, ...]
    forced: bool = False
    evaluator: Evaluator = HUMAN_RATERS

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "evaluator": self.evaluator.key,
                "metrics": [m.to_dict() for m in self.metrics],
                "rows": [r.to_dict() for r in self.rows],
                "p1_row": self.p1_row.to_dict() if self.p1_row else None,
                "notes": list(self.notes), "forced_unblinding": self.forced}


def unit_note(evaluator: Evaluator) -> str:
    """What one unit is, for the evaluator whose scores fill the table."""
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    if evaluator.kind == RATERS:
        item = "the mean over the human raters (LLM-judge verdicts are not part of this block)"
    else:
        item = (f"the verdict of the LLM judge {evaluator.name} (a composite needs a verdict on every criterion; "
                "judge_errors are left out, never scored as 0; human scores are not part of this block)")
    return (f"Unit: one (case, condition) pair = mean over that case's items (replicates) of {item}; cell = "
            "mean over cases, 95% bootstrap CI (BCa, 9999 resamples, seed 0), none under "
            f"{MIN_BOOTSTRAP_UNITS} cases (\"n too small\", with the values); N = cases with a rated item. "
            "Pilot items are excluded.")
P1_NOTE = ("P1 (three C2 runs per case) is not one of the compared conditions: its line below the rule "
           "averages each case's three replicates; its convergence is Table 2.")


def _condition_table(data: StudyData, table_id: str, title: str, metrics: Sequence[Metric],
                     extra_notes: Sequence[str] = (), evaluator: Evaluator | None = None) -> ConditionTable:
    evaluator = evaluator or primary_evaluator(data)
    scores = {m.key: item_scores(data, m, evaluator) for m in metrics}
    study_conditions = data.conditions

    def row(cond: str) -> ConditionRow:
        return ConditionRow(cond, CONDITION_LABELS.get(cond, cond),
                            {m.key: _cell(condition_units(data, m, cond, scores[m.key])) for m in metrics})

    rows = tuple(row(c) for c in study_conditions if c != "P1")
    p1 = row("P1") if "P1" in study_conditions else None
    notes = [unit_note(evaluator), *extra_notes]
    if p1 is not None:
        notes.append(P1_NOTE)
    if data.forced:
        notes.insert(0, FORCED_LABEL)
    return ConditionTable(table_id, title, tuple(metrics), rows, p1, tuple(notes), data.forced, evaluator)


def table1(data: StudyData, evaluator: Evaluator | None = None) -> ConditionTable:
    """Seed §XII Table 1: condition x Anticipation and Epistemic Humility, mean [95% CI], N cases."""
    metrics = [resolve_metric(data, r) for r in TABLE1_RUBRICS if data.rubric(r)]
    types = sorted({data.cases[u].type for u in data.cases})
    notes = []
    if len(types) > 1:
        n = {t: sum(1 for c in data.cases.values() if c.type == t) for t in types}
        notes.append("Historical and constructed cases are pooled (seed §XIV open question 1): "
                     + ", ".join(f"{v} {t}" for t, v in n.items()) + ".")
    return _condition_table(data, "table1", "Table 1 - Condition x metric scores", metrics, notes, evaluator)


def table3_metrics(data: StudyData) -> list[Metric]:
    """The specialized rubrics: Glenda/Crock and Blast Radius first, then any other case rubric."""
    ids = [r for r in TABLE3_RUBRICS if data.rubric(r)]
    others = sorted({c.rubric for c in data.cases.values() if c.rubric} - set(ids) - set(TABLE1_RUBRICS))
    return [resolve_metric(data, r) for r in ids + [o for o in others if data.rubric(o)]]


# Seed 000 §VIII: the Glenda/Crock composite each architecture is predicted to score, stated in advance.
GLENDA_CROCK_PREDICTIONS = {"B1": (0, 1), "B2": (1, 2), "B3": (1, 2), "C1": (1, 2), "C2": (2, 3), "C3": (2, 3)}


def glenda_crock_predictions(table: ConditionTable | None) -> list[dict]:
    """Each condition's pre-registered Glenda/Crock range beside its observed mean (Table 3's cell):
    [{"condition", "predicted": (lo, hi), "observed": Estimate, "verdict"}]. The seed asks that results
    contradicting a prediction be reported honestly: "within", "below", "above", or "undefined"."""
    if table is None:
        return []
    metric = next((m for m in table.metrics if m.rubric_id == "glenda-crock" and m.criterion is None), None)
    if metric is None:
        return []
    out = []
    for row in table.rows:
        rng = GLENDA_CROCK_PREDICTIONS.get(row.condition)
        if rng is None:
            continue
        est = row.cells[metric.key].estimate
        if not est.defined:
            verdict = "undefined"
        else:
            verdict = "below" if est.value < rng[0] else "above" if est.value > rng[1] else "within"
        out.append({"condition": row.condition, "predicted": rng, "observed": est, "verdict": verdict})
    return out


def table3(data: StudyData, evaluator: Evaluator | None = None) -> ConditionTable:
    """Seed §XII Table 3: the specialized tests' composites (Glenda/Crock 0-3, Blast Radius 0-6)."""
    notes = ["Composite = sum of the rubric's criteria per evaluator and item (all criteria needed). "
             "A specialized rubric usually belongs to one constructed case, so N is 1 and no CI exists."]
    return _condition_table(data, "table3", "Table 3 - Specialized test scores", table3_metrics(data), notes,
                            evaluator)


# --- Table 2 ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TopologyEntry:
    case_id: str
    pattern: str | None
    switching_assumption: str | None
    convergent_recommendation: str | None
    n_runs: int


@dataclass(frozen=True)
class TopologyTable:
    id: str
    title: str
    rows: tuple[TopologyEntry, ...]
    counts: dict[str, int]
    notes: tuple[str, ...]
    forced: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "rows": [vars(r) for r in self.rows],
                "counts": self.counts, "notes": list(self.notes), "forced_unblinding": self.forced}


def table2(data: StudyData) -> TopologyTable:
    """Seed §XII Table 2: the P1 topology map (Basin / Ridge / Plateau) per case."""
    if data.blinded:
        raise ValueError("Table 2 describes the P1 runs and needs an unblinded study")
    p1_runs: dict[str, int] = defaultdict(int)
    for run in data.runs.values():
        if run.condition == "P1":
            p1_runs[run.case_id] += 1
    found = {t.case_id: t for t in data.topology if t.condition == "P1"}
    rows = []
    for case in sorted(set(p1_runs) | set(found)):
        t = found.get(case)
        rows.append(TopologyEntry(case, t.pattern if t else None, t.switching_assumption if t else None,
                                  t.convergent_recommendation if t else None, p1_runs.get(case, 0)))
    patterns = ["Basin", "Ridge", "Plateau"] + sorted({r.pattern for r in rows if r.pattern} -
                                                      {"Basin", "Ridge", "Plateau"})
    counts = {p: sum(1 for r in rows if r.pattern == p) for p in patterns}
    counts["no topology row"] = sum(1 for r in rows if r.pattern is None)
    notes = ["Basin: all 3 runs agree; Ridge: 2 of 3 agree (the switching assumption is what the divergent "
             "run saw); Plateau: all 3 differ (seed §VII Metric 3). Unclassified: the topology step could not "
             "extract or compare the runs' recommendations (see the run transcripts)."]
    if data.forced:
        notes.insert(0, FORCED_LABEL)
    return TopologyTable("table2", "Table 2 - Topology map (P1 runs only)", tuple(rows), counts, tuple(notes),
                         data.forced)


# --- Table 4 ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    metric: str

    @property
    def label(self) -> str:
        return f"{self.a} vs. {self.b}"


_COMPARE = re.compile(r"^\s*([A-Za-z0-9]+)\s*:\s*([A-Za-z0-9]+)\s*:\s*([A-Za-z0-9_\-:]+)\s*$")


def parse_comparison(text: str) -> Comparison:
    """"C1:B1:anticipation" -> Comparison("C1", "B1", "anticipation"); a clear error otherwise."""
    m = _COMPARE.match(text or "")
    if not m:
        raise ValueError(f"comparison '{text}' must look like A:B:METRIC, e.g. C1:B1:anticipation")
    return Comparison(m.group(1).upper(), m.group(2).upper(), m.group(3))


def interpret_d(d: float | None) -> str:
    """Cohen's labels by |d|: < 0.2 negligible, < 0.5 small, < 0.8 medium, else large."""
    if d is None:
        return "undefined"
    for cut, label in D_LABELS:
        if abs(d) < cut:
            return label
    return "large"


def interpret_effect(est: Estimate) -> str:
    """Cohen's word (on d) only when its 95% CI excludes zero; otherwise the effect is inconclusive, said with
    why (a d of 2.1 from two cases per condition has no CI, and is no "large" effect)."""
    if est.value is None:
        return "undefined"
    n = f"n = {est.n}"
    if est.ci_low is None or est.ci_high is None:
        return f"inconclusive (n too small for a CI; {n})" if is_too_small(est.ci_undefined_reason) \
            else f"inconclusive (no CI; {n})"
    if est.ci_low <= 0 <= est.ci_high:
        return f"inconclusive (CI spans 0; {n})"
    return interpret_d(est.value)


@dataclass(frozen=True)
class EffectRow:
    comparison: Comparison
    metric: Metric | None
    estimate: Estimate        # Cohen's d, pooled SD, bootstrap CI
    paired: Estimate | None   # d_z over the cases both conditions share (None: fewer than 2 shared)
    interpretation: str
    n_a: int
    n_b: int
    n_shared: int
    mean_a: float | None
    mean_b: float | None
    seed: bool                # one of the seed's four comparisons
    units_a: tuple[Unit, ...] = ()
    units_b: tuple[Unit, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"comparison": self.comparison.label, "a": self.comparison.a, "b": self.comparison.b,
                "metric": self.metric.to_dict() if self.metric else self.comparison.metric,
                "estimate": self.estimate.to_dict(), "d_z": self.paired.to_dict() if self.paired else None,
                "interpretation": self.interpretation, "n_a": self.n_a, "n_b": self.n_b,
                "n_shared": self.n_shared, "mean_a": self.mean_a, "mean_b": self.mean_b,
                "seed_comparison": self.seed}


@dataclass(frozen=True)
class EffectTable:
    id: str
    title: str
    rows: tuple[EffectRow, ...]
    notes: tuple[str, ...]
    forced: bool = False
    evaluator: Evaluator = HUMAN_RATERS

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "evaluator": self.evaluator.key,
                "rows": [r.to_dict() for r in self.rows],
                "notes": list(self.notes), "forced_unblinding": self.forced}


def effect_note() -> str:
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    return ("Cohen's d = (mean A - mean B) / pooled SD, the two conditions' case units as independent groups "
            "(seed §XII). 95% CI: BCa bootstrap of d (SciPy; percentile where BCa is not finite), each condition's cases resampled on their own "
            f"(9999 resamples, seed 0); none under {MIN_BOOTSTRAP_UNITS} cases per condition (\"n too small\"). "
            "Interpretation: Cohen's words on |d| (<0.2 negligible, <0.5 small, <0.8 medium, else large), only "
            "when the CI excludes 0. d_z (paired) = mean(A-B) / sd(A-B) over the cases that have both "
            "conditions (at least 2), with a paired bootstrap CI; it is on another scale than d "
            "(d_z = d / sqrt(2(1 - r)) for equal SDs) and carries no words.")


def effect_size(data: StudyData, comparison: Comparison, *, seed: bool = False,
                evaluator: Evaluator | None = None) -> EffectRow:
    """Cohen's d for one comparison of two conditions on one metric, and d_z over the cases they share."""
    def undefined_row(reason: str, metric: Metric | None = None) -> EffectRow:
        return EffectRow(comparison, metric, Estimate.undefined(reason, method="cohen's d"), None, "undefined",
                         0, 0, 0, None, None, seed)

    try:
        metric = resolve_metric(data, comparison.metric)
    except ValueError as exc:
        return undefined_row(str(exc))
    for cond in (comparison.a, comparison.b):
        if cond not in data.conditions:
            return undefined_row(f"condition {cond} is not in this study", metric)
    if comparison.a == comparison.b:
        return undefined_row("a condition compared with itself", metric)
    scores = item_scores(data, metric, evaluator)
    ua = condition_units(data, metric, comparison.a, scores)
    ub = condition_units(data, metric, comparison.b, scores)
    va, vb = {u.case_id: u.value for u in ua}, {u.case_id: u.value for u in ub}
    shared = sorted(set(va) & set(vb))
    est = cohens_d(list(va.values()), list(vb.values()), ci_method="bootstrap")
    paired = (cohens_d_paired([va[c] for c in shared], [vb[c] for c in shared], ci_method="bootstrap")
              if len(shared) >= 2 else None)
    mean = lambda v: sum(v) / len(v) if v else None  # noqa: E731
    return EffectRow(comparison, metric, est, paired, interpret_effect(est), len(va), len(vb), len(shared),
                     mean(list(va.values())), mean(list(vb.values())), seed, tuple(ua), tuple(ub))


def table4(data: StudyData, extra: Sequence[Comparison] = (), evaluator: Evaluator | None = None) -> EffectTable:
    """Seed §XII Table 4: the seed's four comparisons, then the user's (duplicates dropped)."""
    seen: set[tuple[str, str, str]] = set()
    rows = []
    for comp, is_seed in [(Comparison(*c), True) for c in SEED_COMPARISONS] + [(c, False) for c in extra]:
        try:
            metric_key = resolve_metric(data, comp.metric).key
        except ValueError:
            metric_key = comp.metric
        k = (comp.a, comp.b, metric_key)
        if k in seen:
            continue
        seen.add(k)
        rows.append(effect_size(data, comp, seed=is_seed, evaluator=evaluator))
    notes = [effect_note()]
    if data.forced:
        notes.insert(0, FORCED_LABEL)
    return EffectTable("table4", "Table 4 - Effect sizes", tuple(rows), tuple(notes), data.forced,
                       evaluator or primary_evaluator(data))


# --- blinded: condition-free overall --------------------------------------------------------------

@dataclass(frozen=True)
class OverallRow:
    metric: Metric
    estimate: Estimate
    n_items: int
    n_cases: int
    item_ids: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric.to_dict(), "estimate": self.estimate.to_dict(),
                "n_items": self.n_items, "n_cases": self.n_cases}


@dataclass(frozen=True)
class OverallTable:
    id: str
    title: str
    rows: tuple[OverallRow, ...]
    notes: tuple[str, ...]
    evaluator: Evaluator = HUMAN_RATERS

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "evaluator": self.evaluator.key,
                "rows": [r.to_dict() for r in self.rows],
                "notes": list(self.notes), "blinded": True, "label": BLINDED_LABEL}


def overall_table(data: StudyData, evaluator: Evaluator | None = None) -> OverallTable:
    """Condition-free means for a blinded study: per metric, over every rated non-pilot item."""
    evaluator = evaluator or primary_evaluator(data)
    metrics = [resolve_metric(data, r) for r in data.scored_rubric_ids() if data.rubric(r)]
    if not metrics:
        metrics = [resolve_metric(data, r) for r in TABLE1_RUBRICS if data.rubric(r)]
    rows = []
    for m in metrics:
        scores = item_scores(data, m, evaluator)
        ids = tuple(sorted(scores))
        est = mean_ci([scores[i] for i in ids]) if ids else Estimate.undefined("no rated items", method="mean")
        rows.append(OverallRow(m, est, len(ids), len({data.items[i].case_id for i in ids}), ids))
    who = "mean over the human raters" if evaluator.kind == RATERS else f"the verdict of the LLM judge {evaluator.name}"
    notes = (f"{BLINDED_LABEL}. Unit: the blind item ({who}); mean over all rated non-pilot "
             "items with a 95% bootstrap CI. Tables 1-4 need the study to be unblinded.",)
    return OverallTable("overall", f"Overall scores ({BLINDED_LABEL})", tuple(rows), notes, evaluator)


def tables_to_dict(*tables: Any) -> list[Any]:
    return [to_jsonable(t) for t in tables]


def check_comparisons(data: StudyData, comparisons) -> None:
    """The one rule for a user's Table 4 comparisons (batch `--compare` and the Metrics screen): the study
    must be unblinded, and each must name two of its conditions and one of its metrics. Raises ValueError."""
    if not comparisons:
        return
    if data.blinded:
        raise ValueError(f"study '{data.study_id}' is blinded: comparisons need conditions, which stay hidden "
                         f"until unblinding (`workbench --batch unblind {data.study_id}`)")
    for comp in comparisons:
        for cond in (comp.a, comp.b):
            if cond not in data.conditions:
                raise ValueError(f"{comp.a}:{comp.b}:{comp.metric}: condition {cond} is not in study "
                                 f"'{data.study_id}' (conditions: {', '.join(data.conditions)})")
        try:
            resolve_metric(data, comp.metric)
        except ValueError as exc:
            raise ValueError(f"{comp.a}:{comp.b}:{comp.metric}: {exc}") from None
