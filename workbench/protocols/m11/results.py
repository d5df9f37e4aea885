"""Per-sample results read from the store: every pipeline run of an item aggregated, with its binary verdict.

One function (`sample_results`) feeds the metrics document, the report, the
JSON export and the dashboard, so a number is the same everywhere.
"""

from __future__ import annotations

from statistics import mean

from workbench.protocols.m11.scoring import CRITERIA, band, confidence, shown


def aggregate(item: dict, likert: list[dict], binary: dict | None, costs: dict | None = None) -> dict:
    """One sample from its item payload, its likert run reports and its binary run report (or None).
    `costs`: {"cost", "cost_unknown", "runs"} summed over the sample's runs."""
    from workbench.protocols.m11.never import violations
    from workbench.protocols.m11.validation import key_points

    ok = [r for r in sorted(likert, key=lambda r: r.get("run_index", 0)) if r.get("status") == "ok"]
    errors = [r for r in likert if r.get("status") == "error"]
    out = {"id": item["id"], "title": item.get("title", ""), "item": item, "runs": len(likert), "ok_runs": len(ok),
           "errors": [{"run_index": r.get("run_index"), "stage": r.get("failed_stage"), "error": r.get("error")}
                      for r in errors],
           "run_overalls": [r["overall"] for r in ok], "overall": None, "scores": None, "band": None,
           "confidence": None, "spread": None, "summary": None, "binary": None, "binary_error": None,
           "cost": costs or {"cost": 0.0, "cost_unknown": False}}
    if ok:
        out["overall"] = shown(mean(r["overall"] for r in ok))   # to a tenth: what is shown is what is banded
        out["scores"] = {c: round(mean(r["scores"][c] for r in ok), 2) for c in CRITERIA}
        out["band"] = band(out["overall"])
        out["confidence"] = confidence(out["run_overalls"])
        out["spread"] = round(max(out["run_overalls"]) - min(out["run_overalls"]), 2) if len(ok) > 1 else None
        out["summary"] = ok[0]["summary"]
    if binary is not None:
        if binary.get("status") == "ok":
            out["binary"] = binary["verdict"]
        else:
            out["binary_error"] = binary.get("error")
    out["never_violations"] = violations(item["hard_constraints"], item.get("expected"))
    out["validation"] = key_points(item, out)
    return out


def run_reports(db, study_id: str) -> dict[str, dict[str, list[dict]]]:
    """item id -> {"likert": [reports], "binary": [reports], "runs": [run rows]} for finished runs."""
    from store.outputs import outputs_for_study
    from store.runs import list_runs

    by_item: dict[str, dict[str, list]] = {}
    for row in list_runs(db, study_id):
        by_item.setdefault(row["case_id"], {"likert": [], "binary": [], "runs": []})["runs"].append(row)
    for o in outputs_for_study(db, study_id):
        entry = by_item.setdefault(o["case_id"], {"likert": [], "binary": [], "runs": []})
        if o["condition"] in ("likert", "binary"):
            entry[o["condition"]].append({**o["report"], "run_id": o["run_id"]})
    return by_item


def sample_results(db, study_id: str) -> list[dict]:
    """Every planned item of the study (file order), aggregated over its finished runs."""
    from store.items import list_items
    from store.studies import get_study

    study = get_study(db, study_id)
    if study is None:
        raise KeyError(f"no study '{study_id}' in the store")
    options = study["definition"].get("m11") or {}
    reports = run_reports(db, study_id)
    items = [r["payload"] for r in list_items(db, study_id)]
    limit = options.get("limit") or 0
    if limit:
        items = items[:limit]
    out = []
    for item in items:
        entry = reports.get(item["id"], {"likert": [], "binary": [], "runs": []})
        binary = entry["binary"][0] if entry["binary"] else None
        runs = entry["runs"]
        costs = {"cost": sum(r["cost"] or 0.0 for r in runs), "cost_unknown": any(r["cost_unknown"] for r in runs),
                 "input_tokens": sum(r["input_tokens"] or 0 for r in runs),
                 "output_tokens": sum(r["output_tokens"] or 0 for r in runs),
                 "status": {s: sum(1 for r in runs if r["status"] == s) for s in {r["status"] for r in runs}}}
        result = aggregate(item, entry["likert"], binary, costs)
        result["run_reports"] = sorted(entry["likert"], key=lambda r: r.get("run_index", 0))
        result["binary_report"] = binary
        out.append(result)
    return out
