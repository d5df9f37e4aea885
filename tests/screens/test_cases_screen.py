"""Pilot tests of the Cases list: what it shows, its filters and search, and its keys."""

from __future__ import annotations

import sys
import types

from screen_helpers import FIXTURE_CASE_IDS, settle, table_ids, type_text
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static

SIZE = (130, 36)


async def test_the_list_shows_every_stored_case_and_flags_recognized_ones(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert table_ids(app) == FIXTURE_CASE_IDS
        table = app.screen.query_one("#case-table")
        row = table.get_row("ledger-pivot")
        assert str(row[6]) == "recognized ⚑"
        assert "red" in str(row[6].style)  # the recognized case is visibly flagged
        assert str(table.get_row("guild-charter")[6]) == "not_recognized"
        assert str(table.get_row("harbor-dredging")[6]) == "not probed"
        assert str(table.get_row("ledger-pivot")[5]) == "A,C"
        count = str(app.screen.query_one("#case-count", Static).render())
        assert count.startswith("4 cases") and "1 recognized" in count


FILTER_CASES = [
    ("type", "constructed", ["coercion-drill"]),
    ("type", "historical", ["guild-charter", "harbor-dredging", "ledger-pivot"]),
    ("domain", "organizational", ["coercion-drill", "ledger-pivot"]),
    ("domain", "policy", ["guild-charter"]),
    ("status", "ready", ["coercion-drill", "guild-charter"]),
    ("status", "excluded", ["ledger-pivot"]),
    ("strategy", "A", ["ledger-pivot"]),
    ("strategy", "B", ["guild-charter"]),
    ("strategy", "C", ["harbor-dredging", "ledger-pivot"]),
]


async def test_each_filter_narrows_the_list(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for name, value, expected in FILTER_CASES:
            select = app.screen.query_one(f"#filter-{name}", Select)
            select.value = value
            await settle(pilot)
            assert table_ids(app) == expected, (name, value)
            count = str(app.screen.query_one("#case-count", Static).render())
            assert count.startswith(f"{len(expected)} of 4 cases match")
            select.clear()
            await settle(pilot)
            assert table_ids(app) == FIXTURE_CASE_IDS


async def test_filters_combine_and_x_clears_them(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#filter-domain", Select).value = "organizational"
        app.screen.query_one("#filter-status", Select).value = "ready"
        await settle(pilot)
        assert table_ids(app) == ["coercion-drill"]
        app.screen.query_one("#filter-status", Select).value = "draft"
        await settle(pilot)
        assert table_ids(app) == []
        assert "press x to clear" in str(app.screen.query_one("#case-count", Static).render())
        app.screen.query_one("#case-table").focus()
        await pilot.press("x")
        await settle(pilot)
        assert table_ids(app) == FIXTURE_CASE_IDS
        assert app.screen.query_one("#filter-domain", Select).value is Select.NULL


async def test_a_filter_can_be_chosen_with_the_keyboard(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#filter-type", Select).focus()
        await pilot.press("enter")  # open the drop-down
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # past "any type" and "historical" to "constructed"
        await settle(pilot)
        assert app.screen.query_one("#filter-type", Select).value == "constructed"
        assert table_ids(app) == ["coercion-drill"]


SEARCHES = [
    ("dredg", ["harbor-dredging"]),  # in the id and title
    ("GUILD", ["guild-charter"]),  # case-insensitive
    ("leak documents", ["coercion-drill"]),  # in the scenario text
    ("thin maintenance", ["harbor-dredging"]),  # in the structural tension
    ("nothing-like-this", []),
]


async def test_search_matches_ids_titles_and_text(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for query, expected in SEARCHES:
            await pilot.press("slash")
            search = app.screen.query_one("#case-search", Input)
            assert app.focused is search
            search.value = ""
            await type_text(pilot, query)
            await pilot.pause(0.3)
            await settle(pilot)
            assert table_ids(app) == expected, query
            await pilot.press("escape")  # back to the list
            assert app.focused is app.screen.query_one("#case-table")


async def test_refresh_picks_up_cases_imported_meanwhile(app, library):
    from workbench.cases.model import Case
    from workbench.cases.library import save_case

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Another process (batch mode) adds a case to the same store.
        save_case(app.db, Case(id="late-arrival", title="Imported by the batch CLI"), library.cases / "late-arrival.md")
        await pilot.press("r")
        await settle(pilot)
        assert "late-arrival" in table_ids(app)


def _fake_probe_module(monkeypatch, calls: list) -> None:
    module = types.ModuleType("screens.probe_dialog")

    class ProbeScreen(ModalScreen[None]):
        BINDINGS = [("escape", "dismiss", "Close")]

        def __init__(self, case_ids):
            super().__init__()
            calls.append(list(case_ids))

    module.ProbeScreen = ProbeScreen
    monkeypatch.setitem(sys.modules, "screens.probe_dialog", module)


async def test_p_probes_the_selected_case_and_shift_p_every_ready_case(app, monkeypatch):
    calls: list = []
    _fake_probe_module(monkeypatch, calls)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")  # harbor-dredging
        await pilot.press("p")
        await settle(pilot)
        assert calls == [["harbor-dredging"]]
        assert type(app.screen).__name__ == "ProbeScreen"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        assert calls[-1] == ["coercion-drill", "guild-charter"]

