"""Issue 15: help teaches what the palette does — every palette title starts with a prefix help lists,
every section's palette offers its own actions, and help's columns fit (nothing cut) at 80 and 140 wide."""

from __future__ import annotations

import pytest
from screen_helpers import each_section, settings_loaded, settle
from textual.command import Provider
from textual.widgets import DataTable, Static

from screens.commands import ListProvider
from screens.sections import APP_PALETTE, SECTIONS


async def palette_titles(app) -> list[str]:
    titles = []
    for cls in {*app.COMMANDS, *type(app.screen).COMMANDS}:
        if not (isinstance(cls, type) and issubclass(cls, ListProvider)):
            continue
        provider: Provider = cls(app.screen)
        await provider.startup()
        titles += [title for title, _, _ in provider.commands()]
    return titles


async def test_every_palette_command_starts_with_a_prefix_help_lists_and_every_section_offers_actions(app):
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        async for section in each_section(pilot):
            titles = await palette_titles(app)
            await pilot.press("question_mark")
            await settle(pilot)
            help_screen = app.screen
            hint = str(help_screen.query_one("#help-footnote", Static).render())
            table = help_screen.query_one("#help-sections", DataTable)
            listed = {str(table.get_row_at(i)[2]) for i in range(table.row_count)}
            assert listed == {s.palette for s in app.sections}
            for prefix in [*APP_PALETTE, *listed]:
                assert f"'{prefix}'" in hint, (prefix, hint)
            await pilot.press("escape")
            await settle(pilot)
            prefixes = {t.split(":", 1)[0] + ":" for t in titles}
            assert prefixes <= set(APP_PALETTE) | listed, (section.id, prefixes)
            own = [t for t in titles if t.startswith(section.palette)]
            # more than "go": each section offers something of its own (Scoring and Runs more once a study exists)
            if section.id != "scoring":
                assert own, (section.id, titles)
    assert {s.palette for s in SECTIONS} >= {"cases:", "studies:", "runs:", "score:", "metrics:", "settings:"}


async def test_settings_and_metrics_palettes_offer_their_keys(app):
    from study_screen_helpers import study_toml

    from workbench.studies import create_study

    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settings_loaded(pilot)
        titles = await palette_titles(app)
        assert {"settings: save", "settings: revert", "settings: test connection"} <= set(titles)
        await pilot.press("5")
        await settle(pilot)
        assert "metrics: recompute" in await palette_titles(app)
        create_study(app.db, text=study_toml("palette-one"), name="p.toml")
        create_study(app.db, text=study_toml("palette-two"), name="q.toml")
        await pilot.press("3")
        await settle(pilot)
        shown = app.screen.study_id
        others = {"palette-one", "palette-two"} - {shown}
        assert {f"runs: show {s}" for s in others} <= set(await palette_titles(app))


@pytest.mark.parametrize("width", [80, 140])
async def test_help_never_cuts_its_details_column(app, width):
    async with app.run_test(size=(width, 24 if width == 80 else 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        keys = app.screen.query_one("#help-keys", DataTable)
        body = app.screen.query_one("#help-body")
        assert keys.virtual_size.width <= body.content_region.width, (keys.virtual_size, body.content_region)
        assert keys.region.right <= body.region.right
        # a tooltip longer than its column wraps onto more lines instead of being cut
        details = keys.ordered_columns[2].width
        for i, row in enumerate(keys.ordered_rows):
            text = str(keys.get_row_at(i)[2])
            assert len(text) <= details * row.height + row.height * 8, (text, details, row.height)
