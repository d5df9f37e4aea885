"""The Settings screen: editing and saving settings, rate limits, key names, the connection test; a snapshot."""

from __future__ import annotations

import os

import pytest
from textual.widgets import Button, DataTable, Input, Static

from tests.screens.screen_helpers import one_screen_app, settings_loaded
from tests.support.loopback import Reply
from workbench.gateway.settings import load_settings

SIZE = (130, 42)
KEY_VALUE = "sk-settings-screen-SECRET-0042"


def _settingsscreen():
    from screens.settings import SettingsScreen

    return SettingsScreen()


SettingsOnlyApp = one_screen_app(_settingsscreen)


@pytest.fixture
def keys_env(monkeypatch):
    """Exactly two provider keys in the environment, whatever the machine has."""
    from workbench.gateway.secrets import present_key_names

    for name in present_key_names():
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_VALUE)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-" + KEY_VALUE)


@pytest.fixture
def app(tmp_path, keys_env):
    return SettingsOnlyApp(tmp_path / "store.db")


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def set_value(pilot, selector: str, value: str) -> None:
    pilot.app.screen.query_one(selector, Input).value = value
    await pilot.pause()


async def test_shows_key_names_never_values(app):
    async with app.run_test(size=SIZE) as pilot:
        await settings_loaded(pilot)
        keys = text_of(app, "#keys-present")
        assert "ANTHROPIC_API_KEY, OPENAI_API_KEY" in keys
        assert KEY_VALUE not in keys


async def test_invalid_value_is_named_and_nothing_saved(app):
    async with app.run_test(size=SIZE) as pilot:
        await settings_loaded(pilot)
        await set_value(pilot, "#role-probe-temperature", "warm")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "probe.temperature: 'warm' is not a number" in text_of(app, "#settings-problem")
        assert load_settings(app.db).role("probe").temperature == 0.0
        assert app.screen.has_unsaved_changes()


async def test_edits_and_limits_are_saved(app):
    async with app.run_test(size=SIZE) as pilot:
        await settings_loaded(pilot)
        await set_value(pilot, "#role-probe-model", "openai/gpt-4o-mini")
        await set_value(pilot, "#role-classifier-model", "anthropic/claude-3-5-haiku-latest")
        await set_value(pilot, "#role-classifier-temperature", "0")
        await set_value(pilot, "#role-classifier-max_tokens", "200")
        await set_value(pilot, "#role-classifier-timeout", "30")
        await set_value(pilot, "#gw-concurrency", "3")
        await set_value(pilot, "#gw-cost_ceiling_default", "2.5")
        await set_value(pilot, "#limit-model", "openai/gpt-4o-mini")
        await set_value(pilot, "#limit-rpm", "60")
        app.screen.query_one("#limit-set", Button).press()
        await pilot.pause()
        assert app.screen.query_one("#limits-table", DataTable).get_row("openai/gpt-4o-mini") == [
            "openai/gpt-4o-mini", "60", "-"]
        assert "modified" in app.screen.sub_title
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = load_settings(app.db)
        assert saved.role("probe").model == "openai/gpt-4o-mini"
        assert saved.classifier.model == "anthropic/claude-3-5-haiku-latest" and saved.classifier.timeout == 30
        assert (saved.concurrency, saved.cost_ceiling_default) == (3, 2.5)
        assert saved.limits["openai/gpt-4o-mini"].rpm == 60 and saved.limits["openai/gpt-4o-mini"].tpm is None
        assert not app.screen.has_unsaved_changes()
        # Remove the limit from the table, revert brings it back, save after removing drops it.
        app.screen.query_one("#limits-table", DataTable).focus()
        await pilot.press("delete")
        assert app.screen.has_unsaved_changes()
        await pilot.press("ctrl+r")
        assert "openai/gpt-4o-mini" in app.screen.limits
        app.screen.query_one("#limits-table", DataTable).focus()
        await pilot.press("delete", "ctrl+s")
        await pilot.pause()
        assert load_settings(app.db).limits == {}


async def test_connection_test_reports_latency_then_the_providers_error(app, loopback_server):
    async with app.run_test(size=SIZE) as pilot:
        await settings_loaded(pilot)
        await set_value(pilot, "#role-probe-model", "openai/probe-target")
        await set_value(pilot, "#role-probe-api_base", loopback_server.url)
        loopback_server.queue(Reply.text("pong"), Reply.unauthorized(), Reply.text("not reached"))
        await pilot.press("ctrl+t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        result = text_of(app, "#test-result")
        assert "probe · openai/probe-target: ok in" in result and " ms" in result and "pong" in result
        assert loopback_server.requests[0]["max_tokens"] == 8
        app.screen.query_one("#test-connection", Button).press()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        result = text_of(app, "#test-result")
        assert "failed" in result and "invalid api key" in result and KEY_VALUE not in result
        assert loopback_server.count == 2  # one attempt per test: a 401 is not retried
        assert load_settings(app.db).role("probe").model == "mock"  # testing does not save


def test_settings_screen_snapshot(snap_compare, tmp_path, keys_env):
    assert os.environ["OPENAI_API_KEY"] == KEY_VALUE
    assert snap_compare(SettingsOnlyApp(tmp_path / "store.db"), terminal_size=SIZE)
