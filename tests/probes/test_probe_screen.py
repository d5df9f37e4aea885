"""Pilot: the Cases screen's `p` / `P` open the probe dialog, which streams the answer against the
loopback model and shows the verdict; after closing it the case list shows the verdict too."""

from __future__ import annotations

from textual.widgets import DataTable, Markdown, Static

from store import open_store
from tests.probes.conftest import scripted_model
from workbench.gateway import ModelSettings
from workbench.cases.library import bootstrap
from workbench.gateway.settings import load_settings, save_settings

SIZE = (130, 40)
ANSWER = "This looks like a **regional** lending decision; I cannot name the event."


def point_probe_role_at(library, url: str) -> None:
    db = open_store(library.db)
    bootstrap(db)
    settings = load_settings(db)
    settings.roles["probe"] = ModelSettings(model="openai/probe-target", api_base=url, timeout=5.0, temperature=0.0)
    save_settings(db, settings)
    db.close()


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.05)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def list_verdict(app, case_id: str) -> str:
    table = app.screen.query_one("#case-table", DataTable)
    return str(table.get_row(case_id)[6])


async def test_probe_from_the_cases_screen_streams_and_lists_the_verdict(library, loopback_server):
    from screens.launch import make_app

    point_probe_role_at(library, loopback_server.url)
    loopback_server.responder = scripted_model({"ferry-timetable": "partial"}, answers={"ferry-timetable": ANSWER})
    app = make_app(library.db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert list_verdict(app, "ferry-timetable") == "not probed"
        app.screen.query_one("#case-table", DataTable).move_cursor(row=0)  # ferry-timetable sorts first
        await pilot.press("p")
        await settle(pilot)
        assert type(app.screen).__name__ == "ProbeScreen"
        answer = app.screen.query_one("#probe-answer", Markdown)
        assert answer.source == ANSWER  # streamed token by token into the Markdown widget
        verdict = str(app.screen.query_one("#probe-verdict", Static).render())
        assert "verdict: partial" in verdict and "predicts part of the outcome" in verdict  # issue 13
        assert str(app.screen.query_one("#probe-cases", DataTable).get_row("ferry-timetable")[1]) == "partial ⚑"  # issue 13: partial is flagged
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert list_verdict(app, "ferry-timetable") == "partial ⚑"
        assert list_verdict(app, "quarry-loan") == "not probed"


async def test_probe_all_ready_cases_flags_the_recognized_one(library, loopback_server):
    from screens.launch import make_app

    point_probe_role_at(library, loopback_server.url)
    loopback_server.responder = scripted_model({"quarry-loan": "recognized", "ferry-timetable": "not_recognized"})
    app = make_app(library.db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        table = app.screen.query_one("#probe-cases", DataTable)
        assert str(table.get_row("quarry-loan")[1]) == "recognized ⚑"
        assert str(table.get_row("ferry-timetable")[1]) == "not_recognized"
        assert "done: 2 of 2 probed" in str(app.screen.query_one("#probe-status", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert list_verdict(app, "quarry-loan") == "recognized ⚑"
        assert loopback_server.count == 4


async def test_probe_with_the_mock_model_says_placeholder(library, loopback_server):
    from screens.launch import make_app
    from screens.probe_dialog import ProbeScreen

    app = make_app(library.db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ProbeScreen(["quarry-loan"], model="mock"))
        await settle(pilot)
        assert app.screen.query_one("#probe-answer", Markdown).source.startswith("[placeholder: mock model]")
        verdict = str(app.screen.query_one("#probe-verdict", Static).render())
        assert "verdict: error" in verdict and "placeholder" in verdict
        assert loopback_server.count == 0


async def test_closing_mid_probe_stops_it_and_stores_nothing(library, loopback_server):
    from screens.launch import make_app
    from store.probes import probes_for_case

    point_probe_role_at(library, loopback_server.url)
    loopback_server.latency = 1.5
    app = make_app(library.db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#case-table", DataTable).move_cursor(row=1)  # quarry-loan
        await pilot.press("p")
        await pilot.pause(0.3)
        assert "asking openai/probe-target" in str(app.screen.query_one("#probe-status", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert probes_for_case(app.db, "quarry-loan") == []
        assert list_verdict(app, "quarry-loan") == "not probed"


async def test_an_offline_probe_model_asks_which_configured_model_to_probe_with(library, loopback_server):
    """Issue 15: the Settings' probe model is `mock`; the dialog explains it cannot classify and offers the
    real models configured in Settings; choosing one probes with it."""
    from textual.widgets import OptionList

    from screens.launch import make_app
    from screens.probe_dialog import ProbeScreen

    db = open_store(library.db)
    bootstrap(db)
    settings = load_settings(db)
    settings.roles["judge"] = ModelSettings(model="openai/probe-target", api_base=loopback_server.url, timeout=5.0)
    save_settings(db, settings)
    db.close()
    loopback_server.responder = scripted_model({"quarry-loan": "not_recognized"})
    app = make_app(library.db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(ProbeScreen(["quarry-loan"]))
        await settle(pilot)
        verdict = str(app.screen.query_one("#probe-verdict", Static).render())
        assert "'mock', an offline model" in verdict and "cannot be classified" in verdict
        options = app.screen.query_one("#probe-models", OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels == [f"probe with openai/probe-target at {loopback_server.url}",
                          "run the placeholder probe on mock anyway (nothing stored)"]
        assert loopback_server.count == 0 and app.focused is options
        await pilot.press("enter")
        await settle(pilot)
        assert str(app.screen.query_one("#probe-cases", DataTable).get_row("quarry-loan")[1]) == "not_recognized"
        assert "openai/probe-target" in str(app.screen.query_one("#probe-title", Static).render())
        assert loopback_server.count == 2  # the probe and its classification
