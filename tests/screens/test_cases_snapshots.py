"""Snapshots of the Cases list and the case editor (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from screen_helpers import settle, wait_for_form

from screens.launch import make_app


async def _listed(pilot) -> None:
    await settle(pilot)
    pilot.app.screen.query_one("#case-table").focus()
    await settle(pilot)


def test_cases_list(snap_compare, library):
    assert snap_compare(make_app(library.db), terminal_size=(130, 24), run_before=_listed)


def test_cases_list_filtered_by_status(snap_compare, library):
    async def filtered(pilot) -> None:
        await _listed(pilot)
        pilot.app.screen.query_one("#filter-status").value = "ready"
        await settle(pilot)

    assert snap_compare(make_app(library.db), terminal_size=(130, 24), run_before=filtered)


async def _editing(pilot, case_id: str) -> None:
    """The editor opened on `case_id` from the list."""
    await _listed(pilot)
    pilot.app.screen.open_case(case_id)
    await wait_for_form(pilot)


async def _editing_guild_charter(pilot) -> None:
    await _editing(pilot, "guild-charter")
    pilot.app.focused.cursor_blink = False  # the focused id field: a blinking cursor makes the image flicker
    await settle(pilot)


def test_case_editor(snap_compare, library):
    assert snap_compare(make_app(library.db), terminal_size=(130, 44), run_before=_editing_guild_charter)


def test_case_editor_at_80x24(snap_compare, library):
    """Issue 15: at 80 columns the problems panel takes at most 38% and the form keeps the rest."""
    assert snap_compare(make_app(library.db), terminal_size=(80, 24), run_before=_editing_guild_charter)


def test_case_editor_scrolled_to_the_checklist_with_problems(snap_compare, library):
    async def editing(pilot) -> None:
        await _editing(pilot, "harbor-dredging")
        editor = pilot.app.screen
        editor.query_one("#f-status").value = "ready"
        editor.check_now()
        editor.query_one("#f-criteria-clear_decision_point").focus()
        editor.query_one("#editor-form").scroll_to_widget(editor.query_one("#case-details"), animate=False, top=True)
        await settle(pilot)

    assert snap_compare(make_app(library.db), terminal_size=(130, 44), run_before=editing)


def test_unsaved_changes_prompt(snap_compare, library):
    async def leaving(pilot) -> None:
        await _editing(pilot, "coercion-drill")
        pilot.app.screen.query_one("#f-title").value = "Changed"
        pilot.app.screen.query_one("#f-strategy-A").focus()
        await pilot.press("escape")
        await pilot.pause(0.2)

    assert snap_compare(make_app(library.db), terminal_size=(100, 30), run_before=leaving)


def test_cases_list_at_80x24(snap_compare, library):
    """Issue 15: at 80 columns the columns that matter stay readable and the footer keeps Quit and Help."""
    assert snap_compare(make_app(library.db), terminal_size=(80, 24), run_before=_listed)
