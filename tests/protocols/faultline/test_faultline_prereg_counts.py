"""Issue 42 item 2 for faultline: each condition's sample size counts the units measured (a defined value),
against seed 002's design (30 topic × pair units per debate condition, 10 topics per baseline): a warning
below it, undefined at none."""

from __future__ import annotations

from workbench.protocols.faultline.report import scored_units_line


def _est(value, n):
    return {"value": value, "n": n, "undefined_reason": None if value is not None else "no stances parsed"}


def test_units_measured_are_counted_and_warned_below_the_seed_design():
    doc = {"conditions": {
        "plain": {"BA": _est(0.5, 4), "ACC": _est(0.5, 6), "CR": _est(None, 0)},
        "qbaf": {"BA": _est(None, 0), "ACC": _est(None, 0)},
        "graph-20": {"ACC": _est(0.7, 30)},
        "self-consistency": {"ACC": _est(0.6, 3)}}}
    line = scored_units_line(doc)
    assert "plain 6, qbaf 0, graph-20 30, self-consistency 3." in line
    assert "**Below seed 002's design**" in line and "plain (6 of 30), self-consistency (3 of 10)." in line
    assert "graph-20 (" not in line
    assert line.endswith("Undefined (nothing measured): qbaf.")
