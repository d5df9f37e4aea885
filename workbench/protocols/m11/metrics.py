"""The one core every view reads: `study_metrics` (TUI dashboard, batch metrics, report, JSON export)."""

from __future__ import annotations

from workbench.protocols.m11 import tables
from workbench.protocols.m11.scoring import CRITERIA

FILTER_ARTIFACT = "m11_input_filter"   # study artifact: what the InputFilter loaded and excluded


def options_of(db, study_id: str) -> tuple[dict, dict]:
    from store.studies import get_study

    study = get_study(db, study_id)
    if study is None:
        raise KeyError(f"no study '{study_id}' in the store")
    return study["definition"], study["definition"].get("m11") or {}


KINDS = ("real", "simulated", "dry run")


def study_kind(definition: dict) -> str:
    """What a study's numbers are: "simulated" (the offline `sim` model), "dry run" (every call on `mock`,
    placeholder text) or "real" (a model's answers)."""
    from workbench.simmodel.label import is_simulated
    from workbench.simulation.marks import is_placeholder

    if is_simulated(definition):
        return "simulated"
    return "dry run" if is_placeholder(definition) else "real"


def trend(db, study_id: str) -> dict:
    """The trend of like with like (seed 003 §10, "trend over time"): the M11 studies of this study's module,
    of its kind (real, simulated or dry run; every kind with `[m11] trend = "all"`), that ran at least once and
    were created no later than this study, oldest first, each dated and labelled. A study created later never
    changes this study's trend; `left_out` counts the studies created before it that were not listed, and why."""
    from store.runs import list_runs
    from store.studies import get_study, list_studies
    from workbench.protocols.m11.results import sample_results

    this = get_study(db, study_id)
    options = this["definition"].get("m11") or {}
    module, scope, kind = options.get("module", "M11"), options.get("trend", "same"), study_kind(this["definition"])
    rows, left_out = [], {"never ran": 0, **{k: 0 for k in KINDS if k != kind}}
    for s in list_studies(db):   # by created_at, then id: the same order every time
        if s["protocol"] == "m11" and (s["definition"].get("m11") or {}).get("module", "M11") == module:
            s_kind = study_kind(s["definition"])
            finished = [r["finished_at"] for r in list_runs(db, s["id"]) if r["finished_at"]]
            if scope == "same" and s_kind != kind:
                left_out[s_kind] += 1
            elif not finished:
                left_out["never ran"] += 1
            else:
                results = sample_results(db, s["id"])
                dist = tables.band_distribution(results)
                scored = [r["overall"] for r in results if r["overall"] is not None]
                rows.append({"study": s["id"], "kind": s_kind, "created_at": s["created_at"],
                             "last_run_at": max(finished), "this_study": s["id"] == study_id, "samples": len(results),
                             "scored": dist["n"], "pass_rate": dist["pass_rate"],
                             "mean_overall": round(sum(scored) / len(scored), 2) if scored else None})
        if s["id"] == study_id:
            break   # nothing created after this study: a later study never changes its trend
    return {"module": module, "scope": scope, "kind": kind, "rows": rows,
            "left_out": {k: v for k, v in left_out.items() if v}}


def study_metrics(db, study_id: str, *, with_trend: bool = True, results: list[dict] | None = None) -> dict:
    from store.items import get_artifact
    from workbench.protocols.m11.cost import actual, estimate
    from workbench.protocols.m11.human import human_validation
    from workbench.protocols.m11.results import sample_results

    definition, options = options_of(db, study_id)
    results = sample_results(db, study_id) if results is None else results
    return {
        "study": study_id, "protocol": "m11", "module": options.get("module", "M11"), "runs": options.get("runs", 3),
        "conditions": definition.get("conditions") or ["likert", "binary"],
        "input_filter": get_artifact(db, study_id, FILTER_ARTIFACT, "report"),
        "samples": [public(r) for r in results],
        "bands": tables.band_distribution(results),
        "profile": tables.criterion_profile(results),
        "histogram": tables.histogram(results),
        "binary": tables.binary_agreement(results),
        "validation": tables.validation_table(results),
        "confidence": tables.confidence_table(results),
        "retries": tables.retry_table(results),
        "human": human_validation(db, study_id, results, options,
                                  (definition.get("thresholds") or {}).get("human_r", 0.85)),
        "cost": {"estimate": estimate(definition, [r["item"] for r in results]), "actual": actual(results)},
        "trend": trend(db, study_id) if with_trend else None,
    }


def public(result: dict) -> dict:
    """A sample as the documents carry it: seed 003 §5's {overall, scores, summary} and what was derived."""
    return {"id": result["id"], "title": result["title"], "overall": result["overall"], "scores": result["scores"],
            "summary": result["summary"], "band": result["band"], "confidence": result["confidence"],
            "spread": result["spread"], "run_overalls": result["run_overalls"], "ok_runs": result["ok_runs"],
            "runs": result["runs"], "errors": result["errors"], "binary": result["binary"],
            "binary_error": result["binary_error"], "validation": result["validation"],
            "never_violations": result["never_violations"], "cost": result["cost"]}


CSV_COLUMNS = ["item", "title", "overall", "band", "confidence", *CRITERIA, "ok_runs", "errors", "binary", "cost"]


def csv_rows(document: dict) -> list[dict]:
    rows = []
    for s in document["samples"]:
        scores = s["scores"] or {}
        rows.append({"item": s["id"], "title": s["title"], "overall": s["overall"], "band": s["band"],
                     "confidence": s["confidence"], **{c: scores.get(c) for c in CRITERIA},
                     "ok_runs": s["ok_runs"], "errors": len(s["errors"]), "binary": s["binary"],
                     "cost": s["cost"]["cost"]})
    return rows
