"""Issue 15: the study form cannot mislead — no study without raters unless confirmed, keys typed while it
opens are kept, the name's problems show live in batch's words, boxes read without colour, and choosing a
problem moves to its field."""

from __future__ import annotations

from screen_helpers import type_text
from study_screen_helpers import wait_until
from textual.widgets import Input, SelectionList

from store.studies import get_study
from workbench.studies import StudyError, parse_study_text

SIZE = (100, 30)


async def open_form(pilot, *, pause: bool = True) -> None:
    await pilot.press("2")
    await pilot.pause()
    await pilot.press("n")
    if pause:
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "StudyFormScreen", what="the form")


async def name_and_case(pilot, name: str) -> None:
    form = pilot.app.screen
    form.query_one("#f-name", Input).value = name
    form.query_one("#f-cases", SelectionList).select("coercion-drill")
    await pilot.pause()


async def test_an_untouched_form_is_not_stored_without_raters_unless_confirmed(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        assert form.query_one("#f-raters", Input).value == ""  # the placeholder is not a value
        await name_and_case(pilot, "no-raters")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the raters dialog")
        assert get_study(app.db, "no-raters") is None
        assert "no human raters" in str(app.screen.query_one(".dialog-message").render())
        await pilot.press("a")  # add raters: back to the field, nothing stored
        await wait_until(pilot, lambda: app.screen is form, what="the form")
        await pilot.pause()
        assert app.focused is form.query_one("#f-raters", Input)
        assert get_study(app.db, "no-raters") is None
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the raters dialog")
        await pilot.press("w")  # store without raters: the choice is written into the study
        await wait_until(pilot, lambda: get_study(app.db, "no-raters") is not None, what="the study")
        assert get_study(app.db, "no-raters")["definition"]["raters"] == []
        assert 'raters = []' in form.study_text()


async def test_with_raters_the_form_stores_at_once(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        await name_and_case(pilot, "with-raters")
        app.screen.query_one("#f-raters", Input).value = "ada, bo"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert get_study(app.db, "with-raters")["definition"]["raters"] == ["ada", "bo"]


async def test_keys_typed_while_the_form_opens_land_in_the_name_field(app):
    from textual import events

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        # "n" and the name arrive in one burst, as from a fast typist: queued before the form is built
        for key in "nquick-study":
            app.post_message(events.Key(key, key))
        await wait_until(pilot, lambda: type(app.screen).__name__ == "StudyFormScreen", what="the form")
        await pilot.pause()
        assert app.screen.query_one("#f-name", Input).value == "quick-study"


async def test_the_name_field_shows_the_problems_batch_reports_as_you_type(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        await type_text(pilot, "Bad Name")
        await pilot.pause()
        with_batch = None
        try:
            parse_study_text('name = "Bad Name"\n', "x.toml")
        except StudyError as exc:
            with_batch = next(p.message for p in exc.problems if p.field == "name")
        assert [p.message for p in form.problems if p.field == "name"] == [with_batch]
        assert form.query_one("#f-name").has_class("has-problem")
        for _ in "Bad Name":
            await pilot.press("backspace")
        await type_text(pilot, "good-name")
        await pilot.pause()
        assert not [p for p in form.problems if p.field == "name"]
        assert not form.query_one("#f-name").has_class("has-problem")


async def test_checked_and_unchecked_boxes_differ_without_colour(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        conditions = app.screen.query_one("#f-conditions", SelectionList)
        conditions.deselect_all()
        conditions.select("B2")
        await pilot.pause()
        lines = [conditions.render_line(y).text for y in range(3)]
        assert lines[0].startswith("▐ ▌") and lines[1].startswith("▐✓▌") and lines[2].startswith("▐ ▌"), lines


async def test_choosing_a_problem_moves_to_its_field(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        form.query_one("#f-threshold-alpha_judges", Input).value = "1.5"
        await name_and_case(pilot, "jumpy")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "thresholds.alpha_judges" in [p.field for p in form.problems]
        await pilot.press("f2")
        index = next(i for i, p in enumerate(form.problems) if p.field == "thresholds.alpha_judges")
        for _ in range(index):  # the first problem is highlighted already
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        target = form.query_one("#f-threshold-alpha_judges", Input)
        assert app.focused is target
        scroll = form.query_one("#study-form")
        assert scroll.scroll_y > 0 and scroll.region.contains_region(target.region)  # scrolled into view


async def test_a_loaded_study_file_shows_what_study_create_says(app):
    """Issue 40: the form states the belief graphs' budget (and any warning) as `study create` prints it."""
    from pathlib import Path

    from textual.widgets import Static

    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        assert form.load_file(str(Path(__file__).resolve().parents[2] / "studies" / "faultline-sim.toml"))
        await pilot.pause()
        status = str(form.query_one("#form-status", Static).render())
        assert "study faultline-sim created from faultline-sim.toml" in status
        assert "belief graphs: " in status and "whatever the study's max_tokens" in status
