"""The Metrics screen on a seeded study: panels, the keyboard path to the items behind a number, the
report and the panels agreeing number for number, blindness, and snapshots."""

from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable, Input, Static

from store import open_store
from tests.screens.screen_helpers import one_screen_app
from tests.metrics_integration.conftest import make_store, prewarm_default_embeddings

SIZE = (150, 50)
CONDITION_ID = re.compile(r"\b(B1|B2|B3|C1|C2|C3|P1)\b")


def _metricsscreen():
    from screens.metrics import MetricsScreen

    return MetricsScreen()


MetricsOnlyApp = one_screen_app(_metricsscreen)


def seeded_path(tmp_path, **overrides):
    db, path, seeded = make_store(tmp_path, **overrides)
    prewarm_default_embeddings(db)  # the default MiniLM path finds every vector cached: no model load
    db.close()
    return path, seeded


@pytest.fixture
def unblinded_path(tmp_path):
    return seeded_path(tmp_path)


async def wait_shown(pilot, study_id: str = "seeded-study", *, after: int = 0) -> None:
    """Wait until the screen has shown the study's panels (more than `after` times)."""
    for _ in range(600):
        await pilot.pause(0.05)
        screen = _metrics_screen(pilot.app)
        if screen is not None and screen.shown == study_id and screen.shows > after:
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            return
    raise AssertionError("the metrics never appeared")


def _metrics_screen(app):
    from screens.metrics import MetricsScreen

    for screen in reversed(app.screen_stack):
        if isinstance(screen, MetricsScreen):
            return screen
    return None


def panel_cells(screen) -> dict[str, list[list[str]]]:
    """table id -> the cells as the DataTables show them."""
    from screens.metrics import MetricPanel

    out = {}
    for panel in screen.query(MetricPanel):
        dt = panel.query_one(DataTable)
        out[panel.table.id] = [[str(c) for c in dt.get_row_at(i)] for i in range(dt.row_count)]
    return out


def analysis_of(path):
    from workbench.protocols.hindsight.metrics.analysis import analyze_study

    db = open_store(path)
    try:
        return analyze_study(db, "seeded-study")
    finally:
        db.close()


async def test_panels_show_every_table(unblinded_path):
    path, _ = unblinded_path
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        cells = panel_cells(app.screen)
        assert {"table1", "table2", "table3", "table4", "agreement", "judges", "panel", "judge_errors", "audit",
                "dq", "dq_baseline", "calibration", "reliability", "probes", "counts"} <= set(cells)
        # three cases: under the minimum for a bootstrap CI, so the values instead (issue 30)
        # the seeded C2 runs record no debate: every cell standing on them is marked † (issue 45)
        assert cells["table1"][4][:3] == ["C2 (Peer-agent committee)", "2.67 (n too small: 3.00, 2.00, 3.00) †",
                                          "2.33 (n too small: 2.00, 3.00, 2.00) †"]
        status = str(app.screen.query_one("#metrics-status", Static).render())
        assert "unblinded" in status and "ffffffffffff" in status


async def test_report_and_panels_agree_number_for_number(unblinded_path):
    from workbench.protocols.hindsight.report import build_report

    from workbench.reports.study_report import fidelity_section

    path, _ = unblinded_path
    db = open_store(path)
    try:  # hindsight's report, then the shared treatment fidelity table the whole report prints after it
        report = build_report(analysis_of(path)) + fidelity_section(db, "seeded-study")
    finally:
        db.close()
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        cells = panel_cells(app.screen)
    n = 0
    for table_id, rows in cells.items():
        for row in rows:
            line = "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
            assert line in report, (table_id, row)
            n += 1
    assert n > 100  # every row of every panel, not a sample


async def test_keyboard_path_to_the_items_behind_a_number(unblinded_path):
    from screens.metrics_drill import DrillDownScreen

    path, seeded = unblinded_path
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        assert app.focused.id == "table-table1"    # the numbers have the focus once they are shown
        app.screen.query_one("#compare-input", Input).focus()
        await pilot.press("escape")
        app.set_focus(None)
        await pilot.press("enter")                 # no table focused: the cursor goes to the first table
        assert isinstance(app.focused, DataTable) and app.focused.id == "table-table1"
        await pilot.press("down", "down", "down", "down", "right", "enter")  # C2 x Anticipation
        await pilot.pause()
        assert isinstance(app.screen, DrillDownScreen)
        detail = app.screen.table
        assert detail.title.startswith("C2 x Anticipation")
        assert detail.columns == ["Item", "Case", "Condition", "Rep.", "rater-a", "rater-b", "Mean", "judge-a",
                                  "judge-b"]
        items = {row[0]: row for row in detail.rows}
        glenda = items[seeded.item_ids[("glenda-crock", "C2", 0)]]
        assert glenda[4:] == ["2.00", "2.00", "2.00", "2.00", "judge_error"]
        assert "2.67 (n too small: 3.00, 2.00, 3.00)" in str(app.screen.query_one("#drill-origin", Static).render())
        await pilot.press("escape")
        assert not isinstance(app.screen, DrillDownScreen)
        # The forest plot's numbers are Table 4's: drill into the first effect size.
        app.screen.query_one("#table-table4", DataTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DrillDownScreen) and app.screen.table.columns[:3] == ["Case", "C2", "B1"]


async def test_compare_input_adds_a_table4_row(unblinded_path):
    path, _ = unblinded_path
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        before = len(panel_cells(app.screen)["table4"])
        await pilot.press("c")
        assert isinstance(app.focused, Input)
        await pilot.press(*"C1-B1", "enter")      # malformed: refused, nothing recomputed
        await pilot.pause()
        assert len(panel_cells(app.screen)["table4"]) == before
        shows = app.screen.shows
        app.focused.value = "C1:B1:eh, B3:B1:ant"
        await pilot.press("enter")
        await wait_shown(pilot, after=shows)
        rows = panel_cells(app.screen)["table4"]
        assert len(rows) == before + 2 and rows[-2][0] == "C1 vs. B1 *" and rows[-1][0] == "B3 vs. B1 *"


async def test_blinded_study_shows_no_condition_and_no_scores(tmp_path):
    from screens.metrics_drill import DrillDownScreen
    from screens.metrics_plots import MetricPlot

    path, _ = seeded_path(tmp_path, unblinded=False)
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        screen = app.screen
        cells = panel_cells(screen)
        assert "table1" not in cells and "overall" in cells
        texts = [c for rows in cells.values() for row in rows for c in row]
        texts += [str(w.render()) for w in screen.query(Static)]
        texts += [str(w.render()) for w in screen.query(MetricPlot)]
        joined = "\n".join(texts)
        assert not CONDITION_ID.findall(joined)
        assert "blinded: conditions hidden" in joined
        # Drill-down on the overall anticipation mean: who scored, never what.
        screen.query_one("#table-overall", DataTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DrillDownScreen)
        detail = app.screen.table
        assert detail.columns == ["Item", "Case", "Raters who scored", "Judges ok", "Judge errors"]
        assert all(row[2] in ("1", "2") for row in detail.rows)


async def test_forced_unblinding_is_on_every_panel(tmp_path):
    from screens.metrics import MetricPanel

    path, _ = seeded_path(tmp_path, forced=True)
    app = MetricsOnlyApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
        titles = [p.table.title for p in app.screen.query(MetricPanel)]
        assert titles and all("[FORCED UNBLINDING]" in t for t in titles)
        assert "FORCED" in str(app.screen.query_one("#metrics-status", Static).render())


async def test_reachable_from_the_app_shell(unblinded_path):
    from screens.launch import make_app
    from screens.metrics import MetricsScreen

    path, _ = unblinded_path
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await wait_shown(pilot)
        assert isinstance(app.screen, MetricsScreen)


def _snapshot_before(study_keys=()):
    """The tabs' underline slides under the active tab after a 0.02 s timer (Textual's Tabs); the snapshot's own
    wait for animations can run before that timer fires, and on a loaded machine it once did not: the picture
    caught the underline at its start or at its end by chance. Wait past the timer, then for the slide."""
    async def run_before(pilot) -> None:
        await wait_shown(pilot)
        for key in study_keys:
            await pilot.press(key)
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    return run_before


def test_snapshot_tables(snap_compare, unblinded_path):
    path, _ = unblinded_path
    assert snap_compare(MetricsOnlyApp(path), terminal_size=SIZE, run_before=_snapshot_before())


def test_snapshot_decision_quality_tab(snap_compare, unblinded_path):
    path, _ = unblinded_path
    assert snap_compare(MetricsOnlyApp(path), terminal_size=SIZE,
                        run_before=_snapshot_before(("right_square_bracket", "right_square_bracket")))


def test_snapshot_blinded(snap_compare, tmp_path):
    path, _ = seeded_path(tmp_path, unblinded=False)
    assert snap_compare(MetricsOnlyApp(path), terminal_size=SIZE, run_before=_snapshot_before())


def test_snapshot_tables_at_80x24(snap_compare, unblinded_path):
    """Issue 15: at 80x24 the plots keep their height (stacked under the tables), never empty boxes."""
    path, _ = unblinded_path
    assert snap_compare(MetricsOnlyApp(path), terminal_size=(80, 24), run_before=_snapshot_before())


async def test_a_first_computation_shows_its_embedding_steps(tmp_path, monkeypatch):
    """Issue 15: no cached vectors, so the status line walks through loading the model and N of M texts
    instead of sitting on "Computing ..." (the model itself is faked: its load is not what is tested)."""
    import numpy as np

    from workbench.metrics.embeddings import LOADING, Embedder

    class FakeModel:
        def encode(self, texts, **_):
            return np.array([[1.0, float(len(t)), float(i + 1)] for i, t in enumerate(texts)])

    def fake_load(self):
        self._tell(LOADING, 0, 0)
        return FakeModel()

    from screens.metrics import MetricsScreen

    monkeypatch.setattr(Embedder, "_load", fake_load)
    db, path, _ = make_store(tmp_path)  # not prewarmed: every text needs embedding
    db.close()
    app = MetricsOnlyApp(path)
    lines: list[str] = []
    original = MetricsScreen._status
    # on the class, before the app runs: the computation starts at mount, and its first step could come before
    # a patch of the mounted screen (it did, once, on a loaded machine)
    monkeypatch.setattr(MetricsScreen, "_status", lambda self, text: (lines.append(text), original(self, text)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_shown(pilot)
    steps = [line for line in lines if line.startswith("Computing seeded-study:")]
    assert any("loading the embedding model" in line for line in steps)
    embedded = [line for line in steps if "texts embedded" in line]
    assert embedded and re.search(r"(\d+) of \1 texts embedded", embedded[-1])  # it ends at M of M
