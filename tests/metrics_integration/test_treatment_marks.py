"""Issue 45: the seeded study's committee runs record no resolution, so their treatment is not shown to have
happened: every Table 1 cell of C2 (and of P1, whose committees are C2's) is marked, B1's are not; under
`on_missing_treatment = "exclude"` those runs' items leave the tables."""

from __future__ import annotations

from tests.metrics_integration.conftest import FakeEmbedder
from workbench.fidelity.table import MARK
from workbench.protocols.hindsight.metrics.analysis import analyze
from workbench.protocols.hindsight.metrics.render import analysis_tables
from workbench.protocols.hindsight.metrics.study_data import load_study_data
from workbench.protocols.hindsight.results import treatment_marks


def table1_rows(data) -> dict[str, list[str]]:
    t1 = next(t for t in analysis_tables(analyze(data, embedder=FakeEmbedder(), include_dq=False))
              if t.id == "table1")
    return {row[0].split(" ")[0]: row for row in t1.rows} | {"notes": t1.notes}


def test_cells_on_runs_without_their_step_are_marked_and_named(seeded):
    data = load_study_data(seeded[0], "seeded-study")
    assert data.undelivered and all(r.condition in ("C2", "C3", "P1") for r in data.undelivered.values())
    rows = table1_rows(data)
    assert all(cell.endswith(f" {MARK}") for cell in rows["C2"][1:-1])
    assert not any(MARK in cell for cell in rows["B1"])
    assert any(n.startswith(f"{MARK} stands on") and "C2: no resolution recorded" in n for n in rows["notes"])
    marks = treatment_marks(analysis_tables(analyze(data, embedder=FakeEmbedder(), include_dq=False)))
    assert {"row": rows["C2"][0], "column": "Anticipation (0-3)"} in marks["table1"]


def test_exclude_takes_those_runs_out_of_the_tables(seeded):
    data = load_study_data(seeded[0], "seeded-study")
    data.treatment_policy = "exclude"
    rows = table1_rows(data)
    assert rows["C2"][1] == "undefined" and rows["C2"][-1] == "0"   # no rated items left
    assert rows["B1"][-1] != "0" and MARK not in rows["B1"][1]
