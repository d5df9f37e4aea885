"""Issue 42 item 11, found again in the audit: a dry run's banner spoke of simulated raters to a study that has
none (calibration-small: three mock judges, no raters)."""

from __future__ import annotations

from workbench.simulation.marks import title_mark


def _dry(raters):
    return {"protocol": "calibration", "raters": raters, "model": {"name": "mock"},
            "judges": [{"name": "a", "model": "mock"}], "conditions": ["a"]}


def test_a_dry_run_without_raters_names_none():
    mark = title_mark(_dry([]), frozen=False)
    assert "**Dry run.**" in mark and "rater" in mark and "simulated raters" not in mark
    assert "the study has no raters" in mark


def test_a_dry_run_with_raters_says_where_their_scores_come_from():
    assert "simulated raters (`workbench --batch simulate raters`)" in title_mark(_dry(["ann"]), frozen=False)
