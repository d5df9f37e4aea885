"""The per-study JSON export (seed 003 §11's results file): every sample's {overall, scores, summary} with
its band, confidence, runs and full debate, and the study's tables; a simulated study's carries the SIMULATED
mark (`"simulated": true` first, `simulated_banner` last: workbench.simulation.marks).

Format m11-results/2: `trend` is an object (its scope, this study's kind, the rows, each dated and labelled, and
what was left out), and each pipeline run carries every Judge verdict (`judge_verdicts`); /1 had a list of rows.
"""

from __future__ import annotations

from workbench.protocols.m11.metrics import options_of, public, study_metrics


def export_document(db, study_id: str) -> dict:
    from workbench.protocols.m11.results import sample_results
    from workbench.simulation.marks import mark_json

    results = sample_results(db, study_id)
    doc = study_metrics(db, study_id, results=results)
    samples = [{**s, "item": r["item"], "binary_reason": (r["binary_report"] or {}).get("reason"),
                "pipeline_runs": [{k: rep.get(k) for k in ("run_index", "status", "overall", "scores", "summary",
                                                           "band", "evidence", "debate", "judge_verdicts", "retries",
                                                           "failed_stage", "error")} for rep in r["run_reports"]]}
               for s, r in zip(doc["samples"], results)]
    document = {"format": "m11-results/2", **{k: v for k, v in doc.items() if k != "samples"}, "samples": samples}
    return mark_json(document, options_of(db, study_id)[0])


__all__ = ["export_document", "public"]
