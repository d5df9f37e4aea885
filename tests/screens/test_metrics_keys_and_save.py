"""Issue 24, item 7 (Metrics): Escape leaves the compare input, the agreement table's Target and Result
columns stay whole at 140 columns, and `w` saves every table and plot to a chosen folder."""

from __future__ import annotations

import csv

from textual.widgets import DataTable, Input

from screens.ask_dialog import AskDialog
from store import open_store
from tests.screens.study_screen_helpers import wait_until
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
        await pilot.app.workers.wait_for_complete()
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


async def test_a_hand_edited_file_is_named_before_any_key_and_the_save_echoes_its_folder_whole(tmp_path,
                                                                                             monkeypatch):
    """Issue 43: the save dialog offered "Replace 21 file(s) (r)" and then refused, for one of them was edited by
    hand: now the dialog names it and offers no key that would fail. A relative folder is echoed absolute."""
    from screens.confirm import ChoiceDialog

    path, _ = seeded_path(tmp_path)
    monkeypatch.chdir(tmp_path)
    notes = []
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        app.notify = lambda message, **kw: notes.append(message)
        await wait_shown(pilot)
        for attempt in range(2):
            await pilot.press("w")
            await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the folder question")
            app.screen.query_one(Input).value = "saved"  # relative to the working folder
            await pilot.press("enter")
            if attempt == 0:  # an empty folder: written without a question
                await pilot.app.workers.wait_for_complete()
                await pilot.pause()
                assert notes and notes[-1].endswith(f"files to {tmp_path / 'saved'}")
                (tmp_path / "saved" / "tables.md").write_text("my own notes", encoding="utf-8")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the folder dialog")
        assert "tables.md" in app.screen.message and "edited by hand" in app.screen.message
        assert [c.id for c in app.screen.choices] == ["cancel"]
        await pilot.press("escape")
    assert (tmp_path / "saved" / "tables.md").read_text(encoding="utf-8") == "my own notes"


async def test_at_140_columns_no_decision_quality_cell_or_header_is_cut(tmp_path):
    """Issue 43: at 140 columns the DQ tables were cut ("(Chain-of-thou / ght)", "0.21 (n too small" running off
    the right edge): now every table fits and wraps only between words."""
    from screens.metrics_tab import MetricPanel

    path, _ = seeded_path(tmp_path)
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_shown(pilot)
        app.screen.query_one("#metrics-tabs").active = "tab-dq"
        await pilot.pause()
        for panel in app.screen.query_one("#tab-dq").query(MetricPanel):
            dt = panel.query_one(DataTable)
            assert dt.virtual_size.width <= dt.region.width, panel.table.id  # nothing off the right edge
            shown = "\n".join("".join(s.text for s in dt.render_line(y)) for y in range(dt.virtual_size.height))
            words = {w for row in [panel.table.columns, *panel.table.rows] for cell in row for w in str(cell).split()}
            assert all(w in shown for w in words), panel.table.id  # every word whole
            assert all(c in shown for c in panel.table.columns), panel.table.id  # every header whole


async def test_the_counts_tab_names_which_judged_pairs_it_counts_and_shows_study_shows_figure(tmp_path):
    """Issue 43: "judged item-rubric pairs" was 60 on the Counts tab and 72 in `study show` (planted gold items
    counted in one only), with no label saying which: each figure is now named, and the study's is the core's."""
    from workbench.studies.counts import study_counts

    path, _ = seeded_path(tmp_path)
    db = open_store(path)
    try:
        judged = study_counts(db, "seeded-study").judged
    finally:
        db.close()
    app = MetricsOnlyApp(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_shown(pilot)
        rows = dict(map(tuple, panel_cells(app.screen)["counts"]))
    tables = next(k for k in rows if k.startswith("judged item-rubric pairs in these tables"))
    assert "gold" in tables and "excluded evaluators" in tables
    study = next(k for k in rows if k.startswith("judged item-rubric pairs in the study"))
    assert "study show" in study and rows[study] == str(judged)
