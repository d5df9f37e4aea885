"""Issue 24, item 5: the scoring desk owns its keys. On the desk the number keys are scores only, the
section bar says how to leave (Escape) instead of listing `1…6`, Escape leaves the desk, and the palette's
"go:" commands offer no digit the desk takes; off the desk the section keys work again."""

from __future__ import annotations

from scoring_seed import rendered, seed_study

from screens.commands import NavigationCommands
from screens.launch import make_app

SIZE = (120, 36)


async def go_hints(app) -> list[str]:
    provider = NavigationCommands(app.screen)
    await provider.startup()
    return [help_text for _, help_text, _ in provider.commands()]


async def test_on_the_desk_digits_score_escape_leaves_and_then_the_section_keys_work(tmp_path):
    store = tmp_path / "store.db"
    seed_study(store, name="desk-study")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "enter")
        await pilot.pause()
        screen = app.screen
        assert screen.session is not None
        bar = str(screen.query_one("#section-bar").render())
        assert "Esc" in bar and "leave the desk" in bar and "Metrics" not in bar
        assert not any(h[0].isdigit() for h in await go_hints(app))
        await pilot.press("1")  # a score of 1, not the Cases section
        await pilot.pause()
        assert app.current_mode == "scoring" and screen.session is not None
        assert "= 1" in rendered(app)
        await pilot.press("5")  # out of range for the criterion: refused on the desk, never "go to Metrics"
        await pilot.pause()
        assert app.current_mode == "scoring" and screen.session is not None
        await pilot.press("escape")
        await pilot.pause()
        assert screen.session is None and "Who is scoring?" in rendered(app)
        bar = str(screen.query_one("#section-bar").render())
        assert "5 Metrics" in bar and "leave the desk" not in bar
        assert any(h.startswith("5 ·") for h in await go_hints(app))
        await pilot.press("5")
        await pilot.pause()
        assert app.current_mode == "metrics"
