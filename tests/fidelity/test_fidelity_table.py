"""The shared fidelity table (issue 45): counts per condition, its shapes, the blinded line, the cell mark, and
hindsight's `on_missing_treatment = "exclude"` leaving the undelivered runs' items out of every table."""

from __future__ import annotations

from workbench.fidelity.table import CSV_COLUMNS, MARK, build, mark_note
from workbench.protocol.base import TreatmentReading

STEPS = {"B1": "one answer", "C2": "a motion seconded and debated"}
READINGS = [TreatmentReading("s/case-a/B1/0", "B1", True),
            TreatmentReading("s/case-a/C2/0", "C2", False, "no debate: both motions died"),
            TreatmentReading("s/case-b/C2/0", "C2", False, "no debate: both motions died", flagged=True),
            TreatmentReading("s/case-c/C2/0", "C2", True, "debated 2 round(s)")]


def test_each_condition_counts_its_runs_and_what_happened_instead():
    table = build(STEPS, READINGS, "mark")
    c2 = table.row("C2")
    assert (c2.delivered, c2.runs, c2.flagged) == (1, 3, 1)
    assert c2.detail == "no debate: both motions died (2 runs); debated 2 round(s) (1 run)"
    assert (table.row("B1").delivered, table.row("B1").runs) == (1, 1)
    assert set(table.undelivered) == {"s/case-a/C2/0", "s/case-b/C2/0"}
    assert "C2 in 1 of 3 runs" in table.short() and "B1" not in table.short()


def test_the_three_shapes_carry_the_same_counts():
    table = build(STEPS, READINGS, "exclude")
    doc = table.to_dict()
    assert doc["on_missing_treatment"] == "exclude"
    assert [(r["condition"], r["delivered"], r["runs"]) for r in doc["rows"]] == [("B1", 1, 1), ("C2", 1, 3)]
    rows = table.csv_rows()
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [(r["condition"], r["delivered"], r["runs"]) for r in rows] == [("B1", "1", "1"), ("C2", "1", "3")]
    text = table.text()
    assert "1 of 3" in text and 'on_missing_treatment = "exclude"' in text
    assert "| C2 | a motion seconded and debated | 1 of 3 | 1 |" in table.markdown()


def test_a_blinded_table_names_no_condition_and_no_run():
    table = build(STEPS, READINGS, "mark", blinded=True)
    printed = table.text() + table.markdown() + str(table.to_dict()) + str(table.csv_rows())
    assert "C2" not in printed and "B1" not in printed and "motions died" not in printed
    assert "2 of 4" in table.text()
    assert table.row("C2").delivered == 1  # the core still knows, for the run-end line


def test_the_mark_note_counts_the_runs_a_table_stands_on():
    table = build(STEPS, READINGS, "mark")
    note = mark_note(table.undelivered, ["s/case-a/C2/0", "s/case-a/B1/0", "s/case-a/C2/0"])
    assert note.startswith(f"{MARK} stands on 1 run(s)") and "C2: no debate: both motions died x1" in note


def test_exclude_leaves_the_undelivered_runs_items_out_and_mark_keeps_them():
    from workbench.metrics.ratings import Item
    from workbench.protocols.hindsight.metrics.study_data import StudyData

    items = {"i1": Item("i1", "case-a", False, "s/case-a/C2/0", "C2", 0),
             "i2": Item("i2", "case-c", False, "s/case-c/C2/0", "C2", 0),
             "p1": Item("p1", "case-a", True, "s/case-a/B1/0", "B1", 0)}
    undelivered = build(STEPS, READINGS, "exclude").undelivered
    excluding = StudyData("s", "s", "hindsight", {}, False, items=items, undelivered=undelivered,
                          treatment_policy="exclude")
    marking = StudyData("s", "s", "hindsight", {}, False, items=items, undelivered=undelivered)
    assert [i.id for i in excluding.study_items()] == ["i2"]
    assert [i.id for i in marking.study_items()] == ["i1", "i2"]
