"""The calibration panels, standalone at 80×24 and on a large terminal: outcome first, tables, import progress."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button, DataTable, Input, ProgressBar, Static

from screens.calibration.import_screen import CalibrationImportScreen
from screens.calibration.results_screen import CalibrationResultsScreen
from tests.protocols.calibration.calkit import definition, make_db, save, scored_study
from workbench.protocols.calibration.results import study_results


class Host(App):
    def __init__(self, screen_factory):
        super().__init__()
        self.factory = screen_factory

    def on_mount(self) -> None:
        self.push_screen(self.factory())


async def settle(pilot) -> None:
    for _ in range(3):
        busy = [w for w in pilot.app.workers if not w.is_finished]
        if busy:
            await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause(0.05)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_results_screen_shows_the_outcome_first_and_the_same_numbers(tmp_path, size):
    db, sid = scored_study(tmp_path)
    doc = study_results(db, sid)
    app = Host(lambda: CalibrationResultsScreen(db, sid))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        outcome = screen.query_one("#cal-outcome", Static)
        assert str(outcome.render()).startswith(doc["outcome"]["summary"][:40])
        assert outcome.region.y <= 1 and outcome.region.height >= 1        # on top, visible
        agreement = screen.query_one("#cal-agreement", DataTable)
        assert agreement.get_row_at(0)[1] == f"{doc['arm_c']['alpha']['value']:.3f}"
        judges = screen.query_one("#cal-judges", DataTable)
        assert judges.row_count == 3 and judges.get_row_at(0)[3] == "1"     # claude's judge_error
        bins = screen.query_one("#cal-bins", DataTable)
        assert bins.row_count == 10
        assert screen.query_one("#cal-fidelity-line", Static).render().plain.startswith("60 interactions")
        await pilot.press("r")
        await settle(pilot)
        assert screen.document["arm_c"]["alpha"]["value"] == doc["arm_c"]["alpha"]["value"]


async def test_fidelity_tab_gives_every_dash_its_reason(tmp_path):
    """Empty reliability bins read "— (no interactions in this bin)", the core's reason as the report prints it;
    no cell of the Fidelity tab is a bare "—"."""
    from workbench.protocols.calibration.report import EMPTY_BIN, sections

    db, sid = scored_study(tmp_path)
    doc = study_results(db, sid)
    counts = [b["count"] for b in doc["arm_a"]["calibration"]["bins"]]
    assert 0 in counts and any(counts)        # the fixture has empty bins and filled ones
    app = Host(lambda: CalibrationResultsScreen(db, sid))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#cal-bins", DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        for count, row in zip(counts, rows):
            if count:
                assert all(cell[0].isdigit() for cell in row[2:])
            else:
                assert row[2:] == [f"— ({EMPTY_BIN})"] * 3
        assert not any(cell.strip() == "—" for row in rows for cell in row)
        # the report's Arm A table says the same of the same bins
        arm_a = next(s.body for s in sections(doc) if s.title.startswith("Arm A"))
        assert arm_a.count(f"— ({EMPTY_BIN})") == 3 * counts.count(0)
        line = app.screen.query_one("#cal-fidelity-line", Static).render().plain
        assert "—" not in line and f"best k {doc['arm_a']['k_sweep']['best_k']:g}" in line


async def test_import_screen_shows_progress_and_each_bad_record(tmp_path):
    db, _ = make_db(tmp_path)
    sid = save(db, definition("cal-import-ui"))
    data = tmp_path / "in.csv"
    data.write_text("run_id,interaction_id,scenario,v_hat,ground_truth,content\n"
                    "r,1,s,0.1,1,good\nr,2,s,x,1,bad\nr,3,s,0.3,2,bad label\nr,4,s,0.3,-1,good\n", encoding="utf-8")
    app = Host(lambda: CalibrationImportScreen(db, sid))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#cal-import-path", Input).value = str(data)
        await pilot.click("#cal-import-go")
        await settle(pilot)
        assert "2 added" in str(screen.query_one("#cal-import-summary", Static).render())
        table = screen.query_one("#cal-import-problems", DataTable)
        assert [table.get_row_at(i)[:2] for i in range(table.row_count)] == [["3", "v_hat"], ["4", "ground_truth"]]
        bar = screen.query_one("#cal-import-progress", ProgressBar)
        assert bar.progress == bar.total == 4
        assert screen.query_one("#cal-import-go", Button).disabled is False
        # a refused import (missing file) says why and loads nothing
        screen.query_one("#cal-import-path", Input).value = str(tmp_path / "missing.csv")
        await pilot.click("#cal-import-go")
        await settle(pilot)
        assert "no such file" in str(screen.query_one("#cal-import-summary", Static).render())
        # a file that loads nothing says so, and its problem names the column
        header_only = tmp_path / "no-v-hat.csv"
        header_only.write_text("run_id,interaction_id,scenario,ground_truth,content\nr,9,s,1,c\n", encoding="utf-8")
        screen.query_one("#cal-import-path", Input).value = str(header_only)
        await pilot.click("#cal-import-go")
        await settle(pilot)
        assert str(screen.query_one("#cal-import-summary", Static).render()).startswith("Nothing loaded")
        assert table.get_row_at(0)[1:] == ["header", "lacks the column(s) v_hat"]


def test_results_snapshot_80x24(snap_compare, tmp_path):
    db, sid = scored_study(tmp_path, "cal-snap")
    assert snap_compare(Host(lambda: CalibrationResultsScreen(db, sid)), terminal_size=(80, 24), run_before=settle)


def test_results_judges_tab_snapshot_80x24(snap_compare, tmp_path):
    db, sid = scored_study(tmp_path, "cal-snap-judges")

    async def judges_tab(pilot) -> None:
        await settle(pilot)
        pilot.app.screen.query_one("#cal-tabs").active = "cal-tab-judges"
        await settle(pilot)

    assert snap_compare(Host(lambda: CalibrationResultsScreen(db, sid)), terminal_size=(80, 24), run_before=judges_tab)
