"""Issue 45 in the Runs section: a run that ends without its condition's defining step is marked † in the grid
and the line under it says what happened, in the core's words (the ones batch's run line prints); its
transcript ends with them; `on_missing_treatment = "refuse"` stops the study from the screen as in batch."""

from __future__ import annotations

from study_screen_helpers import SEEDED, OneScreenApp, seed_study, study_toml, wait_until
from textual.widgets import Static

from tests.runner.studykit import _parts, scripted
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from workbench.fidelity.study import run_reading
from workbench.fidelity.watch import refusal, untreated
from workbench.studies import create_study, run_id


def declining(body: dict) -> str:
    """The scripted model, every member declining to second: both motions die, no debate."""
    if "Do you second the" in _parts(body)[1]:
        return "SECOND: no\nI do not support it."
    return scripted(body)


def c2_study(app, server, name: str) -> str:
    create_study(app.db, text=study_toml(name, conditions=("B1", "C2"), model="openai/test", api_base=server.url))
    return name


def note(app) -> Static:
    return app.screen.query_one("#treatment-note", Static)


def on_screen(app, widget) -> bool:
    """Drawn, and wholly inside the terminal."""
    r, (w, h) = widget.region, app.size
    return widget.display and r.height >= 1 and r.x >= 0 and r.right <= w and r.bottom <= h


def cell(app, rid: str) -> str:
    grid = app.screen.query_one("#run-grid")
    return str(grid.get_cell(*grid._where[rid]))


async def open_runs(pilot, study_id: str) -> None:
    await pilot.press("3")
    await pilot.pause()
    pilot.app.screen.select_study(study_id)
    await pilot.pause()


async def test_at_80x24_a_c2_whose_motions_died_is_marked_when_it_ends_and_the_grid_says_why(app, loopback_server):
    loopback_server.responder = declining
    sid = c2_study(app, loopback_server, "died-live")
    c2, b1 = run_id(sid, "coercion-drill", "C2", 0), run_id(sid, "coercion-drill", "B1", 0)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_runs(pilot, sid)
        assert not note(app).display  # nothing to say before a run ends without its step
        await pilot.press("s")
        await wait_until(pilot, lambda: app.screen.summary is not None, what="the study's end")
        await wait_until(pilot, lambda: "†" in cell(app, c2), what="the mark")
        assert "†" not in cell(app, b1) and cell(app, b1).startswith("✓ done")
        said = untreated(app.db, sid)  # the core's words, as batch's run line prints them
        assert said == {c2: "no debate: both motions died"}
        assert str(note(app).render()) == f"† coercion-drill C2 r0: {said[c2]}"
        await pilot.pause()
        assert on_screen(app, note(app))
        app.screen.query_one("#run-grid").select_run(c2)
        await pilot.press("enter")
        view = app.screen.query_one("#transcript")
        await wait_until(pilot, lambda: view.run_id == c2 and view.query("#transcript-treatment"), what="its end")
        assert view.text().endswith("† its defining step did not happen\nno debate: both motions died")
        assert view.border_title.endswith("done †")


async def test_at_140x40_the_stored_grid_marks_the_run_and_the_cursor_on_it_reads_its_words(library):
    """The seeded study's P1 r0 finished while its two sibling committees failed or were cancelled."""
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    p1 = run_id(SEEDED, "coercion-drill", "P1", 0)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert "†" in cell(app, p1) and "†" not in cell(app, run_id(SEEDED, "coercion-drill", "C2", 0))
        assert str(note(app).render()) == "† 1 run ended without its defining step; the cursor on it says why"
        app.screen.query_one("#run-grid").select_run(p1)
        await pilot.pause()
        assert str(note(app).render()) == "† coercion-drill P1 r0: 1 of 3 committees done"
        assert on_screen(app, note(app))
        await pilot.press("enter")
        view = app.screen.query_one("#transcript")
        await wait_until(pilot, lambda: view.query("#transcript-treatment"), what="the transcript's last line")
        assert view.text().endswith("† its defining step did not happen\n1 of 3 committees done")


async def test_refuse_stops_the_study_in_the_tui_with_the_cores_words(app, loopback_server):
    loopback_server.responder = declining
    sid = "refusing-tui"
    text = study_toml(sid, conditions=("C2",), model="openai/test", api_base=loopback_server.url)
    create_study(app.db, text=text.replace("replicates = 1", "replicates = 3").replace(
        "[model]", 'on_missing_treatment = "refuse"\n\n[model]', 1))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_runs(pilot, sid)
        await pilot.press("s")
        await wait_until(pilot, lambda: app.screen.summary is not None, what="the study's end")
        summary = app.screen.summary
        named = next(r for r in app.screen.query_one("#run-grid").states if r in summary.stopped)
        assert summary.stopped == refusal(run_reading(app.db, named))  # what batch's run prints after "stopped:"
        assert not summary.complete
        await wait_until(pilot, lambda: "stopped: " in str(app.screen.query_one("#progress-text").render()),
                         what="the outcome line")
        assert f"stopped: {summary.stopped}" in str(app.screen.query_one("#progress-text").render())
