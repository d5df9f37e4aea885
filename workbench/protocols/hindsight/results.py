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
    head = f"Study {analysis.data.study_id} ({analysis.data.protocol}); {analysis.status_line()}\n"
    text = head + "\n" + tables_text(analysis_tables(analysis))
    if not analysis.data.raters:  # adjudication settles disagreements between human raters
        return MetricsDocument({**analysis.to_dict(), "adjudication": None}, text=text)
    side = adjudicated.side_by_side(db, study_id, analysis.data)
    text += "\nRaw and adjudicated results\n" + adjudicated.markdown(side)
    return MetricsDocument({**analysis.to_dict(), "adjudication": adjudicated.to_dict(side)}, text=text)


def report_text(db, study_id: str, options: dict) -> str:
    from workbench.protocols.hindsight import fidelity
    from workbench.protocols.hindsight.report import build_report

    from workbench.protocols.hindsight import adjudicated

    analysis = analysis_for(db, study_id, options)
    return build_report(analysis, fidelity=fidelity.section(db, study_id, dict(analysis.data.definition)),
                        topology="" if analysis.data.blinded else fidelity.topology_section(db, study_id),
                        adjudication=adjudicated.markdown(adjudicated.side_by_side(db, study_id, analysis.data))
                        if analysis.data.raters else "")
