"""Hindsight's tables as rendered tables, shared by the CLI, the report and the Metrics screen.

`analysis_tables(analysis)` turns a StudyAnalysis into :class:`RenderedTable`
objects whose cells are final strings; the CLI prints them as aligned text,
the report as markdown and the screen puts the very same strings into
DataTables -- so the three agree number for number. Each table may carry
drill-down references per cell (`refs`) that the screen follows to the items
and scores behind a number (see `drilldown`).

Number format: 2 decimals (3 for p-values and calibration errors), CI as
"[low, high]"; an undefined statistic prints "undefined" and its reason goes
to the table's notes; a mean without CI prints "(no CI)" with the reason in
the notes.
"""

from __future__ import annotations

from workbench.metrics.render import (
    DASH,
    FORCED_TAG,
    DrillRef,
    Notes,
    RenderedTable,
    block_id,
    fmt_ci,
    fmt_est,
    fmt_num,
    fmt_p,
)
from workbench.fidelity.table import mark_note, marked
from workbench.protocols.hindsight.metrics.study_data import CONDITION_LABELS
from workbench.protocols.hindsight.metrics.tables import BLINDED_LABEL, ConditionRow, ConditionTable
from workbench.rubrics import units


def _title(analysis, title: str) -> str:
    if analysis.blinded:
        return f"{title} ({BLINDED_LABEL})"
    if analysis.forced:
        return f"{title} {FORCED_TAG}"
    return title


def _condition_label(c: str) -> str:
    label = CONDITION_LABELS.get(c)
    return f"{c} ({label})" if label else c


# --- the study's tables --------------------------------------------------------------------------------

def _undelivered(analysis, item_ids) -> list[str]:
    """The runs behind these items whose defining step did not happen (issue 45): their cells are marked."""
    data = analysis.data
    runs = (data.items[i].run_id for i in item_ids if i in data.items)
    return [r for r in runs if r in data.undelivered]


def _mark(analysis, out: RenderedTable, runs: list[str]) -> None:
    if runs:
        out.notes.append(mark_note(analysis.data.undelivered, runs))


def _block_title(analysis, title: str, evaluator) -> str:
    return _title(analysis, f"{title} - {evaluator.label}")


def _who(evaluator, block: int) -> tuple:
    """A drill-down reference's evaluator argument: none for the primary block (its default)."""
    return () if block == 0 else (evaluator.key,)


def condition_table(analysis, table: ConditionTable, block: int = 0) -> RenderedTable:
    notes = Notes()
    cols = ["Condition"] + [f"{m.label} ({m.scale[0]}-{m.scale[1]})" if m.criterion else m.label
                            for m in table.metrics] + ["N cases"]
    out = RenderedTable(block_id(table.id, block), _block_title(analysis, table.title, table.evaluator), cols, [])
    who = _who(table.evaluator, block)
    marked_runs: list[str] = []

    def add(row: ConditionRow) -> None:
        i = len(out.rows)
        cells = [_condition_label(row.condition)]
        for j, m in enumerate(table.metrics):
            e = row.cells[m.key].estimate
            undelivered = _undelivered(analysis, row.cells[m.key].item_ids)
            marked_runs.extend(undelivered)
            cells.append(marked(fmt_est(e)) if undelivered else fmt_est(e))
            notes.add(f"{row.condition} x {m.label}", e)
            out.refs[(i, j + 1)] = DrillRef("condition_cell", (row.condition, m.key, *who))
        ns = [row.n_cases[m.key] for m in table.metrics]
        cells.append(str(ns[0]) if len(set(ns)) == 1 else " / ".join(str(n) for n in ns) if ns else "0")
        out.refs[(i, 0)] = DrillRef("condition_cell", (row.condition, table.metrics[0].key, *who)) \
            if table.metrics else DrillRef("none")
        out.rows.append(cells)

    for row in table.rows:
        add(row)
    if table.p1_row is not None:
        out.rule_before.add(len(out.rows))
        add(table.p1_row)
    out.notes = list(table.notes) + notes.lines
    if any(" / " in r[-1] for r in out.rows):
        out.notes.append("N cases differs between metrics on some rows: shown per metric, in column order.")
    _mark(analysis, out, marked_runs)
    return out


def table2_rendered(analysis) -> RenderedTable:
    t = analysis.table2
    out = RenderedTable(t.id, _title(analysis, t.title),
                        ["Case", "Pattern", "Switching assumption (if Ridge)", "Convergent recommendation",
                         "P1 runs"], [])
    data, marked_runs = analysis.data, []
    for i, r in enumerate(t.rows):
        undelivered = [run.id for run in data.runs.values()
                       if run.condition == "P1" and run.case_id == r.case_id and run.id in data.undelivered]
        marked_runs.extend(undelivered)
        pattern = r.pattern or "no topology row"
        out.rows.append([r.case_id, marked(pattern) if undelivered else pattern, r.switching_assumption or DASH,
                         r.convergent_recommendation or DASH, str(r.n_runs)])
        out.refs[(i, 0)] = DrillRef("topology", (r.case_id,))
    counts = ", ".join(f"{k}: {v}" for k, v in t.counts.items())
    out.notes = list(t.notes) + [f"Counts - {counts}."]
    _mark(analysis, out, marked_runs)
    return out


def table4_rendered(analysis, t=None, block: int = 0) -> RenderedTable:
    """Seed §XII Table 4: Cohen's d, its bootstrap CI, the interpretation (words on d only), then d_z beside."""
    t = t or analysis.table4
    notes = Notes()
    out = RenderedTable(block_id(t.id, block), _block_title(analysis, t.title, t.evaluator),
                        ["Comparison", "Metric", "Cohen's d", "95% CI", "Interpretation", "d_z (paired) [95% CI]",
                         "N cases (A / B / both)"], [])
    who = _who(t.evaluator, block)
    marked_runs: list[str] = []
    for i, r in enumerate(t.rows):
        label = r.metric.label if r.metric else r.comparison.metric
        undelivered = _undelivered(analysis, [i for u in (*r.units_a, *r.units_b) for i in u.item_ids])
        marked_runs.extend(undelivered)
        d = fmt_est(r.estimate, ci=False)
        out.rows.append([r.comparison.label + ("" if r.seed else " *"), label, marked(d) if undelivered else d,
                         fmt_ci(r.estimate), r.interpretation, fmt_est(r.paired) if r.paired else DASH,
                         f"{r.n_a} / {r.n_b} / {r.n_shared}"])
        if r.estimate.defined:
            out.refs[(i, 0)] = DrillRef("effect", (r.comparison.a, r.comparison.b, r.comparison.metric, *who))
        notes.add(f"{r.comparison.label} {label} d", r.estimate)
        notes.add(f"{r.comparison.label} {label} d_z", r.paired)
    out.notes = list(t.notes) + ["* = a comparison the user added."] + notes.lines
    _mark(analysis, out, marked_runs)
    return out


def overall_rendered(analysis, t=None, block: int = 0) -> RenderedTable:
    t = t or analysis.overall
    notes = Notes()
    out = RenderedTable(block_id(t.id, block), f"{t.title} - {t.evaluator.label}",
                        ["Metric", "Mean [95% CI]", "N items", "N cases"], [])
    for i, r in enumerate(t.rows):
        out.rows.append([r.metric.label, fmt_est(r.estimate), str(r.n_items), str(r.n_cases)])
        out.refs[(i, 0)] = DrillRef("overall", (r.metric.key, *_who(t.evaluator, block)))
        notes.add(r.metric.label, r.estimate)
    out.notes = list(t.notes) + notes.lines
    return out


def predictions_rendered(analysis, block) -> RenderedTable | None:
    """Seed 000 §VIII's pre-registered Glenda/Crock ranges beside this evaluator's observed Table 3 means."""
    rows = block.predictions
    if not rows:
        return None
    index = analysis.blocks.index(block)
    out = RenderedTable(block_id("predictions", index),
                        _block_title(analysis, "Glenda/Crock: predicted (seed 000 §VIII) vs observed", block.evaluator),
                        ["Condition", "Predicted (0-3)", "Observed mean [95% CI]", "Observed vs prediction"], [])
    cells = {row.condition: row.cells.values() for row in block.table3.rows}  # the observed means' cells
    marked_runs: list[str] = []
    for r in rows:
        lo, hi = r["predicted"]
        undelivered = _undelivered(analysis, [i for c in cells.get(r["condition"], ()) for i in c.item_ids])
        marked_runs.extend(undelivered)
        observed = fmt_est(r["observed"])
        out.rows.append([r["condition"], f"{lo}-{hi}", marked(observed) if undelivered else observed, r["verdict"]])
    contradicted = [r["condition"] for r in rows if r["verdict"] in ("below", "above")]
    out.notes = ["The predictions were stated in the seed before any run. "
                 + (f"Results contradict them for {', '.join(contradicted)}; reported as observed." if contradicted
                    else "No defined result falls outside its predicted range.")]
    _mark(analysis, out, marked_runs)
    return out


def evaluator_blocks(analysis) -> list[RenderedTable]:
    """One block per evaluator in the same layout (Table 1, Table 3, Table 4, the predictions; blinded: the
    overall table); Table 2 codes the P1 runs' outputs, not scores, so it is the same for every evaluator and
    comes once, after the primary block's Table 1 (the seed's order)."""
    out: list[RenderedTable] = []
    for k, block in enumerate(analysis.blocks):
        if block.overall is not None:
            out.append(overall_rendered(analysis, block.overall, k))
        if block.table1 is not None:
            out.append(condition_table(analysis, block.table1, k))
        if k == 0 and analysis.table2 is not None:
            out.append(table2_rendered(analysis))
        if block.table3 is not None and block.table3.metrics:
            out.append(condition_table(analysis, block.table3, k))
        if block.table4 is not None:
            out.append(table4_rendered(analysis, block.table4, k))
        if not analysis.blinded:
            predictions = predictions_rendered(analysis, block)
            if predictions is not None:
                out.append(predictions)
    return out


def agreement_rendered(analysis) -> RenderedTable:
    notes = Notes()
    out = RenderedTable("agreement", _title(analysis, "Inter-rater agreement (human raters)"),
                        ["Metric", "Raters", "N items", "Kappa", "Kappa (quadratic)", "Alpha (ordinal)",
                         "Agreement", "Target", "Result"], [])
    for i, r in enumerate(analysis.agreement.inter_rater):
        out.rows.append([r.metric.label, str(len(r.raters)), str(r.n_items), fmt_est(r.kappa),
                         fmt_est(r.kappa_quadratic), fmt_est(r.alpha_ordinal, ci=False),
                         fmt_est(r.percent_agreement, ci=False),
                         DASH if r.target is None else f">= {r.target:.2f}", r.verdict])
        out.refs[(i, 0)] = DrillRef("agreement", (r.metric.key,))
        notes.add(f"{r.metric.label} kappa", r.kappa)
        notes.add(f"{r.metric.label} alpha", r.alpha_ordinal if not r.alpha_ordinal.defined else None)
    out.notes = ["Kappa: two raters, Cohen's unweighted kappa on the rubric's full scale (more raters: Light's "
                 "mean pairwise kappa); the pre-registered target is checked against it. Alpha: Krippendorff, "
                 "ordinal. Non-pilot items scored by at least two raters."] + notes.lines
    return out


def judge_agreement_rendered(analysis) -> RenderedTable:
    notes = Notes()
    out = RenderedTable("judges", _title(analysis, "Human vs LLM-judge agreement"),
                        ["Judge", "Metric", "N items", "Kappa (quadratic)", "Kappa", "Spearman rho",
                         "Judge errors", "Mean judge", "Mean human"], [])
    for i, r in enumerate(analysis.agreement.human_vs_judge):
        out.rows.append([r.judge, r.metric.label, str(r.n_items), fmt_est(r.kappa_quadratic), fmt_est(r.kappa),
                         fmt_est(r.spearman), str(r.n_errors), fmt_num(r.mean_judge), fmt_num(r.mean_human)])
        out.refs[(i, 0)] = DrillRef("judge", (r.judge, r.metric.key))
        notes.add(f"{r.judge} x {r.metric.label} kappa", r.kappa_quadratic)
        notes.add(f"{r.judge} x {r.metric.label} rho", r.spearman)
    out.notes = ["Human reference: mean over raters, rounded half up for kappa; Spearman uses the unrounded mean. "
                 "Judge errors are excluded (never scored as 0)."] + notes.lines
    return out


def judge_panel_rendered(analysis) -> RenderedTable:
    out = RenderedTable("panel", _title(analysis, "LLM-judge panel agreement (seed 004 Arm C)"),
                        ["Metric", "Judges", "N items", "Alpha (interval)", "ICC(2,1)", "Verdict"], [])
    notes = []
    for r in analysis.agreement.judge_panel:
        p = r.panel
        out.rows.append([r.metric.label, str(len(p.judges)), str(p.n_items), fmt_est(p.alpha, ci=False),
                         fmt_est(p.icc_2_1), p.verdict])
        notes.append(f"{r.metric.label}: {p.decision}")
        notes.extend(f"{r.metric.label}: {n}" for n in p.notes)
    out.notes = ["Judge scores scaled to [0, 1] by the rubric's range."] + notes
    return out


def judge_errors_rendered(analysis) -> RenderedTable:
    out = RenderedTable("judge_errors", _title(analysis, "Judge errors"),
                        ["Judge", "Condition", "Judge errors", "Items with errors", "OK"], [])
    for i, r in enumerate(analysis.agreement.judge_errors):
        out.rows.append([r.judge, "all" if r.condition is None else r.condition, str(r.error_pairs),
                         str(r.error_items), str(r.ok_pairs)])
        out.refs[(i, 0)] = DrillRef("judge_errors", (r.judge, r.condition))
    ever = ", ".join(f"{j}: {n}" for j, n in sorted(analysis.agreement.judge_error_rows.items())) or "none"
    out.notes = [f"Counted in {units.PAIRS} (one judge, one blind item, one rubric), as the judging summary "
                 "counts them; `all` includes the calibration pilots. A judge_error is a reply that never "
                 "validated; it is kept with its raw text and excluded from every metric. judge_error "
                 f"{units.VERDICTS} (one per criterion) ever written, retries included: {ever}."]
    return out


def audit_rendered(analysis) -> RenderedTable:
    notes = Notes()
    out = RenderedTable("audit", _title(analysis, "Blindness audit"),
                        ["Condition", "Audited", "Correct", "Accuracy [95% CI]", "Chance", "p (> chance)",
                         "p (Holm)"], [])
    from workbench.metrics.corrections import holm_adjusted

    audits = analysis.agreement.audits
    # the per-condition tests are one family (Holm over them); the pooled row is a test of its own
    per_condition = [r.p_value for r in audits if r.condition is not None]
    holm = iter(holm_adjusted(per_condition))
    for i, r in enumerate(audits):
        adjusted = fmt_p(next(holm)) if r.condition is not None else DASH
        out.rows.append(["all" if r.condition is None else r.condition, str(r.n), str(r.n_correct),
                         fmt_est(r.accuracy), fmt_num(r.chance), fmt_p(r.p_value), adjusted])
        out.refs[(i, 0)] = DrillRef("audit", (r.condition,))
        notes.add(f"audit {r.condition or 'all'}", r.accuracy)
    out.notes = ["Accuracy: share of audited items whose architecture the auditing model named; chance = 1 / the "
                 "setups the auditor can name (the three-committee probe counts as the committee it repeats); one-sided exact binomial test, "
                 "uncorrected and Holm-adjusted over the per-condition tests (family-wise error). Well above chance means the "
                 "scrubber leaks condition tells."] + notes.lines
    return out


def dq_rendered(analysis) -> RenderedTable:
    dq = analysis.dq
    notes = Notes()
    out = RenderedTable("dq", _title(analysis, "Decision quality (seed 001)"),
                        ["Condition", "Runs", "DQ-1 diversity", "DQ-2 anchoring", "DQ-3 coverage", "DQ weighted"],
                        [])
    for i, r in enumerate(dq.rows):
        out.rows.append([r.group if r.group == "all" else _condition_label(r.group), str(r.n_runs),
                         *(fmt_est(r.parts[p]) for p in ("dq1", "dq2", "dq3", "weighted"))])
        if not analysis.blinded:
            out.refs[(i, 0)] = DrillRef("dq_group", (r.group,))
        for p in ("dq1", "dq2", "dq3", "weighted"):
            notes.add(f"{r.group} {p}", r.parts[p])
    from .dq_study import targets_text

    out.notes = list(dq.notes) + _unsplit(dq) + [f"Seed 001 baseline targets: {targets_text()} (beside the "
                                                 "sequential and parallel means in the baseline table)."] + notes.lines
    return out


def _unsplit(dq) -> list[str]:
    """The flag of replies that could not be split into perspectives: every DQ table carries it."""
    return [dq.unsplit_note] if dq.unsplit_note else []


def dq_spread_rendered(analysis) -> RenderedTable:
    """SD per condition of each DQ measure and seed 001's anchoring flag (r > 0.3), beside the means."""
    out = RenderedTable("dq_spread", _title(analysis, "Decision quality: SD and anchoring flag"),
                        ["Condition", "Runs", "SD DQ-1", "SD DQ-2", "SD DQ-3", "SD weighted", "Anchoring r > 0.3"],
                        [])
    for r in analysis.dq.rows:
        flag = f"{r.anchoring_flagged} of {r.anchoring_tested}" if r.anchoring_tested else "not tested"
        out.rows.append([r.group if r.group == "all" else _condition_label(r.group), str(r.n_runs),
                         *(fmt_num(r.sd.get(p)) for p in ("dq1", "dq2", "dq3", "weighted")), flag])
    out.notes = ["SD: sample SD (n - 1) over the runs with a value; one run has none. Anchoring: runs whose "
                 "Pearson r(generation order, similarity to the first perspective) exceeds 0.3 (seed 001 §2.2), "
                 "of the runs where r was computed (sequential runs with four or more perspectives)."] \
        + _unsplit(analysis.dq)
    return out


def dq_baseline_rendered(analysis) -> RenderedTable:
    from .dq_study import DQ_LABELS, SEED_TARGETS, target_verdict

    def target(part: str, side: int, est) -> str:
        if part not in SEED_TARGETS:
            return DASH
        lo, hi = SEED_TARGETS[part][side]
        return f"{lo:.2f}-{hi:.2f} ({target_verdict(est, (lo, hi))})"

    out = RenderedTable("dq_baseline", _title(analysis, "Sequential (B3) vs parallel (C1, C2) baseline"),
                        ["Measure", "Sequential", "Seed 001 target", "Parallel", "Seed 001 target", "Difference",
                         "Rank-biserial r", "p", "p (Holm)", "Cohen's d"], [])
    from workbench.metrics.corrections import holm_adjusted

    notes = Notes()
    baseline = analysis.dq.baseline
    holm = holm_adjusted([b.mann_whitney.details.get("p_value") for b in baseline.values()])
    for (part, b), adjusted in zip(baseline.items(), holm):
        out.rows.append([DQ_LABELS[part], fmt_est(b.sequential), target(part, 0, b.sequential),
                         fmt_est(b.parallel), target(part, 1, b.parallel), fmt_est(b.difference),
                         fmt_est(b.mann_whitney, ci=False), fmt_p(b.mann_whitney.details.get("p_value")),
                         fmt_p(adjusted), fmt_est(b.cohens_d, ci=False)])
        notes.add(f"{DQ_LABELS[part]} d", b.cohens_d)
        notes.add(f"{DQ_LABELS[part]} r", b.mann_whitney)
    out.notes = ["Difference = parallel - sequential, bootstrap CI over cases (each side's value for a case is "
                 "the mean of its runs there). Runs with an undefined value are left out. "
                 "p: Mann-Whitney U, uncorrected, and Holm-adjusted over the table's measures (family-wise error).",
                 "Seed 001 targets: the naive (single-agent sequential) baseline and the parallel (ThinkTank) "
                 "expectation the seed states for DQ-1, DQ-2 and DQ-3 (none for the weighted score); the mean is "
                 "within, below or above the range."] + _unsplit(analysis.dq) + notes.lines
    return out


def calibration_rendered(analysis) -> RenderedTable:
    out = RenderedTable("calibration", _title(analysis, "Calibration of judge scores"),
                        ["Judge", "N", "ECE", "MCE", "Brier"], [])
    for i, c in enumerate(analysis.calibration):
        rep = c.report
        out.rows.append([c.judge, str(rep.n), fmt_est(rep.ece, 3, ci=False), fmt_est(rep.mce, 3, ci=False),
                         fmt_est(rep.brier, 3, ci=False)])
        out.refs[(i, 0)] = DrillRef("calibration", (c.judge,))
    rule = analysis.calibration[0].outcome_rule if analysis.calibration else ""
    out.notes = [f"Probability = judge score scaled to [0, 1]; {rule}. 10 equal-width bins."]
    return out


def reliability_rendered(analysis) -> RenderedTable:
    out = RenderedTable("reliability", _title(analysis, "Reliability bins"),
                        ["Judge", "Bin", "N", "Mean predicted", "Observed"], [])
    for c in analysis.calibration:
        for b in c.report.bins:
            if b.count:
                out.rows.append([c.judge, f"[{b.lower:.1f}, {b.upper:.1f})", str(b.count),
                                 fmt_num(b.mean_predicted), fmt_num(b.observed_frequency)])
    out.notes = ["Empty bins are left out."]
    return out


def probes_rendered(analysis) -> RenderedTable:
    from .analysis import HIDDEN

    out = RenderedTable("probes", _title(analysis, "Contamination probes (seed 000 §XIII.3)"),
                        ["Case", "Model", "Verdict", "Flagged", "Asked at"], [])
    probed = set()
    for p in analysis.probes:
        probed.add(p.case_id)
        out.rows.append([p.case_id, HIDDEN if analysis.blinded else p.model, p.verdict,
                         "yes" if p.flagged else "no", p.asked_at])
    for case in sorted(set(analysis.data.cases) - probed):
        out.rows.append([case, DASH, "not probed", DASH, DASH])
    out.notes = ["The latest probe per case and model. A recognized case may be contaminated: read its rows of "
                 "Tables 1-4 with that in mind."]
    return out


COUNT_LABELS = {"human_scores": "human scores (item x criterion x rater; pilot items excluded)",
                "judged_pairs": f"judged {units.PAIRS} in these tables (pilot items included; planted gold and "
                                "attention items and excluded evaluators left out)",
                "judged_pairs_in_study": f"judged {units.PAIRS} in the study (every item and evaluator, as `study "
                                         "show` and Studies count them)",
                "judge_error_pairs": f"judge errors ({units.PAIRS})",
                "seconds_given": "committee seconds asked for (per condition)",
                "seconds_unreadable": "seconds unreadable after one retry (neither yes nor no; never counted as no)",
                "votes_given": "committee votes cast (per condition)",
                "votes_unreadable": "votes unreadable after one retry (never counted as a vote)"}


def counts_rendered(analysis) -> RenderedTable:
    c = analysis.counts
    rows = [[COUNT_LABELS.get(k, k.replace("_", " ")),
             ", ".join(f"{s}: {n}" for s, n in sorted(v.items())) if isinstance(v, dict) else str(v)]
            for k, v in c.items()]
    return RenderedTable("counts", _title(analysis, "Study counts"), ["What", "Count"], rows)


def analysis_tables(analysis) -> list[RenderedTable]:
    """Every table of an analysis, in report order."""
    out: list[RenderedTable] = evaluator_blocks(analysis)
    if len(analysis.blocks) > 1 and analysis.agreement.human_vs_judge:
        out.append(judge_agreement_rendered(analysis))  # the evaluators' agreement, right after their blocks
    out.append(probes_rendered(analysis))  # beside the tables (seed 000 §XIII.3)
    out.append(agreement_rendered(analysis))
    if len(analysis.blocks) <= 1 and analysis.agreement.human_vs_judge:
        out.append(judge_agreement_rendered(analysis))
    if analysis.agreement.judge_panel:
        out.append(judge_panel_rendered(analysis))
    if analysis.data.judges:
        out.append(judge_errors_rendered(analysis))
    out.append(audit_rendered(analysis))
    if analysis.dq is not None:
        out.append(dq_rendered(analysis))
        out.append(dq_spread_rendered(analysis))
        if analysis.dq.baseline:
            out.append(dq_baseline_rendered(analysis))
    if analysis.calibration:
        out.append(calibration_rendered(analysis))
        out.append(reliability_rendered(analysis))
    out.append(counts_rendered(analysis))
    return out
