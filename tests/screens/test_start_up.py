"""Start-up (issue 33, "fast"): the first frame is drawn before the store is opened and before anything heavy
is imported; the store is opened in a worker after it, and the cases are listed then; a store that cannot
be opened still ends the app with code 1 and says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from screen_helpers import FIXTURE_CASE_IDS, settings_loaded, settle, table_ids
from textual.widgets import Static

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("litellm", "numpy", "scipy", "pandas", "sentence_transformers", "torch")


def _run(code: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=180,
                          cwd=REPO, env=env)


# The `workbench` command (screens.launch.main, its command line included) opening the app headless in a
# fresh interpreter: what is loaded and shown at the Cases screen's first frame (the moment Textual hands a
# frame to the terminal), then once the list is read, or once "2" / "6" pressed at that first frame (before
# the store's worker has run) has its section shown.
FIRST_FRAME = r"""
import json, sys
import screens.launch as launch
db, heavy, then = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
out = {}

def loaded(names):
    return sorted(m for m in names if m in sys.modules)

async def drive(pilot):
    app = pilot.app
    for _ in range(1200):
        await pilot.pause(0.05)
        if then == "studies" and type(app.screen).__name__ == "StudiesScreen":
            await app.workers.wait_for_complete()
            break
        if then == "settings" and getattr(app.screen, "loaded", False):
            break
        if then == "cases" and "case" in str(app.screen.query_one("#case-count").render()).replace("Loading the cases", ""):
            break
    out["after"] = {"screen": type(app.screen).__name__, "store_open": app.store.is_open, "modules": loaded(heavy)}
    app.exit()

def run_headless(db_path, rater=None):
    app = launch.make_app(db_path, rater)
    display = app._display

    def first_frame(screen, renderable):
        if renderable is not None and "first" not in out and type(screen).__name__ == "CasesScreen":
            out["first"] = {"modules": loaded(["sqlite_utils", "store.db", *heavy]), "store_open": app.store.is_open,
                            "count": str(screen.query_one("#case-count").render())}
            if then in ("studies", "settings"):
                app.call_later(app.action_go, then)
        return display(screen, renderable)

    app._display = first_frame
    app.run(headless=True, size=(120, 30), auto_pilot=drive)
    return app.return_code or 0

launch.run_app = run_headless
assert launch.main(["--db", db]) == 0
print(json.dumps(out))
"""


def _first_frame(library, then: str) -> dict:
    result = _run(FIRST_FRAME, str(library.db), ",".join(HEAVY), then,
                  env={"WORKBENCH_CASES_DIR": str(library.cases), "WORKBENCH_RUBRICS_DIR": str(library.rubrics),
                       "WORKBENCH_CASE_LIBRARY": str(library.cases)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_first_frame_is_drawn_before_the_store_is_opened_and_without_heavy_libraries(library):
    seen = _first_frame(library, "cases")
    assert seen["first"] == {"modules": [], "store_open": False, "count": "Loading the cases…"}
    assert seen["after"] == {"screen": "CasesScreen", "store_open": True, "modules": []}


def test_a_section_chosen_before_the_store_is_open_opens_it_first_and_loads_no_pandas(library):
    """Another section's modules import sqlite-utils; they come after the store, which keeps its pandas out."""
    seen = _first_frame(library, "studies")
    assert seen["first"]["store_open"] is False
    assert seen["after"] == {"screen": "StudiesScreen", "store_open": True, "modules": []}


def test_settings_opens_without_loading_litellm_or_anything_heavy(library):
    """Settings names models and keys; it never asks litellm (or a model) anything to show them."""
    seen = _first_frame(library, "settings")
    assert seen["after"] == {"screen": "SettingsScreen", "store_open": True, "modules": []}


async def test_the_cases_are_listed_once_the_store_is_open(app):
    assert not app.store.is_open  # making the app opens nothing
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await settle(pilot)
        assert app.store.is_open
        assert set(table_ids(app)) == set(FIXTURE_CASE_IDS)
        assert str(app.screen.query_one("#case-count", Static).render()).startswith(f"{len(FIXTURE_CASE_IDS)} cases")


def test_a_file_that_is_not_a_store_ends_the_app_with_code_1_and_a_message(tmp_path):
    """The store is opened after the first frame now; the app ends at once and `workbench` says why on
    stderr once the terminal is restored, leaving the file as it was."""
    bad = tmp_path / "not-a-store.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    result = _run("import sys; from screens.launch import main; sys.exit(main(['--db', sys.argv[1]]))", str(bad),
                  env={"TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver"})
    assert result.returncode == 1
    assert "workbench:" in result.stderr and "not a workbench store" in result.stderr
    assert bad.read_bytes() == b"this is not sqlite" * 100


async def test_visiting_a_section_again_does_not_reparse_the_css_unless_the_theme_changed(app):
    """Textual re-parsed every CSS source and restyled every widget on each visit to a section (its screen
    was never marked as styled: screens/app.py `styled_as_current`), about 0.3 s of CPU for Settings."""
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        refreshed: list[str] = []
        refresh_css = app.refresh_css
        app.refresh_css = lambda *a, **k: (refreshed.append(type(app.screen).__name__), refresh_css(*a, **k))[1]
        for key in "616":
            await pilot.press(key)
            await settle(pilot)
        assert type(app.screen).__name__ == "SettingsScreen" and refreshed == []
        await pilot.press("1")
        await settle(pilot)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        refreshed.clear()
        await pilot.press("6")
        await settle(pilot)
        assert refreshed == ["SettingsScreen"]  # styled for the old theme: restyled when shown


async def test_settings_paints_before_its_loader_finishes_and_fills_the_form_after(app, monkeypatch):
    """The saved settings are read by a worker after Settings' first frame: a store read that hangs (the
    loader stubbed to block on an event) leaves the screen drawn, saying so, with nothing to save; released,
    the form appears with the saved values."""
    import threading

    import screens.settings
    from workbench.gateway.settings import GatewaySettings, load_settings, save_settings

    release, reading = threading.Event(), threading.Event()

    def slow_load(db):
        reading.set()
        assert release.wait(60), "never released"
        return load_settings(db)

    monkeypatch.setattr(screens.settings, "load_settings", slow_load)
    save_settings(app.db, GatewaySettings(concurrency=7))
    frames: list[str] = []
    display = app._display
    app._display = lambda screen, update: (update is not None and frames.append(type(screen).__name__),
                                           display(screen, update))[1]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        for _ in range(200):
            if reading.is_set() and "SettingsScreen" in frames:
                break
            await pilot.pause(0.05)
        screen = app.screen
        assert type(screen).__name__ == "SettingsScreen" and "SettingsScreen" in frames  # painted, still reading
        assert str(screen.query_one("#settings-loading", Static).render()) == "Loading the settings…"
        assert not screen.query("#gw-concurrency") and not screen.loaded
        assert not screen.check_action("save", ()) and not screen.has_unsaved_changes()
        release.set()
        await settings_loaded(pilot)
        assert screen.query_one("#gw-concurrency").value == "7" and not screen.query("#settings-loading")
        assert screen.check_action("save", ()) and not screen.has_unsaved_changes()


async def test_the_footer_is_rebuilt_only_when_its_keys_change(app, monkeypatch):
    """Textual rebuilt (and restyled) the footer on every refresh of the bindings, five times before the
    cases were listed; a refresh that leaves the keys as they were now leaves the footer alone."""
    from screens.widgets.footer import KeyFooter

    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await settle(pilot)
        built: list[int] = []
        compose = KeyFooter.compose
        monkeypatch.setattr(KeyFooter, "compose", lambda self: (built.append(1), compose(self))[1])
        app.screen.refresh_bindings()
        await settle(pilot)
        assert built == []
        app.screen.query_one("#case-search").focus()  # the search field's keys join the screen's
        await settle(pilot)
        assert built
