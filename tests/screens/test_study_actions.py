"""Issue 24, item 4: the Studies screen finishes a study: unblind (a dialog naming what it opens, a reason,
recorded), the report to a chosen file, and every export of the core catalog to a chosen folder. The
dialogs' snapshots at 80x24 and 140x40 are in test_study_dialog_snapshots.py."""

from __future__ import annotations

import json

from scoring_seed import seed_study
from screen_helpers import choose_in_palette
from study_screen_helpers import STUDIES_SIZE as SIZE
from study_screen_helpers import answer, dialog_text, open_studies, seeded_studies, wait_until

from screens.ask_dialog import AskDialog
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from workbench.blinding.unblind import unblind_state
from workbench.scoring.unblind import unblind

async def test_unblind_names_what_it_opens_asks_a_reason_and_records_it(tmp_path):
    async with seeded_studies(tmp_path) as (app, pilot, sid):
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the unblind dialog")
        text = dialog_text(app)
        assert "sealed key" in text and "rater-a 0/" in text and "FORCED" in text  # nobody has scored yet
        await pilot.press("c")  # cancel: nothing recorded
        await pilot.pause()
        assert not unblind_state(app.db, sid).unblinded
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the unblind dialog")
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the reason")
        await pilot.press("enter")  # an empty reason is refused
        await pilot.pause()
        assert isinstance(app.screen, AskDialog) and not unblind_state(app.db, sid).unblinded
        await answer(pilot, "rater-b left the study")
        await wait_until(pilot, lambda: unblind_state(app.db, sid).unblinded, what="the unblinding")
        state = unblind_state(app.db, sid)
        assert state.forced and state.by
        row = next(app.db["unblindings"].rows_where("study_id = ?", [sid]))
        assert row["reason"] == "rater-b left the study" and row["forced"] == 1


async def test_report_and_table_export_are_written_where_the_user_says(tmp_path):
    store = tmp_path / "store.db"
    sid = seed_study(store)["study_id"]
    report, tables = tmp_path / "out" / "report.md", tmp_path / "tables"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        unblind(app.db, sid, by="tester", force=True, reason="test")
        await open_studies(pilot)
        await pilot.press("p")
        await answer(pilot, str(report))
        await wait_until(pilot, report.exists, what="the report")
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the export list")
        assert "Tidy tables" in dialog_text(app) and "Inspect AI" in dialog_text(app)
        await pilot.press("1")
        await answer(pilot, str(tables))
        await wait_until(pilot, lambda: (tables / "datapackage.json").exists(), what="the export")
        await app.workers.wait_for_complete()
    text = report.read_text()
    assert text.startswith("# Study report") and "## Runs and calls" in text and "## Call log" in text
    package = json.loads((tables / "datapackage.json").read_text())
    assert {r["name"] for r in package["resources"]} >= {"runs", "scores"}


async def test_an_export_refused_while_blind_says_why_and_writes_nothing(tmp_path):
    store = tmp_path / "store.db"
    seed_study(store)
    out = tmp_path / "tables"
    app = make_app(store)
    notes = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(message)
        await open_studies(pilot)
        app.screen.notify = app.notify
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the export list")
        await pilot.press("1")
        await answer(pilot, str(out))
        await wait_until(pilot, lambda: any("nothing written" in n for n in notes), what="the refusal")
    assert not out.exists()
    assert any("blind" in n for n in notes)


async def test_the_palette_offers_each_finishing_action_by_study_and_runs_it(tmp_path):
    from test_help_palette import palette_titles

    report = tmp_path / "palette-report.md"
    async with seeded_studies(tmp_path) as (app, pilot, sid):
        titles = set(await palette_titles(app))
        verbs = ("judge", "pilots", "packet", "adjudicate", "topology review", "unblind", "report", "export")
        assert {f"studies: {verb} {sid}" for verb in verbs} <= titles
        assert "studies: import a scoring packet" in titles
        assert not any(t.startswith("studies: cancel judging") for t in titles)  # only while judging
        for command, then in ((f"studies: unblind {sid}", ChoiceDialog), (f"studies: report {sid}", AskDialog)):
            await pilot.press("ctrl+p")
            await pilot.pause()
            await choose_in_palette(pilot, command)
            await wait_until(pilot, lambda: isinstance(app.screen, then), what=command)
            if then is AskDialog:
                await answer(pilot, str(report))
            else:
                await pilot.press("c")  # cancel: nothing opened
                await pilot.pause()
        await wait_until(pilot, report.exists, what="the report")
        assert not unblind_state(app.db, sid).unblinded
