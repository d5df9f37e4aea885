"""Helpers shared by the screen tests."""

from __future__ import annotations

FIXTURE_CASE_IDS = ["coercion-drill", "guild-charter", "harbor-dredging", "ledger-pivot"]


# Workers that wait for the user's answer in a dialog; waiting on them would wait forever.
ASKING_GROUPS = {"leave", "quit"}


async def settings_loaded(pilot, timeout: float = 60.0) -> None:
    """The Settings screen's form built and filled: it is read and built after the screen's first frame."""
    import time

    deadline = time.monotonic() + timeout
    while not getattr(pilot.app.screen, "loaded", False):
        if time.monotonic() > deadline:
            raise AssertionError(f"the Settings form was not loaded after {timeout}s")
        await pilot.pause(0.02)
    await pilot.pause()


async def settle(pilot, delay: float = 0.05) -> None:
    """Let background workers finish and the screen repaint."""
    for _ in range(2):
        busy = [w for w in pilot.app.workers if w.group not in ASKING_GROUPS and not w.is_finished]
        if busy:  # an empty list would mean "all workers" to wait_for_complete
            await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause(delay)


async def choose_in_palette(pilot, query: str, title: str | None = None, timeout: float = 60.0) -> None:
    """In the command palette (open), search `query` and choose the command whose title holds `title`
    (the query itself by default) once the search has put it first: the palette searches in a worker, so a
    fixed pause may press enter on an older list."""
    import time

    from textual.command import CommandList
    from textual.widgets import Input

    title = query if title is None else title
    palette = pilot.app.screen
    palette.query_one(Input).value = query
    commands = palette.query_one(CommandList)

    def first() -> str:
        return str(commands.get_option_at_index(0).prompt) if commands.option_count else ""

    deadline = time.monotonic() + timeout
    while title not in first():
        if time.monotonic() > deadline:
            raise AssertionError(f"the palette never offered '{title}' first for '{query}' (first: '{first()}')")
        await pilot.pause(0.02)
    await settle(pilot, 0.02)  # the search done: nothing reorders the list under the enter
    assert title in first(), first()
    await pilot.press("enter")


def table_ids(app) -> list[str]:
    table = app.screen.query_one("#case-table")
    return [table.coordinate_to_cell_key((row, 0)).row_key.value for row in range(table.row_count)]


async def type_text(pilot, text: str) -> None:
    """Type text key by key, as a user would."""
    await pilot.press(*["space" if c == " " else c for c in text])


async def wait_for_form(pilot, timeout: float = 10.0) -> None:
    """The editor mounts the bulk of its form just after its first paint; wait for it."""
    waited = 0.0
    while not getattr(pilot.app.screen, "form_complete", False):
        assert waited < timeout, "the case editor never finished mounting its form"
        await pilot.pause(0.02)
        waited += 0.02
    await settle(pilot)


def one_screen_app(screen_factory):
    """An App holding just one section screen over a store: the shell's section bar then lists
    every section, whichever section modules exist, so snapshots stay stable."""
    from textual.app import App

    from store import open_store

    class OneScreenApp(App):
        TITLE = "Hindsight Workbench"

        def __init__(self, db_path) -> None:
            super().__init__()
            self.db_path = db_path
            self.db = open_store(db_path)

        def on_mount(self) -> None:
            self.push_screen(screen_factory())

        def on_unmount(self) -> None:
            self.db.close()

    return OneScreenApp


def picked(screen) -> list[str]:
    """The study ids a screen's study picker offers (its "no study" option is none)."""
    from textual.widgets import Select

    return [value for _, value in screen.query_one("#study-select", Select)._options if isinstance(value, str)]


async def each_section(pilot):
    """Every section of the shell in turn, opened by its key and settled."""
    for section in pilot.app.sections:
        await pilot.press(section.key)
        await settle(pilot)
        yield section
