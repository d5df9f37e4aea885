"""Issue 43's walk, as tests: what a new user met in tmux on the four sim studies' Metrics (and the Scoring
picker) at 140x40 and 80x24. Each test failed before its fix."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList

from screens.launch import make_app
from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL, STUDIES
from tests.contract.test_one_study_on_screen import show_metrics
from tests.contract.test_shared_screens import idle
from tests.screens.study_screen_helpers import wait_until
from workbench.exports.metrics_files import markdown_blocks


@pytest.fixture
def judged(built, protocol, tmp_path):
    """The protocol's judged study, copied (built outside the test's event loop: the commands run their own)."""
    return stage(built, BY_PROTOCOL[protocol], "judged", tmp_path)


@pytest.fixture
def faultline_ran(built, tmp_path):
    return stage(built, BY_PROTOCOL["faultline"], "ran", tmp_path)


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES])
def test_every_table_is_whole_and_titled_by_its_caption(built, protocol, tmp_path):
    """Every table a Metrics tab shows (and `w` saves as a CSV) has as many cells in each row as columns in its
    head (calibration's "mean pairwise |Δ|" split into two heads over one value), and its title is plain text
    (faultline's came with the report's "**" in it), never a sentence with the study's numbers."""
    from store import open_store
    from workbench.exports.metrics_files import screen_tabs
    from workbench.protocol.registry import protocol_of
    from workbench.studies.lookup import load_study

    study = BY_PROTOCOL[protocol]
    db = open_store(stage(built, study, "judged", tmp_path))
    try:
        tabs = screen_tabs(db, study.name, protocol_of(load_study(db, study.name)["definition"]))
    finally:
        db.close()
    tables = [t for tab in tabs for t in tab.tables]
    assert tables
    for table in tables:
        assert all(len(row) == len(table.columns) for row in table.rows), (table.title, table.columns)
        assert "*" not in table.title and not table.title.endswith("."), table.title


def test_a_caption_is_a_bold_lead_or_a_line_ending_with_a_colon():
    text = "\n".join([
        "## Comparisons", "",
        "**ACC against the baselines** (Holm over the family's 12 comparison(s) with a p)", "",
        "| a | b |", "|---|---|", "| 1 | 2 |", "",
        "**" + "A long bold caption, longer than ninety characters, naming what its table compares " * 2 + "**", "",
        "| a | b |", "|---|---|", "| 3 | 4 |", "",
        "## Arm A", "",
        "120 interactions at k = 1: ECE 0.067.", "",
        "| a | b |", "|---|---|", "| 5 | 6 |", "",
        "Disagreement by p bin:", "",
        "| p | mean \\|Δ\\| |", "|---|---:|", "| 0.1 | 0.2 |",
    ])
    blocks = markdown_blocks(text)
    titles = [b.title for b in blocks if not isinstance(b, str)]
    assert titles == ["Comparisons: ACC against the baselines",
                      "Comparisons: " + ("A long bold caption, longer than ninety characters, naming what its table "
                                         "compares " * 2).strip(),
                      "Arm A", "Arm A: Disagreement by p bin"]
    prose = "\n".join(b for b in blocks if isinstance(b, str))
    assert "(Holm over the family's 12" in prose and "ECE 0.067" in prose  # kept above their tables
    assert "Disagreement by p bin:" not in prose  # a caption alone is the title, not said twice
    assert blocks[-1].columns == ["p", "mean |Δ|"] and blocks[-1].rows == [["0.1", "0.2"]]


def test_calibration_reports_disagreement_table_escapes_its_bars(built, tmp_path):
    """The report (and `metrics`) printed "| mean pairwise |Δ| |": a Markdown table whose head had five cells
    over four; `w` wrote a CSV head "mean pairwise,Δ,,mean SD" over rows of four values."""
    from tests.contract.conftest import quiet

    study = BY_PROTOCOL["calibration"]
    db = stage(built, study, "judged", tmp_path)
    code, out, err = quiet(["--batch", "--db", str(db), "metrics", study.name])
    assert code == 0, err
    tables = [b for b in markdown_blocks(out) if not isinstance(b, str)]
    disagreement = next(t for t in tables if "mean SD" in t.columns)
    assert disagreement.columns == ["p bin", "n", "mean pairwise |Δ|", "mean SD"]
    assert disagreement.rows and all(len(r) == 4 for r in disagreement.rows)


@pytest.mark.parametrize("protocol", ["hindsight", "faultline"])
async def test_the_frame_fits_80_columns(judged, protocol):
    """At 80x24 the compare input's hint was cut ("faultline takes no", "compare A:B:METRIC, ... (c") and, on
    a tab with enter's drill-down (hindsight's Agreement), the footer cut "Next tab" to "Next" and lost `w`."""
    study = BY_PROTOCOL[protocol]
    app = make_app(judged)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("5")
        screen = app.screen
        await show_metrics(pilot, study.name)
        box = screen.query_one("#compare-input", Input)
        assert len(box.placeholder) <= box.content_region.width, (box.placeholder, box.content_region.width)
        for screen_tab in screen.result.tabs:
            screen.query_one("#metrics-tabs").active = f"tab-{screen_tab.tab.id}"
            await pilot.pause()
            await idle(pilot)
            footer = app.screen.query_one("KeyFooter")
            shown = " ".join(str(w.render()) for w in footer.query("FooterKey"))
            assert "Next tab" in shown and "Save" in shown, (screen_tab.tab.title, shown)


@pytest.mark.parametrize("protocol", ["m11"])
@pytest.mark.parametrize("size", [(140, 40), (80, 24)])
async def test_tab_moves_from_the_study_list_to_the_rater_list(judged, protocol, size):
    """The Scoring picker: `4`, Tab left the focus in the study picker (the desk's Tab binding swallowed it), so
    Enter chose the study again instead of opening the rater's desk."""
    app = make_app(judged)
    async with app.run_test(size=size) as pilot:
        await pilot.press("4")
        await wait_until(pilot, lambda: app.screen.query("#rater-list")
                         and app.screen.query_one("#rater-list", OptionList).option_count, what="the picker")
        await pilot.pause()
        assert app.focused is not None and app.focused.id in ("study-select", "rater-list")
        app.screen.query_one("#study-select").focus()
        await pilot.press("tab")
        assert app.focused.id == "rater-list"
        await pilot.press("shift+tab")
        assert app.focused.id == "study-select"
        await pilot.press("tab", "enter")
        await wait_until(pilot, lambda: app.screen.session is not None, what="the desk")


@pytest.mark.parametrize("protocol", ["m11"])
async def test_the_desk_shows_no_empty_case_pane_for_items_without_a_case(judged, protocol):
    """The desk on m11-sim showed a "Scenario" heading over a blank box: its samples carry their own question in
    the text the rater reads. The pane is hidden; a hindsight item's case still shows (test_case_pane_*)."""
    app = make_app(judged)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("4")
        await wait_until(pilot, lambda: app.screen.query("#rater-list")
                         and app.screen.query_one("#rater-list", OptionList).option_count, what="the picker")
        app.screen.query_one("#study-select").focus()
        await pilot.press("tab", "enter")
        await wait_until(pilot, lambda: app.screen.session is not None, what="the desk")
        await pilot.pause()
        assert not app.screen.query_one("#case-panel").display
        assert app.screen.query_one("#response-0").display


@pytest.mark.parametrize("size", [(140, 40), (80, 24)])
async def test_studies_banner_names_no_raters_a_study_lacks(faultline_ran, size):
    """Studies' detail on faultline-sim (no raters) said its numbers came from "the offline `sim` model and
    simulated raters" (the Metrics marks and saved files already said otherwise)."""
    study = BY_PROTOCOL["faultline"]
    app = make_app(faultline_ran)
    async with app.run_test(size=size) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: app.screen.query("#study-summary"), what="Studies")
        screen = app.screen
        screen.show_detail(study.name)
        await pilot.pause()
        shown = str(screen.query_one("#study-summary").render())
        assert "SIMULATED" in shown and study.name in shown
        assert "simulated raters" not in shown and "the study has no raters" in shown


@pytest.mark.parametrize("protocol", ["calibration", "m11", "faultline"])
async def test_a_protocol_panel_opened_with_o_carries_the_studys_marks(judged, protocol):
    """`o` on calibration-sim's Metrics showed plots headed "Calibration · calibration-sim" only: a screenshot of
    the panel passed for real results. Every protocol panel now carries the marks the Metrics tabs carry."""
    study = BY_PROTOCOL[protocol]
    app = make_app(judged)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("5")
        screen = app.screen
        await show_metrics(pilot, study.name)
        marks = str(screen.query_one("#metrics-marks").render())
        assert "SIMULATED" in marks
        await pilot.press("o")
        await wait_until(pilot, lambda: app.screen is not screen and app.screen.query(".panel-marks"),
                         what="the panel's marks")
        assert str(app.screen.query_one(".panel-marks").render()) == marks
