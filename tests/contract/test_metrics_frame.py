"""Issue 43: the Metrics section is a frame around the tabs each protocol names. For every registered protocol
(the toy one too, installed through its entry point): its tabs are the ones it names and show its own study's
numbers (every row of every table is a row of its report), the study's marks are on screen at 140×40 and
80×24, `w` writes one CSV per table with the marks on every row, and Esc leaves every input at both sizes."""

from __future__ import annotations

import csv

import pytest
from textual.widgets import DataTable, Input, Select

from screens.ask_dialog import AskDialog
from screens.launch import make_app
from tests.contract.conftest import quiet, stage
from tests.contract.studies import BY_PROTOCOL, STUDIES
from tests.studies.test_lineage import earlier  # noqa: F401  (a fixture)
from tests.contract.test_one_study_on_screen import show_metrics
from tests.contract.test_shared_screens import idle, on_screen
from tests.screens.study_screen_helpers import wait_until
from workbench.protocol import registry
from workbench.protocol.base import StudyProtocol


@pytest.fixture
def metrics_store(built, protocol, tmp_path):
    """The judged study and its report, written outside the test's event loop (the command runs its own)."""
    db = stage(built, BY_PROTOCOL[protocol], "judged", tmp_path)
    code, out, err = quiet(["--batch", "--db", str(db), "report", BY_PROTOCOL[protocol].name,
                            "--out", str(tmp_path / "report.md")])
    assert code == 0, err
    return db, (tmp_path / "report.md").read_text(encoding="utf-8")


def expected_marks(db_path, study: str) -> tuple[list[str], bool]:
    """The study's marks, and whether its protocol has a treatment fidelity table."""
    from store import open_store
    from workbench.exports.metrics_files import study_marks
    from workbench.fidelity.study import study_fidelity
    from workbench.studies.lookup import load_study

    db = open_store(db_path)
    try:
        return study_marks(db, study, load_study(db, study)["definition"]), study_fidelity(db, study) is not None
    finally:
        db.close()


async def escape_leaves_every_input(pilot) -> None:
    screen = pilot.app.screen
    for box in (screen.query_one("#compare-input", Input), screen.query_one("#study-select", Select)):
        if box.disabled:
            continue
        box.focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.focused is not None and pilot.app.focused.id not in screen.INPUTS, box.id
        await pilot.press("z")  # a key of no input: nothing is typed anywhere
        assert screen.query_one("#compare-input", Input).value == ""


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES])
async def test_the_protocols_tabs_in_the_frame(metrics_store, protocol, tmp_path):
    study = BY_PROTOCOL[protocol]
    db, report = metrics_store
    marks, fidelity = expected_marks(db, study.name)
    assert marks, "every contract study carries a mark (sim: SIMULATED; the toy's mock: a dry run)"
    app = make_app(db)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("5")
        screen = app.screen
        await show_metrics(pilot, study.name)

        titles = [str(t.label) for t in screen.query_one("#metrics-tabs").query("ContentTab")]
        assert titles == [t.tab.title for t in screen.result.tabs] and titles
        # the frame's last tab, for every protocol: the treatment fidelity table (workbench.fidelity) where the
        # protocol names defining steps, then the structured replies and a sim study's planted vs recovered
        assert titles[-1] == "Fidelity" and titles.count("Fidelity") == 1
        frame_tables = {t.title.split(":")[0] for t in screen.result.tabs[-1].tables}
        assert "Structured replies" in frame_tables or "No structured replies recorded." in report
        assert ("Planted vs recovered" in frame_tables) == ("## Planted vs recovered" in report
                                                            and "| parameter | planted |" in report)
        if protocol == "echo-toy":
            assert titles == ["Answers", "Fidelity"]  # the outside package's own tab, then the frame's
            assert type(registry.get(protocol)).metrics_tabs is not StudyProtocol.metrics_tabs
        tables = screen.result.tables
        assert tables, f"{protocol}: no table on any tab"
        for table in tables:  # its own study's numbers: each row as its report prints it
            for row in table.rows:
                line = "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
                assert line in report, (protocol, table.title, row)
        for screen_tab in screen.result.tabs:  # every tab on show in turn, with the marks above it
            screen.query_one("#metrics-tabs").active = f"tab-{screen_tab.tab.id}"
            await pilot.pause()
            shown = on_screen(app)
            assert marks[0].split(" (")[0] in shown and study.name in shown
            drill = screen.check_action("drill", ())
            assert drill == any(getattr(t, "refs", None) for t in screen_tab.tables)  # enter only where it drills
        await escape_leaves_every_input(pilot)
        shown_marks = str(screen.query_one("#metrics-marks").render())

        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert screen.query_one("#metrics-marks").region.height > 0
        assert marks[0].split(" (")[0] in on_screen(app)
        await escape_leaves_every_input(pilot)

        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the save dialog")
        app.screen.query_one(Input).value = str(tmp_path / "saved")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (tmp_path / "saved" / "tables.md").exists(), timeout=120, what="the save")
        await idle(pilot)
    saved = tmp_path / "saved"
    assert {f"{t.id}.csv" for t in tables} | {"tables.md", "metrics.csv"} <= {p.name for p in saved.iterdir()}
    marked = (["SIMULATED"] if "SIMULATED" in marks else []) + ["; ".join(marks)]
    for table in tables:
        with open(saved / f"{table.id}.csv", newline="", encoding="utf-8") as fh:
            head, *rows = list(csv.reader(fh))
        assert head == [*(["simulated"] if "SIMULATED" in marks else []), "marks", *table.columns], table.id
        assert rows == [[*marked, *row] for row in table.rows], table.id  # the marks on every row
    assert ("fidelity.csv" in {p.name for p in saved.iterdir()}) == fidelity
    markdown = (saved / "tables.md").read_text(encoding="utf-8")
    assert markdown.splitlines()[0].startswith(f"# Metrics of {study.name}")
    assert all(m in markdown for m in marks if m != "SIMULATED") and marks[0].split(" (")[0] in markdown
    if not study.raters:  # issue 43: faultline's banner spoke of simulated raters it does not have
        assert "raters" not in shown_marks and "simulated raters" not in markdown


# One tab of each protocol's own, as a picture (hindsight's are tests/screens/test_metrics_screen.py's): the
# frame's marks and keys around the protocol's tables, at 80×24 where the frame is tightest.
SNAPSHOT_TABS = {"faultline": "spread", "m11": "bands", "calibration": "arm-a", "echo-toy": "answers"}


@pytest.fixture
def snapshot_store(built, protocol, tmp_path):
    return stage(built, BY_PROTOCOL[protocol], "judged", tmp_path)


@pytest.mark.parametrize("protocol", list(SNAPSHOT_TABS))
def test_snapshot_of_a_protocol_tab(snap_compare, snapshot_store, protocol):
    study = BY_PROTOCOL[protocol].name

    async def run_before(pilot) -> None:
        await pilot.press("5")
        screen = pilot.app.screen
        await wait_until(pilot, lambda: screen.protocols, what="the study list")
        screen.query_one("#study-select", Select).value = study
        await wait_until(pilot, lambda: screen.shown == study, timeout=120, what="the metrics")
        screen.query_one("#metrics-tabs").active = f"tab-{SNAPSHOT_TABS[protocol]}"
        screen.focus_first_table(quiet=True)
        await idle(pilot)

    assert snap_compare(make_app(snapshot_store), terminal_size=(80, 24), run_before=run_before)


def test_an_exploratory_study_carries_the_mark(earlier):
    """Issue 43: the marks above every tab (and on every saved row) include EXPLORATORY where issue 42's lineage
    labels the study so, naming the earlier study; a study on other data carries none."""
    from tests.studies.test_lineage import _create
    from workbench.exports.metrics_files import study_marks
    from workbench.studies import freeze_study
    from workbench.studies.lookup import load_study

    db, best = earlier
    _create(db, "cal-again", best)
    freeze_study(db, "cal-again")
    marks = study_marks(db, "cal-again", load_study(db, "cal-again")["definition"])
    assert any(m.startswith("EXPLORATORY") and "'cal-first'" in m for m in marks), marks
    _create(db, "cal-elsewhere", 1.0, seed=10)
    other = study_marks(db, "cal-elsewhere", load_study(db, "cal-elsewhere")["definition"])
    assert not any("EXPLORATORY" in m for m in other), other
