"""Pilot tests of the app shell: help, navigation between sections, the command palette, start-up."""

from __future__ import annotations

import importlib
import sys
import types

import pytest
from screen_helpers import FIXTURE_CASE_IDS, choose_in_palette, each_section, settle, table_ids, wait_for_form
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from screens.sections import SECTIONS, Section

SIZE = (130, 36)


def _help_rows(app, table_id: str) -> list[tuple[str, ...]]:
    table = app.screen.query_one(table_id)
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_question_mark_opens_help_with_this_screens_keys_and_the_sections(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
        keys = {row[1]: row for row in _help_rows(app, "#help-keys")}
        assert {"Open", "New", "Probe", "Probe ready", "Search", "Refresh", "Quit", "Help"} <= set(keys)
        assert keys["New"][0] == "n" and "new case" in keys["New"][2]
        sections = _help_rows(app, "#help-sections")
        assert ("1", "Cases ◂ here", "cases:", SECTIONS[0].description) in sections
        assert str(app.db_path) in str(app.screen.query_one("#help-store", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"


async def test_help_in_the_editor_lists_the_editor_keys(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await wait_for_form(pilot)
        app.screen.query_one("#f-strategy-A").focus()  # in a text field "?" is just a character
        await pilot.press("question_mark")
        await settle(pilot)
        keys = {row[1] for row in _help_rows(app, "#help-keys")}
        assert {"Save", "Back", "Problems", "Add mapping"} <= keys
        assert "New" not in keys


def _fake_sections(monkeypatch) -> list[Section]:
    """A registry with the real Cases, two sections from a throwaway module and one that fails to build."""
    module = types.ModuleType("wb_fake_sections")
    module.__spec__ = importlib.machinery.ModuleSpec("wb_fake_sections", None)

    class WithContext(Screen):  # a section that asks for the context in its constructor
        def __init__(self, context):
            super().__init__()
            self.context = context

    class Bare(Screen):  # and one that reads self.app.db
        def on_mount(self) -> None:
            self.seen_db = self.app.db

    class Broken(Screen):  # and one whose constructor fails
        def __init__(self):
            raise RuntimeError("boom in the constructor")

    module.WithContext, module.Bare, module.Broken = WithContext, Bare, Broken
    monkeypatch.setitem(sys.modules, "wb_fake_sections", module)
    sections = [
        SECTIONS[0],
        Section("alpha", "Alpha", "wb_fake_sections:WithContext", "2", "first fake"),
        Section("beta", "Beta", "wb_fake_sections:Bare", "3", "second fake"),
        Section("broken", "Broken", "wb_fake_sections:Broken", "5", "fails to build"),
    ]
    monkeypatch.setattr("screens.app.SECTIONS", sections)
    return sections


async def test_number_keys_switch_sections_and_each_keeps_its_screens(library, monkeypatch):
    _fake_sections(monkeypatch)
    from screens.launch import make_app

    app = make_app(library.db)
    assert [s.id for s in app.sections] == ["cases", "alpha", "beta", "broken"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")  # open a new-case editor in Cases
        await wait_for_form(pilot)
        app.screen.query_one("#f-strategy-A").focus()
        await pilot.press("2")
        await settle(pilot)
        assert app.current_mode == "alpha"
        assert type(app.screen).__name__ == "WithContext"
        assert app.screen.context.db is app.db and app.screen.context.db_path == app.db_path
        await pilot.press("3")
        await settle(pilot)
        assert app.current_mode == "beta" and app.screen.seen_db is app.db
        await pilot.press("4")  # no such section: nothing happens
        await settle(pilot)
        assert app.current_mode == "beta"
        await pilot.press("5")  # a section that fails to build says why, and the app goes on
        await settle(pilot)
        assert type(app.screen).__name__ == "SectionUnavailable"
        assert "boom in the constructor" in str(app.screen.query_one("#section-error", Static).render())
        await pilot.press("1")
        await settle(pilot)
        assert app.current_mode == "cases"
        assert type(app.screen).__name__ == "CaseEditorScreen"  # the editor is still where it was
        assert len(app.screen_stack) == 2


async def test_the_section_bar_names_the_sections_and_marks_the_current_one(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = str(app.screen.query_one("#section-bar", Static).render())
        for section in app.sections:
            assert f"{section.key} {section.title}" in bar


async def test_every_built_section_opens_from_its_key(app):
    """Integration: each section module that exists constructs and mounts in the shell."""
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        async for section in each_section(pilot):
            assert app.current_mode == section.id
            module, cls = section.target.split(":")
            assert type(app.screen_stack[0]).__name__ == cls
        await pilot.press("1")
        await settle(pilot)
        assert table_ids(app) == FIXTURE_CASE_IDS


async def test_palette_commands_are_namespaced_and_open_a_case(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await choose_in_palette(pilot, "open guild", title="guild-charter")
        await wait_for_form(pilot)
        assert type(app.screen).__name__ == "CaseEditorScreen"
        assert app.screen.original_id == "guild-charter"


async def test_palette_providers_list_go_and_cases_commands(app):
    from screens.commands import CaseCommands, NavigationCommands

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        nav = NavigationCommands(app.screen)
        titles = [t for t, _, _ in nav.commands()]
        assert titles == [f"go: {s.title}" for s in app.sections]
        cases = CaseCommands(app.screen)
        await cases.startup()
        titles = [t for t, _, _ in cases.commands()]
        assert "cases: new case" in titles and "cases: probe all ready cases" in titles
        assert [t for t in titles if t.startswith("cases: open ")] == [f"cases: open {i}" for i in FIXTURE_CASE_IDS]
        hits = [h async for h in cases.search("cases: new")]
        assert hits and hits[0].text == "cases: new case"
        hits[0].command()
        await wait_for_form(pilot)
        assert app.screen.sub_title.startswith("New case")


async def test_first_launch_loads_the_shipped_library_once(app, library):
    from workbench.cases.listing import case_summaries

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [c["id"] for c in case_summaries(app.db)] == FIXTURE_CASE_IDS
    # Deleting a shipped file later does not make the second launch drop the stored case.
    (library.cases / "harbor-dredging.md").unlink()
    from screens.launch import make_app

    again = make_app(library.db)
    assert "harbor-dredging" in [c["id"] for c in case_summaries(again.db)]
    again.db.close()


async def test_an_invalid_shipped_case_is_reported_and_the_others_are_loaded(library):
    """Issue 34: one refused file no longer keeps the whole library out (nor the app from starting)."""
    from screens.launch import make_app

    (library.cases / "broken.md").write_text('+++\nid = "broken"\ntitle = "Broken"\ntype = "imaginary"\n+++\n')
    app = make_app(library.db)
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(message)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert table_ids(app) and "broken" not in table_ids(app)
        assert notes and "1 case file(s) refused" in notes[0] and "broken.md" in notes[0]


@pytest.mark.parametrize("target", [
    "screens.app:WorkbenchApp", "screens.cases:CasesScreen", "screens.cases:CaseTable",
    "screens.case_editor:CaseEditorScreen", "screens.help:HelpScreen", "screens.confirm:ChoiceDialog",
])
def test_every_binding_has_an_id_and_a_tooltip(target):
    module, name = target.split(":")
    cls = getattr(importlib.import_module(module), name)
    for binding in cls.BINDINGS:
        assert isinstance(binding, Binding), f"{target}: {binding!r} is not a Binding"
        assert binding.id, f"{target}: binding {binding.key} has no id"
        if binding.show or binding.description:
            assert binding.tooltip, f"{target}: binding {binding.key} has no tooltip"
