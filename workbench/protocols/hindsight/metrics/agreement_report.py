"""Agreement, judge errors and blindness audits of a study (seed 000 §VI-§VII, seed 004 Arm C).

Definitions
-----------
* **Inter-rater agreement** (humans), per metric and per criterion, over the
  non-pilot items at least two raters scored (condition-free, so it is
  computed for blinded studies too):
  - two raters: Cohen's kappa, unweighted and quadratic-weighted, on the
    rubric's full scale (every category from min to max counts);
  - more raters: Light's kappa, the mean of the pairwise kappas (no CI);
  - Krippendorff's alpha, ordinal, for any number of raters;
  - percent agreement (exact; two raters, else the mean over pairs).
  The pre-registered target (study thresholds: kappa_anticipation 0.70,
  kappa_epistemic_humility 0.65) is checked against the **unweighted** kappa
  -- the statistic the seed names -- with the weighted one shown beside it.
  An undefined kappa is "undetermined", never a pass.
* **Human vs LLM judge**, per judge and metric, over items with both a
  human score and an ok verdict: the human reference is the mean over
  raters, rounded half up to the scale's categories for kappa
  (quadratic-weighted and unweighted); Spearman rho uses the unrounded mean.
  A judge value that is not an integer (an aggregate of 3 runs) is rounded
  half up for kappa too.
* **Judge panel** (seed 004 Arm C) with two or more judges: judge scores
  normalised to [0, 1] by the scale, Krippendorff alpha (interval), pairwise
  Spearman, ICC(2,1), against the study's `alpha_judges` threshold.
* **Judge errors**: the item-rubric pairs (`workbench.rubrics.units`) whose
  current verdict is a judge_error, per judge (per condition once unblinded,
  the pilot items, and all: the judging summary's number); they are excluded
  from every metric, never scored as zero.
* **Blindness audit**: the share of audited items whose architecture the
  auditing model guessed right, with a Wilson 95% CI, against chance = 1 /
  the number of setups it can name (P1 folds into C2; `judges.audit.chance_rate`,
  the same rate `judge --audit-only` prints), and a one-sided exact binomial test
  of "better than chance". Per condition only once unblinded.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.metrics.agreement import cohens_kappa, krippendorff_alpha, percent_agreement
from workbench.metrics.calibration import JudgePanelAgreement, judge_panel_agreement
from workbench.metrics.correlation import spearman_rho
from workbench.metrics.estimate import Estimate, z_critical

from .study_data import StudyData, sorted_conditions
from .tables import (
    ANTICIPATION,
    BLINDED_LABEL,
    EPISTEMIC_HUMILITY,
    Metric,
    HUMAN_RATERS,
    item_scores,
    metric_values,
    resolve_metric,
)

TARGET_KEYS = {ANTICIPATION: "kappa_anticipation", EPISTEMIC_HUMILITY: "kappa_epistemic_humility"}


def round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def agreement_metrics(data: StudyData) -> list[Metric]:
    """Every scored rubric: one-criterion rubrics as themselves; others per criterion, then composite."""
    out: list[Metric] = []
    for rid in data.scored_rubric_ids():
        info = data.rubric(rid)
        if info is None:
            continue
        if len(info.criteria) > 1:
            out.extend(resolve_metric(data, f"{rid}:{c.id}") for c in info.criteria)
        out.append(resolve_metric(data, rid))
    return out


# --- inter-rater ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InterRaterRow:
    metric: Metric
    raters: tuple[str, ...]
    n_items: int
    kappa: Estimate
    kappa_quadratic: Estimate
    alpha_ordinal: Estimate
    percent_agreement: Estimate
    target: float | None
    verdict: str               # pass | fail | undetermined | no target
    basis: str
    item_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric.to_dict(), "raters": list(self.raters), "n_items": self.n_items,
                "kappa": self.kappa.to_dict(), "kappa_quadratic": self.kappa_quadratic.to_dict(),
                "alpha_ordinal": self.alpha_ordinal.to_dict(),
                "percent_agreement": self.percent_agreement.to_dict(), "target": self.target,
                "verdict": self.verdict, "basis": self.basis}


def _mean_estimate(estimates: Sequence[Estimate], method: str, n: int) -> Estimate:
    defined = [e.value for e in estimates if e.defined]
    if not defined:
        reasons = "; ".join(sorted({e.undefined_reason or "" for e in estimates})) or "no rater pairs"
        return Estimate.undefined(f"no pairwise value is defined ({reasons})", n=n, method=method)
    return Estimate(sum(defined) / len(defined), n=n, method=method,
                    details={"pairs": len(estimates), "pairs_defined": len(defined)},
                    ci_undefined_reason="no CI for a mean of pairwise values")


def inter_rater_row(data: StudyData, metric: Metric) -> InterRaterRow:
    values = metric_values(data.scores, metric, data)
    values = {i: v for i, v in values.items() if i in data.items and not data.items[i].pilot}
    raters = tuple(r for r in data.raters if any(r in v for v in values.values()))
    items = sorted(i for i, v in values.items() if len(v) >= 2)
    lo, hi = metric.scale
    cats = list(range(lo, hi + 1))

    def col(r: str) -> list[float | None]:
        return [None if values[i].get(r) is None else round_half_up(values[i][r]) for i in items]

    pairs = list(itertools.combinations(raters, 2))
    if len(raters) == 2:
        a, b = col(raters[0]), col(raters[1])
        kappa = cohens_kappa(a, b, categories=cats)
        kq = cohens_kappa(a, b, weights="quadratic", categories=cats)
        pa = percent_agreement(a, b)
        basis = "Cohen's kappa (unweighted)"
    elif len(raters) > 2:
        kappa = _mean_estimate([cohens_kappa(col(x), col(y), categories=cats) for x, y in pairs],
                               "Light's kappa (mean pairwise, unweighted)", len(items))
        kq = _mean_estimate([cohens_kappa(col(x), col(y), weights="quadratic", categories=cats)
                             for x, y in pairs], "Light's kappa (mean pairwise, quadratic)", len(items))
        pa = _mean_estimate([percent_agreement(col(x), col(y)) for x, y in pairs],
                            "percent agreement (mean pairwise)", len(items))
        basis = "Light's kappa (mean pairwise unweighted)"
    else:
        why = f"fewer than 2 raters scored this metric ({len(raters)})"
        kappa = Estimate.undefined(why, method="cohen's kappa")
        kq = Estimate.undefined(why, method="cohen's kappa (quadratic weights)")
        pa = Estimate.undefined(why, method="percent agreement")
        basis = "needs 2 raters"
    alpha = krippendorff_alpha([col(r) for r in raters], level="ordinal", value_domain=cats) \
        if len(raters) >= 2 else Estimate.undefined("fewer than 2 raters", method="krippendorff's alpha (ordinal)")
    target_key = TARGET_KEYS.get(metric.key)
    target = float(data.thresholds[target_key]) if target_key else None
    if target is None:
        verdict = "no target"
    elif not kappa.defined:
        verdict = "undetermined"
    else:
        verdict = "pass" if kappa.value >= target else "fail"
    return InterRaterRow(metric, raters, len(items), kappa, kq, alpha, pa, target, verdict, basis, tuple(items))


def inter_rater(data: StudyData) -> list[InterRaterRow]:
    return [inter_rater_row(data, m) for m in agreement_metrics(data)]


# --- human vs judge ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class JudgeAgreementRow:
    judge: str
    model: str | None
    metric: Metric
    n_items: int
    n_errors: int
    kappa_quadratic: Estimate
    kappa: Estimate
    spearman: Estimate
    mean_judge: float | None
    mean_human: float | None
    item_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "model": self.model, "metric": self.metric.to_dict(),
                "n_items": self.n_items, "n_errors": self.n_errors,
                "kappa_quadratic": self.kappa_quadratic.to_dict(), "kappa": self.kappa.to_dict(),
                "spearman": self.spearman.to_dict(), "mean_judge": self.mean_judge,
                "mean_human": self.mean_human}


def _judge_errors_by_metric(data: StudyData, judge: str, metric: Metric) -> set[str]:
    return {v.item_id for v in data.verdicts
            if v.evaluator == judge and v.rubric_id == metric.rubric_id and v.status != "ok"
            and (metric.criterion is None or v.criterion == metric.criterion)
            and not data.items[v.item_id].pilot}


def human_vs_judge(data: StudyData) -> list[JudgeAgreementRow]:
    rows = []
    metrics = agreement_metrics(data)
    for metric in metrics:
        human = item_scores(data, metric, HUMAN_RATERS)
        judged = metric_values(data.verdicts, metric, data)
        lo, hi = metric.scale
        cats = list(range(lo, hi + 1))
        for judge in data.judges:
            jv = {i: v[judge] for i, v in judged.items()
                  if judge in v and i in data.items and not data.items[i].pilot}
            if not jv and not _judge_errors_by_metric(data, judge, metric):
                continue
            items = sorted(set(jv) & set(human))
            j = [jv[i] for i in items]
            h = [human[i] for i in items]
            model = next((v.model for v in data.verdicts if v.evaluator == judge and v.model), None)
            if items:
                jr, hr = [round_half_up(x) for x in j], [round_half_up(x) for x in h]
                kq = cohens_kappa(jr, hr, weights="quadratic", categories=cats)
                k = cohens_kappa(jr, hr, categories=cats)
                rho = spearman_rho(j, h)
            else:
                why = "no item has both a human score and an ok verdict from this judge"
                kq = Estimate.undefined(why, method="cohen's kappa (quadratic weights)")
                k = Estimate.undefined(why, method="cohen's kappa")
                rho = Estimate.undefined(why, method="spearman rho")
            rows.append(JudgeAgreementRow(
                judge, model, metric, len(items), len(_judge_errors_by_metric(data, judge, metric)), kq, k, rho,
                sum(j) / len(j) if j else None, sum(h) / len(h) if h else None, tuple(items)))
    return rows


@dataclass(frozen=True)
class PanelRow:
    metric: Metric
    panel: JudgePanelAgreement

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric.to_dict(), "panel": self.panel.to_dict()}


def judge_panel(data: StudyData) -> list[PanelRow]:
    """Seed 004 Arm C on the study's judges, per metric, when there are at least two judges."""
    out = []
    for metric in agreement_metrics(data):
        judged = metric_values(data.verdicts, metric, data)
        judged = {i: v for i, v in judged.items() if i in data.items and not data.items[i].pilot}
        judges = [j for j in data.judges if any(j in v for v in judged.values())]
        if len(judges) < 2:
            continue
        lo, hi = metric.scale
        items = sorted(judged)
        scores = {j: [None if judged[i].get(j) is None else (judged[i][j] - lo) / (hi - lo) for i in items]
                  for j in judges}
        threshold = float(data.thresholds["alpha_judges"])
        out.append(PanelRow(metric, judge_panel_agreement(
            scores, alpha_threshold=threshold, strong_threshold=max(0.7, threshold))))
    return out


# --- judge errors ------------------------------------------------------------------------------------

PILOTS = "pilots"   # the Judge errors row of the calibration pilot items


@dataclass(frozen=True)
class JudgeErrorRow:
    """One judge's item-rubric pairs (`workbench.rubrics.units`) with a current verdict: judge errors, the
    items they touch, and ok pairs. `condition`: a condition (once unblinded), PILOTS, or None for all of
    them, pilots included: the number the judging summary and the study's counts give."""

    judge: str
    condition: str | None
    error_pairs: int
    error_items: int
    ok_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def judged_pairs(verdicts) -> dict[tuple[str, str, str], bool]:
    """(judge, item, rubric version) -> whether the pair's current verdict is a judge error (a pair is judged
    and fails as a whole; the same rule as `store.verdicts.current_verdict_pairs`)."""
    out: dict[tuple[str, str, str], bool] = {}
    for v in verdicts:
        key = (v.evaluator, v.item_id, v.rubric_hash)
        out[key] = out.get(key, False) or v.status != "ok"
    return out


def judge_errors(data: StudyData) -> list[JudgeErrorRow]:
    """Current judge-error item-rubric pairs per judge: per condition once unblinded, the pilots, and all."""
    pairs = judged_pairs(data.verdicts)
    rows = []
    for judge in data.judges:
        mine = [(item, error) for (j, item, _h), error in pairs.items() if j == judge]
        groups: list[tuple[str | None, list]] = []
        if not data.blinded:
            by_cond: dict[str, list] = defaultdict(list)
            for item, error in mine:
                if not data.items[item].pilot:
                    by_cond[data.items[item].condition or "?"].append((item, error))
            groups = [(c, by_cond.get(c, [])) for c in data.conditions]
        pilots = [(item, error) for item, error in mine if data.items[item].pilot]
        if pilots:
            groups.append((PILOTS, pilots))
        groups.append((None, mine))
        for cond, group in groups:
            errs = [item for item, error in group if error]
            rows.append(JudgeErrorRow(judge, cond, len(errs), len(set(errs)), len(group) - len(errs)))
    return rows


# --- blindness audit ---------------------------------------------------------------------------------

def proportion_ci(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes in n."""
    p = k / n
    z = z_critical(confidence)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class AuditRow:
    condition: str | None      # None: every audited item
    n: int
    n_correct: int
    accuracy: Estimate
    chance: float | None
    p_value: float | None      # one-sided exact binomial, accuracy > chance
    models: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "n": self.n, "n_correct": self.n_correct,
                "accuracy": self.accuracy.to_dict(), "chance": self.chance, "p_value": self.p_value,
                "models": list(self.models)}


def _audit_row(condition: str | None, rows: list, chance: float | None) -> AuditRow:
    judged = [a for a in rows if a.correct is not None]
    n, k = len(judged), sum(1 for a in judged if a.correct)
    models = tuple(sorted({a.model for a in rows}))
    if n == 0:
        return AuditRow(condition, 0, 0, Estimate.undefined("no audited items", method="audit accuracy"),
                        chance, None, models)
    lo, hi = proportion_ci(k, n)
    p_value = None
    if chance is not None:
        from scipy import stats

        p_value = float(stats.binomtest(k, n, chance, alternative="greater").pvalue)
    return AuditRow(condition, n, k, Estimate(k / n, lo, hi, n=n, method="audit accuracy; Wilson CI",
                                              confidence=0.95), chance, p_value, models)


def blindness_audit(data: StudyData) -> list[AuditRow]:
    from workbench.judges.audit import chance_rate  # the one rate `judge --audit-only` prints

    audits = [a for a in data.audits if a.item_id in data.items and not data.items[a.item_id].pilot]
    chance = chance_rate(data.conditions)
    rows = []
    if not data.blinded:
        by_cond: dict[str, list] = defaultdict(list)
        for a in audits:
            by_cond[data.items[a.item_id].condition or "?"].append(a)
        rows = [_audit_row(c, by_cond[c], chance) for c in sorted_conditions(list(by_cond))]
    rows.append(_audit_row(None, audits, chance))
    return rows


@dataclass(frozen=True)
class AgreementReport:
    inter_rater: tuple[InterRaterRow, ...]
    human_vs_judge: tuple[JudgeAgreementRow, ...]
    judge_panel: tuple[PanelRow, ...]
    judge_errors: tuple[JudgeErrorRow, ...]
    judge_error_rows: dict[str, int]
    audits: tuple[AuditRow, ...]
    blinded: bool

    def to_dict(self) -> dict[str, Any]:
        return {"inter_rater": [r.to_dict() for r in self.inter_rater],
                "human_vs_judge": [r.to_dict() for r in self.human_vs_judge],
                "judge_panel": [r.to_dict() for r in self.judge_panel],
                "judge_errors": [r.to_dict() for r in self.judge_errors],
                "judge_error_rows_ever": dict(self.judge_error_rows),
                "blindness_audit": [r.to_dict() for r in self.audits],
                "label": BLINDED_LABEL if self.blinded else None}


def agreement_report(data: StudyData) -> AgreementReport:
    return AgreementReport(tuple(inter_rater(data)), tuple(human_vs_judge(data)), tuple(judge_panel(data)),
                           tuple(judge_errors(data)), dict(data.judge_error_rows), tuple(blindness_audit(data)),
                           data.blinded)
