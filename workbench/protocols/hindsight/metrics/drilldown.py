"""From a number to the items and scores behind it (the Metrics screen's drill-down).

`drilldown(data, ref)` returns a RenderedTable listing the blind items, the
raters' scores and the judges' verdicts that produced a table cell.

Blinded studies get condition-free drill-downs only, and without values:
an item's id, its case and how many human scores and judge verdicts it has.
Individual scores stay hidden until unblinding, because a rater who opens
this screen must not learn another rater's score (and an item-level mean of
two raters would give it away).
"""

from __future__ import annotations

from collections import defaultdict

from workbench.metrics.render import DASH, DrillRef, RenderedTable, fmt_num
from workbench.rubrics import units

from .agreement_report import PILOTS
from .study_data import StudyData
from .tables import BLINDED_LABEL, condition_units, item_scores, metric_values, resolve_metric, study_evaluators


def _item_rows(data: StudyData, metric, item_ids, title: str, table_id: str, evaluator=None) -> RenderedTable:
    if data.blinded:
        return _blinded_items(data, metric, item_ids, title, table_id)
    human = metric_values(data.scores, metric, data)
    judged = metric_values(data.verdicts, metric, data)
    raters = [r for r in data.raters if any(r in human.get(i, {}) for i in item_ids)]
    judges = [j for j in data.judges if any(
        v.evaluator == j and v.item_id in item_ids and v.rubric_id == metric.rubric_id for v in data.verdicts)]
    errors = defaultdict(set)
    for v in data.verdicts:
        if v.status != "ok" and v.rubric_id == metric.rubric_id:
            errors[(v.item_id, v.evaluator)].add(v.criterion)
    means = item_scores(data, metric, _raters_or(evaluator))
    out = RenderedTable(table_id, title, ["Item", "Case", "Condition", "Rep."] + raters + ["Mean"] + judges, [])
    for item_id in sorted(item_ids, key=lambda i: (data.items[i].case_id, data.items[i].replicate or 0, i)):
        it = data.items[item_id]
        row = [item_id, it.case_id, it.condition or DASH, DASH if it.replicate is None else str(it.replicate)]
        row += [fmt_num(human.get(item_id, {}).get(r)) for r in raters]
        row.append(fmt_num(means.get(item_id)))
        for j in judges:
            if (item_id, j) in errors:
                row.append("judge_error")
            else:
                row.append(fmt_num(judged.get(item_id, {}).get(j)))
        out.rows.append(row)
    out.notes = [f"{metric.label}: each rater's current value, the item mean over raters, and each judge's "
                 "current verdict (judge_error = excluded)."]
    if evaluator is not None and evaluator.is_judge:
        out.notes.append(f"The cell behind this list is computed from the LLM judge {evaluator.name}'s verdicts.")
    return out


def _raters_or(evaluator):
    """The Mean column is always the raters' mean (the judges have their own columns)."""
    from .tables import HUMAN_RATERS

    return HUMAN_RATERS if evaluator is None or evaluator.is_judge else evaluator


def _evaluator(data: StudyData, key: str | None):
    """The evaluator a block's reference names (its key), else the study's primary one."""
    evaluators = study_evaluators(data)
    return next((e for e in evaluators if e.key == key), evaluators[0])


def _blinded_items(data: StudyData, metric, item_ids, title: str, table_id: str) -> RenderedTable:
    n_human = defaultdict(set)
    for s in data.scores:
        if s.rubric_id == metric.rubric_id:
            n_human[s.item_id].add(s.evaluator)
    ok, err = defaultdict(set), defaultdict(set)
    for v in data.verdicts:
        if v.rubric_id == metric.rubric_id:
            (ok if v.status == "ok" else err)[v.item_id].add(v.evaluator)
    out = RenderedTable(table_id, f"{title} ({BLINDED_LABEL})",
                        ["Item", "Case", "Raters who scored", "Judges ok", "Judge errors"], [])
    for item_id in sorted(item_ids, key=lambda i: (data.items[i].case_id, i)):
        out.rows.append([item_id, data.items[item_id].case_id, str(len(n_human[item_id])),
                         str(len(ok[item_id] - err[item_id])), str(len(err[item_id]))])
    out.notes = [f"{BLINDED_LABEL}: scores are hidden until unblinding; only who has scored is shown."]
    return out


def drilldown(data: StudyData, ref: DrillRef) -> RenderedTable:
    """The items and scores behind one number. Raises ValueError for a reference that does not apply."""
    kind, args = ref.kind, ref.args
    if kind in ("condition_cell", "effect", "dq_group", "topology", "audit") and data.blinded:
        raise ValueError(f"{BLINDED_LABEL}: this number needs an unblinded study")
    if kind == "condition_cell":
        condition, key, *who = args
        metric, evaluator = resolve_metric(data, key), _evaluator(data, who[0] if who else None)
        ids = [i for u in condition_units(data, metric, condition, evaluator=evaluator) for i in u.item_ids]
        return _item_rows(data, metric, ids, f"{condition} x {metric.label}: items behind the cell", "drill",
                          evaluator)
    if kind == "effect":
        a, b, key, *who = args
        metric, evaluator = resolve_metric(data, key), _evaluator(data, who[0] if who else None)
        ua = {u.case_id: u for u in condition_units(data, metric, a, evaluator=evaluator)}
        ub = {u.case_id: u for u in condition_units(data, metric, b, evaluator=evaluator)}
        out = RenderedTable("drill", f"{a} vs. {b}, {metric.label}: per-case units",
                            ["Case", a, b, f"{a} - {b}", f"{a} items", f"{b} items"], [])
        for case in sorted(set(ua) | set(ub)):
            va = ua[case].value if case in ua else None
            vb = ub[case].value if case in ub else None
            out.rows.append([case, fmt_num(va), fmt_num(vb), fmt_num(va - vb) if None not in (va, vb) else DASH,
                             " ".join(ua[case].item_ids) if case in ua else DASH,
                             " ".join(ub[case].item_ids) if case in ub else DASH])
        out.notes = ["Cohen's d uses every case of each condition as an independent group; a case with both "
                     f"conditions is also a pair for d_z. Units from the {evaluator.label}."]
        return out
    if kind == "overall":
        key, *who = args
        metric, evaluator = resolve_metric(data, key), _evaluator(data, who[0] if who else None)
        ids = sorted(i for i in item_scores(data, metric, evaluator))
        return _item_rows(data, metric, ids, f"{metric.label}: rated items", "drill", evaluator)
    if kind == "agreement":
        (key,) = args
        metric = resolve_metric(data, key)
        values = metric_values(data.scores, metric, data)
        ids = sorted(i for i, v in values.items() if len(v) >= 2 and not data.items[i].pilot)
        return _item_rows(data, metric, ids, f"{metric.label}: items scored by two or more raters", "drill")
    if kind == "judge":
        judge, key = args
        metric = resolve_metric(data, key)
        ids = sorted({v.item_id for v in data.verdicts if v.evaluator == judge and v.rubric_id == metric.rubric_id
                      and not data.items[v.item_id].pilot})
        return _item_rows(data, metric, ids, f"{judge} on {metric.label}: judged items", "drill")
    if kind == "judge_errors":
        judge, condition = args
        def in_row(item) -> bool:
            if condition is None:
                return True
            return item.pilot if condition == PILOTS else not item.pilot and item.condition == condition

        pairs = {(v.item_id, v.rubric_id): v for v in data.verdicts
                 if v.evaluator == judge and v.status != "ok" and in_row(data.items[v.item_id])}
        out = RenderedTable("drill", f"{judge}: judge-error {units.PAIRS}", ["Item", "Case", "Rubric", "At"], [])
        for (item_id, rubric_id), v in sorted(pairs.items()):
            out.rows.append([item_id, data.items[item_id].case_id, rubric_id, v.at])
        return out
    if kind == "audit":
        (condition,) = args
        rows = [a for a in data.audits if a.item_id in data.items and not data.items[a.item_id].pilot
                and (condition is None or data.items[a.item_id].condition == condition)]
        out = RenderedTable("drill", f"Blindness audit: {condition or 'all conditions'}",
                            ["Item", "Case", "Condition", "Model", "Correct"], [])
        for a in rows:
            it = data.items[a.item_id]
            out.rows.append([a.item_id, it.case_id, it.condition or DASH, a.model,
                             DASH if a.correct is None else ("yes" if a.correct else "no")])
        return out
    if kind == "topology":
        (case,) = args
        items = [i for i in data.study_items() if i.case_id == case and i.condition == "P1"]
        out = RenderedTable("drill", f"P1 runs of {case}", ["Item", "Run", "Replicate"], [])
        for it in sorted(items, key=lambda i: i.replicate or 0):
            out.rows.append([it.id, it.run_id or DASH, str(it.replicate)])
        return out
    if kind == "calibration":
        raise ValueError("the bins behind a calibration number are in the reliability table and diagram")
    raise ValueError(f"no drill-down for '{kind}'")


def dq_group_drilldown(analysis, group: str) -> RenderedTable:
    """The runs behind one line of the decision-quality table (unblinded only)."""
    if analysis.blinded or analysis.dq is None:
        raise ValueError(f"{BLINDED_LABEL}: per-run decision quality needs an unblinded study")
    from workbench.metrics.render import fmt_est

    runs = [r for r in analysis.dq.runs if group == "all" or r.condition == group]
    out = RenderedTable("drill", f"Decision quality runs: {group}",
                        ["Run", "Case", "Condition", "Perspectives", "Generation", "DQ-1", "DQ-2", "DQ-3",
                         "Weighted", "Concerns by"], [])
    for r in runs:
        out.rows.append([r.run_id, r.case_id, r.condition or DASH, str(r.n_perspectives), r.generation,
                         fmt_est(r.dq1, ci=False), fmt_est(r.dq2, ci=False), fmt_est(r.dq3, ci=False),
                         fmt_est(r.weighted, ci=False), r.concern_source])
    return out
