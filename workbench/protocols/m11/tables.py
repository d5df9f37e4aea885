"""The study-level tables over the sample results: bands vs the seed's expectation, binary agreement,
confidence, variance by criterion, retries and counted errors."""

from __future__ import annotations

from statistics import variance

from workbench.protocols.m11.scoring import BANDS, CONFIDENCE_LEVELS, CRITERIA, PASSING, likert_range


def band_distribution(results: list[dict]) -> dict:
    scored = [r for r in results if r["band"] is not None]
    n = len(scored)
    rows = []
    for name, lower, (lo, hi) in BANDS:
        count = sum(1 for r in scored if r["band"] == name)
        rows.append({"band": name, "lower": lower, "likert": likert_range(name), "count": count,
                     "percent": round(100 * count / n, 1) if n else None, "expected_percent": [lo, hi],
                     "within_expected": None if not n else lo <= 100 * count / n <= hi})
    passed = sum(1 for r in scored if r["band"] in PASSING)
    return {"n": n, "unscored": len(results) - n, "rows": rows,
            "pass_rate": round(passed / n, 4) if n else None, "passed": passed}


def binary_agreement(results: list[dict]) -> dict:
    """The binary judge's PASS/FAIL against the Likert band (PASS = Strong PASS or PASS; Borderline and
    FAIL count as FAIL): cross table, percent agreement, Cohen's kappa; also without Borderline."""
    from workbench.metrics.agreement import cohens_kappa, percent_agreement

    pairs = [(r["binary"], r["band"]) for r in results if r["binary"] is not None and r["band"] is not None]
    table = {v: {b[0]: 0 for b in BANDS} for v in ("PASS", "FAIL")}
    for verdict, b in pairs:
        table[verdict][b] += 1
    likert = ["PASS" if b in PASSING else "FAIL" for _, b in pairs]
    binary = [v for v, _ in pairs]
    clear = [(v, "PASS" if b in PASSING else "FAIL") for v, b in pairs if b != "Borderline"]
    binary_errors = sum(1 for r in results if r.get("binary_error"))
    return {"n": len(pairs), "cross_table": table, "binary_errors": binary_errors,
            "binary_pass_rate": round(binary.count("PASS") / len(binary), 4) if binary else None,
            "agreement": percent_agreement(binary, likert).to_dict(),
            "kappa": cohens_kappa(binary, likert, categories=["FAIL", "PASS"]).to_dict(),
            "agreement_without_borderline": percent_agreement([a for a, _ in clear], [b for _, b in clear]).to_dict()}


def confidence_table(results: list[dict]) -> dict:
    rated = [r for r in results if r["ok_runs"]]
    counts = {level: sum(1 for r in rated if r["confidence"] == level) for level in CONFIDENCE_LEVELS}
    counts["single run"] = sum(1 for r in rated if r["confidence"] is None)
    # run-to-run variance of each criterion within a sample (ddof 1), averaged over samples with 2+ runs
    multi = [r for r in rated if r["ok_runs"] >= 2]
    var = {}
    for c in CRITERIA:
        values = [variance([rep["scores"][c] for rep in r["run_reports"] if rep.get("status") == "ok"])
                  for r in multi]
        var[c] = round(sum(values) / len(values), 4) if values else None
    overall = [variance(r["run_overalls"]) for r in multi]
    return {"n": len(rated), "counts": counts, "variance_by_criterion": var,
            "variance_overall": round(sum(overall) / len(overall), 4) if overall else None,
            "samples_with_spread": len(multi)}


def retry_table(results: list[dict]) -> dict:
    retries: dict[str, int] = {}
    errors: dict[str, int] = {}
    runs = unresolved = runs_retried = 0
    for r in results:
        reports = list(r["run_reports"]) + ([r["binary_report"]] if r["binary_report"] else [])
        for rep in reports:
            runs += 1
            got = rep.get("retries") or {}
            runs_retried += 1 if any(got.values()) else 0
            for stage, n in got.items():
                retries[stage] = retries.get(stage, 0) + n
            if rep.get("status") == "error":
                errors[rep.get("failed_stage") or "?"] = errors.get(rep.get("failed_stage") or "?", 0) + 1
            unresolved += 1 if rep.get("sycophancy_unresolved") else 0
    return {"runs": runs, "runs_retried": runs_retried, "retries": retries, "counted_errors": errors,
            "counted_errors_total": sum(errors.values()), "sycophancy_unresolved": unresolved}


def criterion_profile(results: list[dict]) -> dict:
    """Mean of each criterion over scored samples (the Likert profile / radar)."""
    scored = [r for r in results if r["scores"]]
    return {c: (round(sum(r["scores"][c] for r in scored) / len(scored), 2) if scored else None) for c in CRITERIA}


def histogram(results: list[dict], width: float = 0.5) -> list[dict]:
    """Counts of the overall score in bins [0, 0.5), ..., [4.5, 5.0]."""
    bins = [{"lo": round(i * width, 2), "hi": round((i + 1) * width, 2), "count": 0} for i in range(int(5 / width))]
    for r in results:
        if r["overall"] is not None:
            index = min(int(r["overall"] / width + 1e-9), len(bins) - 1)
            bins[index]["count"] += 1
    return bins


def validation_table(results: list[dict]) -> dict:
    points = [(r["id"], p) for r in results for p in r["validation"]]
    checked = [p for _, p in points if p["ok"] is not None]
    return {"points": len(points), "checked": len(checked), "met": sum(1 for p in checked if p["ok"]),
            "missed": [{"item": i, **p} for i, p in points if p["ok"] is False],
            "never_violations": {r["id"]: r["never_violations"] for r in results if r["never_violations"]}}
