"""The real-model hindsight study reports its treatment fidelity table (issue 45), and its counts are the ones
recounted here from the stored events: B1 delivers in every finished run; C1 when every planned respondent's
answer (a `perspective` event) is non-empty."""

from __future__ import annotations

import json

import sqlite_utils

FINISHED = ("done", "done_with_errors")


def recount(db_path, study: str, definition: dict) -> dict[str, tuple[int, int]]:
    """condition -> (runs whose step happened, finished runs), from the runs and events tables."""
    db = sqlite_utils.Database(db_path)
    respondents = ((definition.get("architectures") or {}).get("C1") or {}).get("respondents", 5)
    out: dict[str, list[int]] = {}
    for run in db["runs"].rows_where("study_id = ?", [study]):
        if run["status"] not in FINISHED:
            continue
        counts = out.setdefault(run["condition"], [0, 0])
        counts[1] += 1
        if run["condition"] == "C1":
            answers = [json.loads(e["payload"]).get("text") or "" for e in
                       db["events"].rows_where("run_id = ? AND kind = 'perspective'", [run["id"]])]
            counts[0] += sum(1 for a in answers if a.strip()) >= respondents
        elif run["condition"] == "B1":
            counts[0] += 1
    return {c: (d, n) for c, (d, n) in out.items()}


def assert_fidelity_recounted(workbench, study: str, metrics: dict) -> None:
    table = metrics["treatment_fidelity"]
    definition = workbench.json("study", "show", study)["definition"]
    expected = recount(workbench.db, study, definition)
    assert expected, "no finished runs to count"
    got = {r["condition"]: (r["delivered"], r["runs"]) for r in table["rows"]}
    assert got == expected, (got, expected)
    report = (workbench.root / f"{study}.md").read_text()
    assert "## Treatment fidelity" in report
