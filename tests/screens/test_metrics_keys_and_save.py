"""Issue 24, item 7 (Metrics): Escape leaves the compare input, the agreement table's Target and Result
columns stay whole at 140 columns, and `w` saves every table and plot to a chosen folder."""

from __future__ import annotations

import csv

from textual.widgets import DataTable, Input

from screens.ask_dialog import AskDialog
from tests.screens.test_metrics_screen import MetricsOnlyApp, panel_cells, seeded_path, wait_shown


async def test_escape_leaves_the_compare_input_for_the_tables(tmp_path):
    path, _ = seeded_path(tmp_path)
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_shown(pilot)
        await pilot.press("c")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        assert isinstance(app.focused, DataTable) and app.focused.id == "table-table1"


async def test_at_140_columns_every_agreement_column_is_whole(tmp_path):
    path, _ = seeded_path(tmp_path)
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_shown(pilot)
        await pilot.press("right_square_bracket")  # the Agreement tab
        await pilot.pause()
        dt = app.screen.query_one("#table-agreement", DataTable)
        assert dt.virtual_size.width <= dt.region.width  # nothing hidden to the right
        cells = panel_cells(app.screen)["agreement"]
        widths = {str(c.label): c.get_render_width(dt) for c in dt.columns.values()}
        for column in ("Target", "Result"):
            k = list(widths).index(column)
            assert widths[column] >= max(len(column), *(len(r[k]) for r in cells)) + 2
        assert widths["Metric"] < max(len(r[0]) for r in cells)  # the long labels wrap instead


async def test_save_writes_every_table_and_plot_to_the_chosen_folder(tmp_path):
    path, _ = seeded_path(tmp_path)
    out = tmp_path / "saved"
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_shown(pilot)
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, AskDialog)
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        tables = {t.id: t for t in app.screen.result.tables}
    markdown = (out / "tables.md").read_text()
    assert all(t.title in markdown for t in tables.values())
    with open(out / "agreement.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == tables["agreement"].columns and rows[1:] == tables["agreement"].rows
    forest = (out / "forest.txt").read_text()
    assert "Effect sizes" in forest and "\x1b[" not in forest
    assert {p.name for p in out.iterdir()} >= {"means.txt", "agreement.txt", "reliability.txt", "heatmap.txt"}
