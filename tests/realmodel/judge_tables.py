"""A judge-only hindsight study on the real local model fills its tables from the judge (issue 30).

Checked on the end-to-end run of `studies/local/hindsight-local.toml` (no raters, one judge on the local
model, B1 and C1 on one case): a study of its own cost the suite a quarter of its time. A 135M judge may fail
to give a verdict: the check is that every cell is computed from the verdicts that parsed, no more and no
fewer -- N is the number of cases with a parsed verdict, the value their mean, `metrics --json` the same
numbers, and Table 4's effect a number or the reason there is none (one case: "n too small").
"""

from __future__ import annotations

from collections import defaultdict

import pytest
import sqlite_utils

JUDGE = "judge-local"


def parsed_units(db_path, study: str, judge: str, rubric: str) -> dict[str, dict[str, float]]:
    """condition -> case -> mean of the judge's ok verdicts on `rubric` (one criterion), from the store."""
    from store import metrics_data as q

    db = sqlite_utils.Database(db_path)
    key = {k["item_id"]: k for k in q.unblinded_key(db, study)}
    items = {i["id"]: i for i in q.blind_items(db, study)}
    verdicts = [v for v in q.current_verdicts(db, study) if v["judge"] == judge and v["status"] == "ok"]
    ids = {h: r["rubric_id"] for h, r in q.rubric_definitions(db, [v["rubric_hash"] for v in verdicts]).items()}
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for v in verdicts:
        if ids[v["rubric_hash"]] == rubric and not items[v["item_id"]]["pilot"]:
            values[(key[v["item_id"]]["condition"], items[v["item_id"]]["case_id"])].append(v["value"])
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (condition, case), vs in values.items():
        out[condition][case] = sum(vs) / len(vs)
    return out


def assert_tables_from_the_judge(workbench, study: str, created: str) -> None:
    """Tables 1 and 4 of a judge-only study hold the judge's parsed verdicts, no more and no fewer."""
    assert f"tables from: the LLM judge {JUDGE}" in created
    doc = workbench.json("metrics", study, "--compare", "C1:B1:anticipation")

    assert doc["evaluator"] == f"judge:{JUDGE}"
    units = parsed_units(workbench.db, study, JUDGE, "anticipation")
    assert any(units.values()), "the judge parsed no Anticipation verdict at all"
    rows = {r["condition"]: r for r in doc["table1"]["rows"]}
    for condition in ("B1", "C1"):
        cell = rows[condition]["cells"]["anticipation"]["estimate"]
        expected = units.get(condition, {})
        assert rows[condition]["n_cases"]["anticipation"] == len(expected)
        if expected:
            assert cell["value"] == pytest.approx(sum(expected.values()) / len(expected))
        else:
            assert cell["value"] is None and cell["undefined_reason"]
    added = next(r for r in doc["table4"]["rows"] if (r["a"], r["b"]) == ("C1", "B1"))
    assert (added["n_a"], added["n_b"]) == (len(units.get("C1", {})), len(units.get("B1", {})))
    estimate = added["estimate"]
    assert (estimate["value"] is None) == bool(estimate["undefined_reason"])  # a number, or the reason there is none
    text = workbench.run("metrics", study).stdout
    assert f"Table 1 - Condition x metric scores - LLM judge {JUDGE}" in text
