"""Issue 30: the seed's own evaluator. A judge-only study fills Tables 1-4 from its judge's verdicts, and they
equal `metrics --json`; a study with both evaluators shows one block each, then their agreement. The shipped
example `studies/glenda-crock-judge-sim.toml`, run offline on `sim`."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
import sqlite_utils

from tests.simulation.helpers import cli, metrics_json, sim_study
from workbench.cli.main import main

STUDY = "glenda-crock-judge-sim"
# B2 (no planted effect, no comparison of the seed's) left out keeps the test a little faster
CONDITIONS = ('conditions = ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]', 'conditions = ["B1", "B3", "C1", "C2", "C3", "P1"]')


def judge_units(db_path, study: str, judge: str) -> dict[tuple[str, str, str], float]:
    """(rubric, condition, case) -> the mean over the case's items of the judge's value, computed here from the
    stored verdicts and the unblinded key, not by the analysis: a one-criterion rubric's value, a composite's
    sum over every criterion (an item missing one, or with a judge_error, has no value)."""
    from store import metrics_data as q

    db = sqlite_utils.Database(db_path)
    key = {k["item_id"]: k for k in q.unblinded_key(db, study)}
    items = {i["id"]: i for i in q.blind_items(db, study)}
    verdicts = [v for v in q.current_verdicts(db, study) if v["judge"] == judge]
    rubrics = q.rubric_definitions(db, [v["rubric_hash"] for v in verdicts])
    cells: dict[tuple[str, str], dict[str, float | None]] = defaultdict(dict)
    for v in verdicts:
        cells[(v["item_id"], v["rubric_hash"])][v["criterion"]] = v["value"] if v["status"] == "ok" else None
    per_case: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for (item, h), crits in cells.items():
        if items[item]["pilot"]:
            continue
        criteria = [c["id"] for c in rubrics[h]["definition"]["criteria"]]
        if any(crits.get(c) is None for c in criteria):
            continue
        per_case[(rubrics[h]["rubric_id"], key[item]["condition"], items[item]["case_id"])].append(
            sum(crits[c] for c in criteria))
    return {k: float(np.mean(v)) for k, v in per_case.items()}


def pooled_d(a: list[float], b: list[float]) -> float:
    a, b = np.array(a), np.array(b)
    sp = np.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2))
    return float((a.mean() - b.mean()) / sp)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("judge-only")
    path = sim_study(tmp, STUDY, {CONDITIONS[0]: CONDITIONS[1]})
    db = tmp / "w.db"
    for argv in (("study", "create", str(path)), ("run", STUDY), ("judge", STUDY), ("unblind", STUDY)):
        cli(db, *argv)
    return db


def test_a_judge_only_study_fills_tables_1_to_4_from_its_judge(judged, capsys):
    doc = metrics_json(judged, STUDY, capsys)
    assert doc["evaluator"] == "judge:judge-a" and [b["evaluator"] for b in doc["evaluators"]] == ["judge:judge-a"]
    units = judge_units(judged, STUDY, "judge-a")
    assert units  # the judge judged
    t1 = doc["table1"]
    assert t1["evaluator"] == "judge:judge-a"
    for row in t1["rows"]:
        for rubric in ("anticipation", "epistemic-humility"):
            expected = {case: v for (r, c, case), v in units.items() if r == rubric and c == row["condition"]}
            cell = row["cells"][rubric]["estimate"]
            assert row["n_cases"][rubric] == len(expected) == 2          # populated: N > 0 where the judge scored
            assert cell["value"] == pytest.approx(np.mean(list(expected.values())))
            assert cell["ci_low"] is None and cell["ci_undefined_reason"].startswith("n too small")
    t3 = {r["condition"]: r for r in doc["table3"]["rows"]}
    for (rubric, cond, case), v in units.items():
        if rubric in ("glenda-crock", "blast-radius") and cond != "P1":
            assert t3[cond]["cells"][rubric]["estimate"]["value"] == pytest.approx(v)
    assert doc["table2"]["rows"]  # the P1 topology, as for any study
    t4 = doc["table4"]["rows"]
    assert [(r["a"], r["b"]) for r in t4] == [("C2", "B1"), ("C2", "B3"), ("C3", "C2"), ("C2", "B1")]
    for r in t4:
        metric = r["metric"]["key"]
        a = [v for (m, c, _), v in sorted(units.items()) if m == metric and c == r["a"]]
        b = [v for (m, c, _), v in sorted(units.items()) if m == metric and c == r["b"]]
        if np.var(a, ddof=1) == 0 and np.var(b, ddof=1) == 0:  # pooled SD 0: d undefined, said so
            assert r["estimate"]["value"] is None
        else:
            assert r["estimate"]["value"] == pytest.approx(pooled_d(a, b))
        assert (r["n_a"], r["n_b"], r["n_shared"]) == (2, 2, 2)
    # the predictions check reads the judge's Table 3
    preds = {p["condition"]: p for p in doc["evaluators"][0]["predictions"]}
    assert preds["C2"]["observed"]["value"] == pytest.approx(units[("glenda-crock", "C2", "glenda-crock")])
    assert doc["adjudication"] is None  # no raters, nothing to adjudicate


def test_the_text_and_the_report_say_where_the_tables_come_from(judged, capsys, tmp_path):
    capsys.readouterr()
    assert main(["--batch", "--db", str(judged), "metrics", STUDY]) == 0
    text = capsys.readouterr().out
    assert "Table 1 - Condition x metric scores - LLM judge judge-a" in text
    assert "Table 4 - Effect sizes - LLM judge judge-a" in text and "Raw and adjudicated" not in text
    out = tmp_path / "report.md"
    assert main(["--batch", "--db", str(judged), "report", STUDY, "--out", str(out)]) == 0
    report = out.read_text(encoding="utf-8")
    assert "- Tables from: the LLM judge judge-a" in report
    assert "### Glenda/Crock: predicted (seed 000 §VIII) vs observed - LLM judge judge-a" in report
    assert "Seed 001 target" in report


def test_study_create_says_what_the_tables_come_from(tmp_path, capsys):
    path = sim_study(tmp_path, STUDY)
    capsys.readouterr()
    assert main(["--batch", "--db", str(tmp_path / "w.db"), "study", "create", str(path)]) == 0
    assert "tables from: the LLM judge judge-a" in capsys.readouterr().out
    both = sim_study(tmp_path, STUDY, {"raters = []": 'raters = ["rater-a", "rater-b"]',
                                       'evaluator = "judge:judge-a"': 'evaluator = "both"'}, tag="both")
    assert main(["--batch", "--db", str(tmp_path / "w.db"), "study", "create", str(both)]) == 0
    assert ("tables from: the human raters, then the LLM judge judge-a, one block each, then their agreement"
            in capsys.readouterr().out)


def test_a_study_with_both_evaluators_shows_one_block_each_then_their_agreement(tmp_path, capsys):
    path = sim_study(tmp_path, STUDY, {CONDITIONS[0]: CONDITIONS[1],
                                       "raters = []": 'raters = ["rater-a", "rater-b"]',
                                       'evaluator = "judge:judge-a"': 'evaluator = "both"'})
    db = tmp_path / "w.db"
    for argv in (("study", "create", str(path)), ("run", STUDY), ("judge", STUDY), ("simulate", "raters", STUDY),
                 ("unblind", STUDY)):
        cli(db, *argv)
    doc = metrics_json(db, STUDY, capsys)
    blocks = doc["evaluators"]
    assert [b["evaluator"] for b in blocks] == ["raters", "judge:judge-a"]
    assert doc["table1"] == blocks[0]["table1"]  # the top-level tables are the primary evaluator's
    raters, judge = (b["table1"]["rows"][0]["cells"]["anticipation"]["estimate"]["value"] for b in blocks)
    units = judge_units(db, STUDY, "judge-a")
    assert judge == pytest.approx(np.mean([v for (r, c, _), v in units.items() if (r, c) == ("anticipation", "B1")]))
    assert blocks[1]["table4"]["rows"] and blocks[0]["table4"]["rows"]
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "metrics", STUDY]) == 0
    text = capsys.readouterr().out
    order = [text.index(t) for t in ("Table 1 - Condition x metric scores - human raters",
                                     "Table 4 - Effect sizes - human raters",
                                     "Table 1 - Condition x metric scores - LLM judge judge-a",
                                     "Table 4 - Effect sizes - LLM judge judge-a",
                                     "Human vs LLM-judge agreement",
                                     "Inter-rater agreement (human raters)")]
    assert order == sorted(order)  # two blocks in one layout, then the evaluators' agreement
    assert text.count("Table 2 - Topology map") == 1  # it codes the runs, not scores: once
    assert json.dumps(doc)  # serialisable whole
