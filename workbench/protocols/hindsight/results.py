"""Hindsight's metrics and report through the protocol interface: the analysis of `workbench.metrics`
(Tables 1–4, agreement, DQ, calibration of judge scores, probes), in the shapes the batch command prints."""

from __future__ import annotations

from workbench.protocol.base import MetricsDocument


def analysis_for(db, study_id: str, options: dict):
    from workbench.protocols.hindsight.metrics.analysis import analyze_study
    from workbench.metrics.embeddings import DEFAULT_MODEL

    return analyze_study(db, study_id, comparisons=options.get("comparisons") or [],
                         include_dq=options.get("include_dq", True),
                         embedding_model=options.get("embedding_model") or DEFAULT_MODEL,
                         progress=options.get("progress"))


def metrics_document(db, study_id: str, options: dict) -> MetricsDocument:
    if options.get("csv"):  # the long-format rows need the scores only, not the analysis
        from workbench.protocols.hindsight.metrics.export import CSV_COLUMNS, long_rows
        from workbench.protocols.hindsight.metrics.study_data import load_study_data

        data = load_study_data(db, study_id)
        notes = ["study is blinded: the condition and replicate columns are empty"] if data.blinded else []
        return MetricsDocument({}, csv_columns=list(CSV_COLUMNS), csv_rows=long_rows(data), notes=notes)
    from workbench.metrics.render import tables_text
    from workbench.protocols.hindsight.metrics.render import analysis_tables

    from workbench.protocols.hindsight import adjudicated

    analysis = analysis_for(db, study_id, options)
    tables = analysis_tables(analysis)
    head = f"Study {analysis.data.study_id} ({analysis.data.protocol}); {analysis.status_line()}\n"
    text = head + "\n" + tables_text(tables)
    document = {**analysis.to_dict(), "treatment_marks": treatment_marks(tables)}
    if not analysis.data.raters:  # adjudication settles disagreements between human raters
        return MetricsDocument({**document, "adjudication": None}, text=text)
    side = adjudicated.side_by_side(db, study_id, analysis.data)
    text += "\nRaw and adjudicated results\n" + adjudicated.markdown(side)
    return MetricsDocument({**document, "adjudication": adjudicated.to_dict(side)}, text=text)


def treatment_marks(tables) -> dict[str, list[dict]]:
    """table id -> the cells (row label, column) marked as standing on runs whose defining step did not happen:
    the same cells the text and the report mark (issue 45)."""
    from workbench.fidelity.table import MARK

    out = {}
    for t in tables:
        cells = [{"row": row[0], "column": t.columns[j]} for row in t.rows for j, cell in enumerate(row)
                 if j and cell.endswith(f" {MARK}")]
        if cells:
            out[t.id] = cells
    return out


def report_text(db, study_id: str, options: dict) -> str:
    from workbench.protocols.hindsight import fidelity
    from workbench.protocols.hindsight.report import build_report

    from workbench.protocols.hindsight import adjudicated

    analysis = analysis_for(db, study_id, options)
    return build_report(analysis, fidelity=fidelity.section(db, study_id, dict(analysis.data.definition),
                                                                 fidelity.scored_cases(analysis.data)),
                        topology="" if analysis.data.blinded else fidelity.topology_section(db, study_id),
                        adjudication=adjudicated.markdown(adjudicated.side_by_side(db, study_id, analysis.data))
                        if analysis.data.raters else "")
