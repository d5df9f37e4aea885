"""Issue 43's walk at 80x24 and 140x40, the layout leftovers: cells, headers, plot labels and footer keys that
were cut. Each test failed before its fix."""

from __future__ import annotations

import pytest
from textual.app import App

from screens.metrics_plots import forest_painter
from screens.metrics_tab import CELL_PADDING, column_widths, header_lines
from screens.widgets.run_grid import RunGrid
from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL
from tests.screens.study_screen_helpers import wait_until
from workbench.metrics.plots import Interval
from workbench.metrics.render import RenderedTable


def finished(case_id: str, condition: str) -> dict:
    return {"run_id": f"{case_id}/{condition}", "case_id": case_id, "condition": condition, "replicate": 0,
            "status": "done", "input_tokens": 300, "output_tokens": 480, "cost": 0.0, "elapsed": 16.0}


class GridApp(App):
    def compose(self):
        yield RunGrid()


async def test_a_finished_two_case_grid_fits_80_columns():
    """Runs at 80x24 on glenda-crock-sim (two cases): each case column was 44 wide, so the second case's cost
    and time were off the screen. A finished study's column is as wide as its cells."""
    app = GridApp()
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(RunGrid)
        grid.set_runs([finished(case, cond) for cond in ("B1", "C2", "C3") for case in ("glenda-crock", "blast-radius")])
        await pilot.pause()
        assert grid.virtual_size.width <= grid.content_region.width, (grid.virtual_size, grid.content_region)


def test_topology_headers_wrap_where_whole_headers_do_not_fit():
    """Topology at 80x24: whole headers alone were wider than the panel, so its last columns ("Convergent
    recommendation", "P1 runs") were cut at the screen's edge. A header now wraps between its words there."""
    table = RenderedTable("topology", "Table 2 - Topology map (P1 runs only)",
                          ["Case", "Pattern", "Switching assumption (if Ridge)", "Convergent recommendation",
                           "P1 runs"],
                          [["blast-radius", "Ridge", "Staging keeps the option to stop if early signs are bad.",
                            "Go ahead with the proposal as it stands, with the safeguards listed below.", "3"]])
    width = 74  # the panel at 80 columns
    widths = column_widths(table, width)
    assert widths is not None and sum(widths) + CELL_PADDING * len(widths) <= width, widths
    heads = header_lines(table.columns, widths)
    assert all(len(line) <= w for head, w in zip(heads, widths) for line in head), heads
    assert [" ".join(head) for head in heads] == table.columns  # every word kept
    assert header_lines(table.columns, column_widths(table, 200)) == [[c] for c in table.columns]  # one line


class Recorder:
    """What a painter asks of plotext (only the y tick labels matter here)."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: setattr(self, "ticks", args[1]) if name == "yticks" else None


def test_forest_labels_are_whole_at_140_columns():
    """The effect-size plot at 140x40 cut "C2 vs. B1 Epistemic Humility" to "C2 vs. B1 Epistemic H~" (labels were
    given a third of the plot's 67 columns)."""
    labels = ["C2 vs. B1 Anticipation", "C2 vs. B1 Epistemic Humility"]
    plt = Recorder()
    forest_painter([Interval(label, 0.4, 0.1, 0.7) for label in labels])(plt, 67, 16)
    assert plt.ticks == labels
    forest_painter([Interval("x" * 60, 0.4, 0.1, 0.7)])(plt, 67, 16)
    assert len(plt.ticks[0]) <= 33  # a very long label still leaves the plot half the width


@pytest.fixture
def m11_judged(built, tmp_path):
    """M11's study, whose Runs offer its panel (built outside the test's event loop)."""
    return stage(built, BY_PROTOCOL["m11"], "judged", tmp_path)


@pytest.mark.parametrize("section", ["2", "3"])
async def test_every_footer_key_is_whole_at_80_columns(m11_judged, section):
    """Studies' footer at 80x24 cut "x Export" to "x E", and Runs' cut "o Open panel" to "o Op" on a study with a
    panel: the keys ran under Quit and Help. Each screen now names the keys its footer keeps there."""
    from screens.launch import make_app
    from tests.contract.test_shared_screens import idle

    app = make_app(m11_judged)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(section)
        await wait_until(pilot, lambda: getattr(app.screen, "SECTION_ID", "") in ("studies", "runs"), what="section")
        await idle(pilot)
        await pilot.pause()
        footer = app.screen.query_one("KeyFooter")
        pinned = footer.query_one(".pinned-keys").region
        keys = [k for k in footer.query("FooterKey") if k.parent is not footer.query_one(".pinned-keys")]
        assert keys
        for key in keys:
            text = str(key.render()).strip()
            assert key.region.right <= pinned.x, f"{text!r} runs under the pinned keys"
            assert text.endswith(key.description), (text, key.description)
        if section == "3":
            assert any(k.description == "Open panel" for k in keys)


@pytest.mark.parametrize("protocol", ["calibration", "faultline", "m11", "hindsight"])
def test_every_protocols_tab_titles_fit_80_columns(protocol):
    """The walk found faultline's tab bar 88 columns wide at 80x24 ("Fidelity" cut to "F"): each protocol's
    titles, the frame's Fidelity tab and a tab's two cells of padding fit the 78 columns inside the frame."""
    import importlib

    tabs = importlib.import_module(f"workbench.protocols.{protocol}.metrics_tabs")
    titles = [row[1] for row in tabs.LAYOUT] + ([tabs.REST] if hasattr(tabs, "REST") else []) + ["Fidelity"]
    assert sum(len(t) + 2 for t in titles) <= 78, titles
