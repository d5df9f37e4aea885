"""M11's Samples table on the Metrics screen fits the screen at 80x24 and 140x40: its last column ("NEVER
violations", now "NEVER" with a legend line under the table) scrolled off at 80 columns, behind sample ids the
table would not fold. Every cell on screen is the report's."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Select

from screens.launch import make_app
from tests.contract.conftest import build, quiet
from tests.contract.studies import BY_PROTOCOL, copy_stage
from tests.contract.test_shared_screens import idle, on_screen
from tests.screens.study_screen_helpers import wait_until

STUDY = BY_PROTOCOL["m11"]
SIZES = [(80, 24), (140, 40)]


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """M11's contract study, judged, and its report (built once for the module)."""
    stage = build(STUDY, tmp_path_factory.mktemp("m11"))["judged"]
    report = tmp_path_factory.mktemp("report") / "report.md"
    code, _, err = quiet(["--batch", "--db", str(stage / "store.db"), "report", STUDY.name, "--out", str(report)])
    assert code == 0, err
    return stage, report.read_text(encoding="utf-8")


def store_of(judged, tmp_path):
    return copy_stage(judged[0], tmp_path / "store")


async def show_samples(pilot) -> DataTable:
    await pilot.press("5")
    screen = pilot.app.screen
    await wait_until(pilot, lambda: screen.protocols, what="the study list")
    screen.query_one("#study-select", Select).value = STUDY.name
    await wait_until(pilot, lambda: screen.shown == STUDY.name, timeout=120, what="the metrics")
    screen.query_one("#metrics-tabs").active = "tab-more"
    await idle(pilot)
    table = screen.query_one("#table-samples", DataTable)
    table.focus()
    screen.query_one("#panel-samples").scroll_visible(animate=False, top=True)
    await idle(pilot)
    return table


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_column_of_the_samples_table_is_on_screen(judged, tmp_path, size):
    app = make_app(store_of(judged, tmp_path))
    async with app.run_test(size=size) as pilot:
        table = await show_samples(pilot)
        report = judged[1]
        assert [str(c.label).replace("\n", " ") for c in table.columns.values()] == \
            ["sample", "overall", "band", "conf.", "binary", "errors", "NEVER"]
        assert table.virtual_size.width <= table.size.width, (table.virtual_size, table.size)  # nothing scrolls off
        assert table.region.right <= size[0]
        # each row as the report prints it (a sample id may fold in its cell; its text is the report's)
        rows = [[str(table.get_cell_at((r, c))) for c in range(len(table.columns))] for r in range(table.row_count)]
        assert rows and all("| " + " | ".join(row) + " |" in report for row in rows), rows
        assert any(row[-1] != "-" for row in rows)  # the last column holds a violation to see
        assert "conf.: confidence" in on_screen(app) and "NEVER: the listed hard constraints" in report


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_the_samples_table(snap_compare, judged, tmp_path, size):
    async def run_before(pilot) -> None:
        await show_samples(pilot)

    assert snap_compare(make_app(store_of(judged, tmp_path)), terminal_size=size, run_before=run_before)
