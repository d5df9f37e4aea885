"""Issue 15: the Settings section at 80x24 and at its usual size (pytest-textual-snapshot)."""

from __future__ import annotations

import pytest
from screen_helpers import one_screen_app, settings_loaded


def _settingsscreen():
    from screens.settings import SettingsScreen

    return SettingsScreen()


SettingsOnlyApp = one_screen_app(_settingsscreen)


@pytest.fixture
def no_keys(monkeypatch):
    """No provider key in the environment, whatever the machine has: the snapshot lists none."""
    from workbench.gateway.secrets import present_key_names

    for name in present_key_names():
        monkeypatch.delenv(name)


@pytest.mark.parametrize("size", [(130, 42), (80, 24)], ids=["current", "80x24"])
def test_settings_snapshot(snap_compare, tmp_path, no_keys, size):
    async def run_before(pilot) -> None:
        await settings_loaded(pilot)  # the form, filled: never a half-loaded screen
        pilot.app.screen.set_focus(None)  # no blinking cursor in the image
        await pilot.pause()

    assert snap_compare(SettingsOnlyApp(tmp_path / "store.db"), terminal_size=size, run_before=run_before)


async def test_at_80_columns_every_model_field_is_reached_by_scrolling_sideways(tmp_path, no_keys):
    from textual.widgets import Input

    app = SettingsOnlyApp(tmp_path / "store.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await settings_loaded(pilot)
        body = app.screen.query_one("#settings-body")
        field = app.screen.query_one("#role-probe-api_key_env", Input)
        assert field.region.x >= 80 or field.region.width == 0  # out of sight at first
        field.focus()
        await pilot.pause()
        await pilot.pause(0.3)  # the scroll into view is animated
        assert body.scroll_x > 0
        assert 0 <= field.region.x and field.region.right <= 80 and field.region.width > 0


@pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=["140x40", "80x24"])
async def test_every_model_field_label_is_whole_and_apart(tmp_path, no_keys, size):
    """Issue 43 item 5: at 140 columns the last heads ran together, cut ("max conn 1st token s s")."""
    from textual.widgets import Label

    from screens.settings import FIELD_LABELS

    app = SettingsOnlyApp(tmp_path / "store.db")
    async with app.run_test(size=size) as pilot:
        await settings_loaded(pilot)
        heads = [w for w in app.screen.query("#role-grid Label.grid-head") if isinstance(w, Label)][1:]
        assert [str(h.render()) for h in heads] == list(FIELD_LABELS.values())
        for head in heads:  # each head at least as wide as its words, after the one before it
            assert head.region.width >= len(str(head.render())), (str(head.render()), head.region)
        for left, right in zip(heads, heads[1:]):
            assert left.region.right < right.region.x, (str(left.render()), str(right.render()))
        if size[0] >= 140:  # the whole grid on screen, nothing to scroll to
            assert heads[-1].region.right <= size[0], heads[-1].region
