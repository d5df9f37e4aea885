"""Raw and adjudicated results side by side (issue 13): Table 1 and Table 3 (unblinded) or the
condition-free overall means (blinded), computed once on the raw human scores and once with every
adjudication applied (workbench/scoring/adjudication.py). One function feeds `metrics` and the report."""

from __future__ import annotations


def side_by_side(db, study_id: str, data=None) -> dict:
    """{"margin", "queue": n, "resolved": n, "open": n, "rows": [{"group", "metric", "raw", "adjudicated"}]}
    with Estimates in raw/adjudicated; rows are per condition once unblinded, else one "all" row per metric."""
    from store.adjudication import adjudications
    from workbench.protocols.hindsight.metrics.tables import HUMAN_RATERS, overall_table, table1, table3
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.scoring.adjudication import adjudicated_data, disagreements, margin_of

    data = data or load_study_data(db, study_id)
    adj = adjudications(db, study_id)
    margin = margin_of(data.definition)
    queue = disagreements(data, margin, adj)
    adjusted = adjudicated_data(data, adj)
    rows = []
    if data.blinded:
        raw_t, adj_t = overall_table(data, HUMAN_RATERS), overall_table(adjusted, HUMAN_RATERS)
        for r, a in zip(raw_t.rows, adj_t.rows):
            rows.append({"group": "all", "metric": r.metric.label, "raw": r.estimate, "adjudicated": a.estimate})
    else:
        for make in (table1, table3):
            raw_t, adj_t = make(data, HUMAN_RATERS), make(adjusted, HUMAN_RATERS)  # adjudication is of raters
            for r, a in zip(raw_t.rows, adj_t.rows):
                for m in raw_t.metrics:
                    rows.append({"group": r.condition, "metric": m.label, "raw": r.cells[m.key].estimate,
                                 "adjudicated": a.cells[m.key].estimate})
    resolved = sum(1 for d in queue if d.adjudicated is not None)
    return {"margin": margin, "queue": len(queue), "resolved": resolved, "open": len(queue) - resolved,
            "rows": rows}


def to_dict(doc: dict) -> dict:
    return {**doc, "rows": [{**r, "raw": r["raw"].to_dict(), "adjudicated": r["adjudicated"].to_dict()}
                            for r in doc["rows"]]}


def markdown(doc: dict) -> str:
    from workbench.metrics.render import fmt_est

    head = (f"Margin: raters more than {doc['margin']:g} point(s) apart on a criterion. Queue: {doc['queue']} "
            f"item-criteria, {doc['resolved']} adjudicated, {doc['open']} open (open ones keep their raw scores).")
    lines = [head, "", "| Group | Metric | Raw mean [95% CI] | Adjudicated mean [95% CI] |", "|---|---|---|---|"]
    lines += [f"| {r['group']} | {r['metric']} | {fmt_est(r['raw'])} | {fmt_est(r['adjudicated'])} |"
              for r in doc["rows"]]
    return "\n".join(lines) + "\n"
