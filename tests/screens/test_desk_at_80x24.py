"""Issue 43 item 5: the scoring desk at 80x24. Every key is named on screen (the footer's essentials, the
others on the feedback line while it has nothing else to say, Esc on the bar above), the bar's text is whole, an out-of-range score is said on
the feedback line without a toast over Response Beta, and the rubric guide wraps its paragraphs to its own
width instead of the rubric file's line breaks."""

from __future__ import annotations

import re

import pytest
from scoring_seed import rendered, seed_study
from textual.widgets import Static

from screens.launch import make_app
from screens.scoring_parts import RubricGuide, reflowed

SIZE = (80, 24)


@pytest.fixture
def app(tmp_path):
    """The app over a seeded study (its first pair: Anticipation 0-3, then Epistemic Humility)."""
    store = tmp_path / "store.db"
    seed_study(store, name="desk-study")
    return make_app(store)


async def open_desk(pilot) -> None:
    await pilot.press("4", "enter")
    await pilot.pause(0.3)
    assert pilot.app.screen.session is not None


async def test_every_desk_key_is_named_and_the_bar_is_whole(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_desk(pilot)
        text = rendered(app)
        bar = app.screen.query_one("#section-bar")
        said = str(bar.render())
        assert said.endswith("(a note being typed is saved)") and len(said) <= bar.content_region.width, said
        assert said in text
        for key in ("0-9", "j Note", "u Undo", "n Next", "c Case", "r Rubric", "? Help",  # the footer
                    "s skip", "p previous", "v one/two", "pgup/pgdn response", "[ ] case", "{ } anchors",
                    "Esc leave the desk"):
            assert key in text, (key, text)
        keys = app.screen.query_one("#desk-feedback", Static)  # the key line, while nothing else is said
        assert keys.region.right <= SIZE[0] and app.screen.query_one("#response-0").content_region.height >= 12

        await pilot.press("9")  # out of range: refused on the feedback line, no toast over Response Beta
        await pilot.pause(0.3)
        assert "not saved: Anticipation takes a score from 0 to 3" in rendered(app)
        beta = app.screen.query_one("#response-1").region
        toasts = [t for t in app.query("Toast") if t.region.overlaps(beta)]
        assert not toasts


async def test_the_rubric_guide_wraps_paragraphs_to_its_width(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_desk(pilot)
        await pilot.press("r")
        await pilot.pause(0.3)
        assert isinstance(app.screen, RubricGuide)
        guide = app.screen.query_one("#guide-text")
        width = guide.content_region.width
        frame = app.screen.query_one("#guide-body").region
        screen = rendered(app).splitlines()
        body = [re.sub(r"[█▀▄▇▆▅▃▂▁]", "", screen[y][frame.x:frame.right]).strip()
                for y in range(frame.y + 1, frame.bottom - 1)]  # inside the frame; "" between paragraphs
        assert any(body) and "" in body
        ragged = [(a, b) for a, b in zip(body, body[1:])
                  if a and b and len(a) + 1 + len(b.split()[0]) <= width and not b.startswith(("-", "Step"))]
        assert not ragged, ragged  # a line is broken only where the next word would not fit


def test_reflowed_keeps_paragraphs_and_list_items():
    text = "One line\nwrapped in the file.\n\n- an item\n- another\n  continued\n\nLast."
    assert reflowed(text) == "One line wrapped in the file.\n\n- an item\n- another continued\n\nLast."


async def test_the_criteria_grid_shows_the_scored_criterion_among_its_neighbours(app):
    """Issue 43: at 80x24 the grid keeps five criteria in view around the focused one (each naming its rubric
    where the rubric has several), and the responses keep their twelve lines."""
    async with app.run_test(size=SIZE) as pilot:
        await open_desk(pilot)
        await pilot.press("down", "down")  # the third of five: two neighbours above, two below
        await pilot.pause(0.3)
        grid = app.screen.query_one("#criteria-grid")
        lines = str(grid.content).splitlines()
        assert lines[0].startswith("  criterion 3 of 5") and len(lines) == 6, lines
        rows = lines[1:]
        assert [r.startswith("▸") for r in rows] == [False, False, True, False, False], rows
        assert rows[0].startswith("  Anticipation ") and rows[1].startswith("  Epistemic humility")
        assert "› Coercion recognition" in rows[2] and "› Frame analysis" in rows[4]
        assert grid.region.bottom <= app.screen.query_one("#desk-feedback").region.y  # all of it on screen
        assert app.screen.query_one("#response-0").content_region.height >= 12

        await pilot.press("down", "down")  # the last: the window stops at the end, the focus on its last row
        await pilot.pause(0.3)
        rows = str(grid.content).splitlines()[1:]
        assert len(rows) == 5 and rows[-1].startswith("▸") and "Frame analysis" in rows[-1]
