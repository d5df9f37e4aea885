"""The app shell: the store, navigation between sections, help, the command palette, a guarded quit.

`make_app(db_path)` is the one factory used by the CLI (`run_app`) and by the
tests. Sections (screens/sections.py) are Textual modes, one per section, so
each keeps its own stack of screens (the Cases list and an open editor stay
put while you look at Metrics). A section's module is imported the first time
it is shown, which keeps start-up light. The store is opened after the first frame
(screens/store_opening.py): the Cases screen paints with "opening the store…" and lists the cases once a
worker has opened it.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from screens.commands import CaseCommands, NavigationCommands, OtherSections, SectionActions
from screens.protocol_panels import PanelCommands
from screens.sections import SECTIONS, Section
from screens.store_opening import StoreOpening

if TYPE_CHECKING:  # sqlite-utils is first imported by the store (store/db.py), which keeps pandas out of it
    import sqlite_utils


@dataclass(frozen=True)
class WorkbenchContext:
    """What a section needs from the app; also reachable as `self.app.db` / `self.app.db_path`."""

    store: StoreOpening
    db_path: Path

    @property
    def db(self) -> sqlite_utils.Database:
        return self.store.get()


def load_section_class(section: Section) -> type[Screen]:
    module_name, class_name = section.target.split(":", 1)
    return getattr(importlib.import_module(module_name), class_name)


def build_section_screen(cls: type[Screen], context: WorkbenchContext) -> Screen:
    """Construct a section screen: with the context if its constructor requires an argument, else bare."""
    params = [p for p in list(inspect.signature(cls).parameters.values())
              if p.default is inspect.Parameter.empty
              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return cls(context) if params else cls()


def styled_as_current(screen: Screen, app: App) -> Screen:
    """Mark a new section screen as styled by the app's current CSS, which it is once mounted.

    Textual (8.2) compares a screen's CSS generation with the app's on every mode switch and, if they
    differ, re-parses every CSS source and restyles every widget (`App.refresh_css`). A mode's screen starts
    at -1 and is marked only by a refresh that runs while it is mounted and current, which never happens
    for a mode's first screen: so each visit to a section paid a full refresh (about 0.3 s of CPU for
    Settings, on every visit), and its first visit one more for the section it left. A theme change
    still moves the app's generation on, and the screen is refreshed when next shown."""
    screen._css_update_count = app._css_update_count
    return screen


def _section_bindings() -> list[Binding]:
    return [
        Binding(s.key, f"go_key('{s.key}')", s.title, id=f"app.go.{s.id}", show=False,
                tooltip=f"Go to {s.title}: {s.description}")
        for s in SECTIONS
    ]


def screen_title(screen: Screen) -> str:
    """How help names a screen: its sub-title, else its title, else its class in words with its protocol
    (`screens.faultline.debate.DebateScreen` -> `Debate (faultline)`), never a class name."""
    import re

    if screen.sub_title or screen.title:
        return screen.sub_title or screen.title
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(screen).__name__.removesuffix("Screen")).strip() or "Screen"
    package = type(screen).__module__.split(".")
    protocol = package[1] if len(package) > 2 and package[0] == "screens" else ""
    return f"{words.capitalize()} ({protocol})" if protocol else words.capitalize()


class WorkbenchApp(App[int]):
    TITLE = "Hindsight Workbench"
    # The first screen's styles too: parsed with the app's at start, rather than all CSS parsed again when it mounts
    CSS_PATH = ["styles/app.tcss", "styles/cases.tcss"]
    COMMANDS = App.COMMANDS | {NavigationCommands, CaseCommands, PanelCommands, SectionActions, OtherSections}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True,
                tooltip="Quit the workbench; asks first about any unsaved changes"),
        Binding("question_mark,f1", "help", "Help", id="app.help",
                tooltip="Show the keys of this screen and the list of sections"),
        *_section_bindings(),
    ]

    def __init__(self, db_path: Path) -> None:
        super().__init__()
        self.db_path = Path(db_path)
        self.store = StoreOpening(self.db_path, self._open_store)
        self.context = WorkbenchContext(self.store, self.db_path)
        self.sections: list[Section] = list(SECTIONS)
        self.chosen_study: str | None = None  # chosen in Studies; Runs and Metrics follow it (and say so)
        self.startup_problems: list[str] = []
        self.store_error: str | None = None  # why the store could not be opened (`run_app` prints it)
        # Screens with edits that must not be lost on quit, and the mode each lives in.
        self._guards: dict[Screen, str] = {}

    @property
    def db(self) -> sqlite_utils.Database:
        """The store: opened after the first frame, or here and now by whoever needs it first."""
        return self.store.get()

    def _open_store(self, path: Path) -> sqlite_utils.Database:
        from workbench.paths import open_workbench_store

        db = open_workbench_store(path)
        self.startup_problems = self._bootstrap(db)
        return db

    def _bootstrap(self, db: sqlite_utils.Database) -> list:
        """First launch of a store: load the shipped cases and rubrics. Returns the case files refused
        (file:line: reason), never raises on bad files."""
        from workbench.cases import CaseError
        from workbench.cases.library import bootstrap, refusal_text, refused_cases

        try:
            if bootstrap(db):
                return [refusal_text(r) for r in refused_cases(db)]
        except CaseError as exc:  # a shipped rubric that does not parse
            return [str(p) for p in exc.problems]
        return []

    # -- sections ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        for section in self.sections:
            self.add_mode(section.id, self._section_factory(section))
        if self.sections:
            self.action_go(self.sections[0].id)
        self.call_after_refresh(self.open_store_in_background)

    @work(thread=True, exclusive=True, group="store", exit_on_error=False)
    def open_store_in_background(self) -> None:
        """After the first frame: open the store (and, on a first launch, load the shipped cases)."""
        self.store.get()

    def _store_opened(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:  # not a workbench store, not writable…: nothing to show
            self.store_error = str(event.worker.error)
            self.exit(return_code=1)
        elif event.state == WorkerState.SUCCESS and self.startup_problems:
            first = self.startup_problems[0]
            self.notify(f"{len(self.startup_problems)} case file(s) refused (the others are loaded; a study "
                        f"that names a refused one is refused). First: {first}", title="Case library",
                        severity="error", timeout=15)

    def exit_note(self) -> str | None:
        """What `run_app` prints once the terminal is restored."""
        return self.store_error

    def _section_factory(self, section: Section):
        def make() -> Screen:
            try:
                if section is not self.sections[0]:
                    # The first section paints before the store is open (its module must not import
                    # sqlite-utils: tests/screens/test_start_up.py). Any other opens it first: its modules may
                    # import sqlite-utils, which must come through the store (store/db.py keeps pandas out).
                    self.store.get()
                screen = build_section_screen(load_section_class(section), self.context)
            except Exception as exc:  # a broken section module or constructor must not take the app down
                from screens.widgets.section import SectionUnavailable

                self.log.error(f"section {section.id} failed: {exc!r}")
                screen = SectionUnavailable(section.id, section.title, exc)
            return styled_as_current(screen, self)

        return make

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "go" and parameters:
            return self.section(str(parameters[0])) is not None
        if action == "go_key" and parameters:
            if getattr(self.screen, "owns_digits", False):
                return False  # the scoring desk's number keys are scores only
            return any(s.key == parameters[0] for s in self.sections)
        return True

    def action_go_key(self, key: str) -> None:
        """A section's number key: go to the section that has it."""
        for section in self.sections:
            if section.key == key:
                self.action_go(section.id)
                return

    def action_go(self, section_id: str) -> None:
        """Show a section (its mode); one that fails to build shows why instead (see `_section_factory`)."""
        section = self.section(section_id)
        if section is None or self.current_mode == section_id:
            return
        self.switch_mode(section_id)

    def in_section(self, section_id: str, method: str, *args) -> None:
        """Go to a section and call `method(*args)` on its screen (the palette's commands of other sections)."""
        self.action_go(section_id)
        screen = self.screen_stack[0]
        result = getattr(screen, method)(*args)
        if inspect.isawaitable(result):
            self.call_later(lambda: result)

    def open_cases(self, case_id: str | None, what: str) -> None:
        """Palette entry point into the Cases section: open a case, start a new one, probe all ready."""
        self.action_go("cases")
        base = self.screen_stack[0]
        handler = {"open": "open_case", "new": "action_new_case", "probe_all": "action_probe_ready"}[what]
        if what == "open":
            getattr(base, handler)(case_id)
        else:
            getattr(base, handler)()

    def on_key(self, event: events.Key) -> None:
        """A key typed right after the one that opened a form was already on its way through the screen
        below; it arrives here unhandled once the form is on top. A screen that takes such keys
        (`take_early_key`, e.g. the study form's name field) gets it instead of it being dropped."""
        take = getattr(self.screen, "take_early_key", None)
        if take is not None and event.is_printable and event.character and take(event.character):
            event.stop()

    # -- help -------------------------------------------------------------------------------------

    def action_help(self) -> None:
        from screens.help import HelpScreen, collect_key_help

        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        self.push_screen(HelpScreen(screen_title(screen), collect_key_help(screen), self.sections, self.current_mode,
                                    store_path=str(self.db_path)))

    # -- unsaved changes and quitting -------------------------------------------------------------

    def register_unsaved_guard(self, screen: Screen) -> None:
        """A screen holding edits registers here; it must offer `has_unsaved_changes()` and
        `async resolve_unsaved_changes() -> bool` (True: nothing left to lose, go on)."""
        self._guards[screen] = self.current_mode

    def unregister_unsaved_guard(self, screen: Screen) -> None:
        self._guards.pop(screen, None)

    async def action_quit(self) -> None:
        if any(s.has_unsaved_changes() for s in self._guards):
            self._quit_after_asking()
        else:
            self.exit(0)

    @work(exclusive=True, group="quit", exit_on_error=False)
    async def _quit_after_asking(self) -> None:
        for screen, mode in list(self._guards.items()):
            if not screen.has_unsaved_changes():
                continue
            if mode != self.current_mode:
                await self.switch_mode(mode)
            if not await screen.resolve_unsaved_changes():
                return  # the user chose to stay
        self.exit(0)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "store":
            self._store_opened(event)
        elif event.state == WorkerState.ERROR and event.worker.group != "palette":
            self.notify(f"{event.worker.name}: {event.worker.error}", title="Something failed", severity="error")

    def on_unmount(self) -> None:
        self.store.close()
