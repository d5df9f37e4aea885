"""Batch `metrics` text tables: a row's label is never cut (the walk found "judged item-rubric pairs in these
tables (pilot items inclu~"), a long value cell still is."""

from __future__ import annotations

from workbench.metrics.render import RenderedTable, to_text


def test_a_row_label_stays_whole_and_a_long_value_is_clipped():
    label = "judged item-rubric pairs in these tables (pilot items included, gold items left out)"
    value = "x" * 80
    text = to_text(RenderedTable("counts", "Counts", ["what", "n"], [[label, "60"], ["reason", value]]))
    assert label in text
    assert ("x" * 59 + "~") in text and value not in text
