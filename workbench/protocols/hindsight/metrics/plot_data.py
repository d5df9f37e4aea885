"""The series behind the Metrics screen's plots of a hindsight study, as plain data (the screen only draws them).

Every series is built from the same StudyAnalysis as the tables, so a point
on a plot is a number in a table. Blinded studies get condition-free series
(overall means; no forest plot, no per-run heatmap).
"""

from __future__ import annotations

from workbench.metrics.plots import Interval, ReliabilityPoint

from .tables import ANTICIPATION, EPISTEMIC_HUMILITY


def means_series(analysis) -> list[Interval]:
    """Means with CI per condition (Table 1 metrics); blinded: the overall mean per metric."""
    out: list[Interval] = []
    if analysis.overall is not None:
        for r in analysis.overall.rows:
            if r.estimate.defined:
                out.append(Interval(r.metric.label, r.estimate.value, r.estimate.ci_low, r.estimate.ci_high,
                                    r.metric.key))
        return out
    t1 = analysis.table1
    if t1 is None:
        return out
    for metric in t1.metrics:
        if metric.key not in (ANTICIPATION, EPISTEMIC_HUMILITY):
            continue
        for row in t1.rows + ((t1.p1_row,) if t1.p1_row else ()):
            e = row.cells[metric.key].estimate
            if e.defined:
                out.append(Interval(row.condition, e.value, e.ci_low, e.ci_high, metric.key))
    return out


def forest_series(analysis) -> list[Interval]:
    """Table 4's effect sizes with their CIs (defined rows only)."""
    if analysis.table4 is None:
        return []
    out = []
    for r in analysis.table4.rows:
        if r.estimate.defined:
            label = f"{r.comparison.label} {r.metric.label if r.metric else r.comparison.metric}"
            out.append(Interval(label, r.estimate.value, r.estimate.ci_low, r.estimate.ci_high))
    return out


def agreement_series(analysis) -> list[Interval]:
    """Unweighted kappa per metric and criterion, with its CI (defined rows only)."""
    out = []
    for r in analysis.agreement.inter_rater:
        if r.kappa.defined:
            out.append(Interval(r.metric.label, r.kappa.value, r.kappa.ci_low, r.kappa.ci_high,
                                "" if r.target is None else f"{r.target:.2f}"))
    return out


def reliability_series(analysis) -> tuple[str, list[ReliabilityPoint]]:
    """The pooled judges' reliability bins (or the only judge's), non-empty bins only."""
    if not analysis.calibration:
        return "", []
    row = analysis.calibration[-1]
    return row.judge, [ReliabilityPoint(b.mean_predicted, b.observed_frequency, b.count)
                       for b in row.report.bins if b.count]


def heatmap_runs(analysis) -> list[tuple[str, str]]:
    """(label, run id) of the runs with at least two perspectives (unblinded only)."""
    if analysis.dq is None or analysis.blinded:
        return []
    return [(f"{r.condition or '?'} {r.case_id} ({r.n_perspectives})", r.run_id)
            for r in analysis.dq.runs if r.n_perspectives >= 2]


def heatmap_matrix(analysis, run_id: str) -> list[list[float]]:
    if analysis.dq is None or analysis.blinded:
        return []
    for r in analysis.dq.runs:
        if r.run_id == run_id:
            return [list(row) for row in r.similarity]
    return []
