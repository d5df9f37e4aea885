"""Issue 13 item 6: items whose raters disagree by more than the pre-registered margin are adjudicated
(a third rater or a recorded consensus), and metrics show raw and adjudicated results side by side."""

from __future__ import annotations

import json

import pytest

from tests.metrics_integration.conftest import ANT, H
from tests.metrics_integration.test_study_outputs import run_cli
from workbench.protocols.hindsight.metrics.study_data import load_study_data
from workbench.protocols.hindsight.adjudicated import side_by_side
from workbench.scoring.adjudication import AdjudicationError, adjudicate, disagreements, queue


def set_margin(db, margin: float) -> None:
    row = db.execute("SELECT definition FROM studies WHERE id = 'seeded-study'").fetchone()
    d = json.loads(row[0])
    d.setdefault("hindsight", {})["adjudication_margin"] = margin
    db.execute("UPDATE studies SET definition = ? WHERE id = 'seeded-study'", [json.dumps(d)])
    db.conn.commit()


def test_the_margin_decides_what_is_queued(seeded):
    data = load_study_data(seeded[0], "seeded-study")
    assert queue(seeded[0], "seeded-study") == []  # default margin 1: these raters never differ by more
    ant = [d for d in disagreements(data, 0.0) if d.rubric_id == "anticipation" and d.case_id == H]
    # by hand from conftest.ANT: rater-a and rater-b differ on H at slots 0 (B1) and 5 (C3)
    differ = [i for i in range(9) if ANT["rater-a"][H][i] != ANT["rater-b"][H][i]]
    assert differ == [0, 5] and len(ant) == 2
    assert all(d.raters == ("rater-a", "rater-b") and d.spread == 1.0 for d in ant)


def test_adjudication_is_recorded_and_metrics_show_raw_beside_adjudicated(seeded, capsys):
    db, path, s = seeded
    set_margin(db, 0.0)
    item = s.item_ids[(H, "B1", 0)]
    with pytest.raises(AdjudicationError, match="third rater must be someone other"):
        adjudicate(db, "seeded-study", item_id=item, rubric_id="anticipation", criterion="anticipation",
                   value=1, method="third_rater", adjudicator="rater-a")
    with pytest.raises(AdjudicationError, match="outside"):
        adjudicate(db, "seeded-study", item_id=item, rubric_id="anticipation", criterion="anticipation",
                   value=7, method="third_rater", adjudicator="rater-c")
    with pytest.raises(AdjudicationError, match="name them all"):
        adjudicate(db, "seeded-study", item_id=item, rubric_id="anticipation", criterion="anticipation",
                   value=1, method="consensus", adjudicator="rater-a")
    row = adjudicate(db, "seeded-study", item_id=item, rubric_id="anticipation", criterion="anticipation",
                     value=1, method="third_rater", adjudicator="rater-c", note="read the outcome twice")
    assert (row["value"], row["method"], row["adjudicator"]) == (1.0, "third_rater", "rater-c")
    doc = side_by_side(db, "seeded-study")
    b1 = next(r for r in doc["rows"] if r["group"] == "B1" and r["metric"] == "Anticipation")
    # by hand: B1 anticipation units per case, raw H (0+1)/2 = 0.5, G (1+1)/2 = 1, B (0+0)/2 = 0 -> 0.5;
    # adjudicated H takes 1 for both raters -> (1 + 1 + 0) / 3
    assert b1["raw"].value == pytest.approx(0.5) and b1["adjudicated"].value == pytest.approx(2 / 3)
    c2 = next(r for r in doc["rows"] if r["group"] == "C2" and r["metric"] == "Anticipation")
    assert c2["raw"].value == c2["adjudicated"].value  # nothing adjudicated there
    assert doc["queue"] > doc["resolved"] == 1
    # the batch metrics and report carry both
    code, out, _ = run_cli(capsys, "--batch", "--db", str(path), "--json", "metrics", "seeded-study", "--no-dq")
    adj = json.loads(out)["adjudication"]
    assert code == 0 and adj["resolved"] == 1
    code, out, _ = run_cli(capsys, "--batch", "--db", str(path), "hindsight", "adjudicate", "seeded-study")
    assert code == 0 and f"{item}  anticipation.anticipation  raters rater-a, rater-b  adjudicated 1" in out
    assert "scores" not in out  # a third rater reading the queue does not see the others' scores
    code, out, _ = run_cli(capsys, "--batch", "--db", str(path), "hindsight", "adjudicate", "seeded-study",
                           "--with-scores")
    assert "scores rater-a 0, rater-b 1" in out


def test_the_report_has_the_side_by_side_section(seeded, tmp_path, capsys):
    db, path, _ = seeded
    target = tmp_path / "report.md"
    code, _, _ = run_cli(capsys, "--batch", "--db", str(path), "report", "seeded-study", "--out", str(target),
                         "--no-dq")
    text = target.read_text()
    assert code == 0 and "### Raw and adjudicated results" in text
    assert "| B1 | Anticipation |" in text
