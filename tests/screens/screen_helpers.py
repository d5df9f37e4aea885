"""Helpers shared by the screen tests."""

from __future__ import annotations

FIXTURE_CASE_IDS = ["coercion-drill", "guild-charter", "harbor-dredging", "ledger-pivot"]


async def settle(pilot, delay: float = 0.05) -> None:
    """Let workers finish and the screen repaint."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(delay)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def table_ids(app) -> list[str]:
    table = app.screen.query_one("#case-table")
    return [table.coordinate_to_cell_key((row, 0)).row_key.value for row in range(table.row_count)]


async def type_text(pilot, text: str) -> None:
    """Type text key by key, as a user would."""
    await pilot.press(*["space" if c == " " else c for c in text])
