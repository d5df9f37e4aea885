"""Rater mode of the app (`workbench --rater NAME --study STUDY`): the scoring desk and nothing else.

Blindness is a security property, and the rest of the app (Runs, Metrics,
Studies, the case notes in Cases) shows conditions, models and transcripts.
So in rater mode `RaterApp` has no sections at all: no number keys, section
bar or "go:"/"cases:" palette commands lead anywhere, and the one screen is
`RaterScoringScreen`, the ordinary scoring screen opened straight on the
locked study and rater, with the rater picker and "switch rater" turned off.
The palette offers only the desk's own "score: …" commands, and help lists
only the keys the rater can use. A lock that cannot be honoured (see
`workbench.scoring.rater_lock`) is refused before anything is drawn; a session that
fails to open (nothing assigned yet, say) ends the app with code 1 and why.
An unexpected error ends it too, but its traceback is not printed: Textual
shows local variables in it, and those can hold sealed rows.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.app import ComposeResult
from textual.widgets import Header, Static

from screens.app import WorkbenchApp
from screens.scoring import ScoringScreen
from screens.scoring_parts import ScoringCommands
from screens.widgets.footer import KeyFooter
from workbench.scoring.rater_lock import RaterLock, RaterLockRefused, check_rater_lock

MODE = "scoring"

# The desk's palette commands a locked rater keeps (by the screen action each one calls); opening another
# study or rater and "switch rater" are left out, and so is anything added later until it is listed here.
DESK_COMMANDS = {"action_next_unscored", "action_toggle_single", "action_toggle_context", "action_rubric_guide"}

PALETTE_HINT = "ctrl+p opens the command palette: type 'score:' to find a command. Escape closes this help."
DONE_TEXT = "All your items are scored. n / p to look back over them; ctrl+q quits."


class RaterDeskCommands(ScoringCommands):
    """The locked desk's palette: its own "score: …" commands, help and quit; never another study or rater."""

    async def startup(self) -> None:
        self.studies = []  # the study list is what "score: open <study> as <rater>" is built from

    def commands(self):
        desk = [c for c in super().commands() if getattr(c[2], "__name__", "") in DESK_COMMANDS]
        app = self.app
        return desk + [
            ("score: help", "? · the keys you can use here", app.action_help),
            ("score: quit", "ctrl+q · leave (every score is already saved)", app.action_quit),
        ]


class RaterScoringScreen(ScoringScreen):
    """The scoring screen locked to one rater and study: no picker, no switching, no section bar."""

    COMMANDS = {RaterDeskCommands}  # replaces the section's providers (which list every study and rater)

    def __init__(self, lock: RaterLock) -> None:
        super().__init__()
        self.lock = lock

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield from self.compose_section()
        yield KeyFooter()

    def enter_without_session(self) -> None:
        """Instead of the picker: open the locked session, or end the app saying why it cannot be."""
        if not self.open_session(self.lock.study_id, self.lock.rater):
            reason = str(self.query_one("#pick-message", Static).content).strip()
            self.app.refuse(reason or "scoring could not be opened")

    def open_session(self, study_id: str, rater: str) -> bool:
        if (study_id, rater) != (self.lock.study_id, self.lock.rater):
            self.say("rater mode: only your own scoring of this study opens here", error=True)
            return False
        return super().open_session(study_id, rater)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("switch_rater", "back", "leave_desk"):  # all lead to the picker, which lists every study and rater
            return False
        return super().check_action(action, parameters)

    def action_switch_rater(self) -> None:
        self.say("rater mode: switching rater is turned off", error=True)

    def action_back(self) -> None:
        pass

    def refresh_desk(self) -> None:
        super().refresh_desk()
        if self.session is not None and self.session.phase == "complete":
            self._put("#desk-phase", DONE_TEXT)  # the section's text offers 'i' to switch rater


class RaterApp(WorkbenchApp):
    """The workbench locked to one rater's blind scoring of one study."""

    TITLE = "Hindsight Workbench · blind scoring"
    COMMANDS = set()  # no system commands, no "go:" or "cases:"; the desk brings its own

    def __init__(self, db_path: Path, lock: RaterLock) -> None:
        if not Path(db_path).exists():  # a mistyped --db must not leave a new, empty store behind
            raise RaterLockRefused(f"there is no store at {db_path} (check --db or $WORKBENCH_DB)")
        super().__init__(db_path)
        self.sections = []  # so no section key, bar entry or "go:" command exists
        self.lock = lock
        self.refusal: str | None = None
        # Textual prints an unhandled error's traceback, with local variables, on the terminal at exit; in
        # the scoring core those can hold sealed rows (pilot expectations, the key), so it goes here instead.
        self.withheld_errors = io.StringIO()
        self.error_console = Console(file=self.withheld_errors, markup=False, highlight=False, width=120)
        try:
            check_rater_lock(self.db, lock)
        except RaterLockRefused:
            self.db.close()
            raise

    def _bootstrap(self, db) -> list:
        return []  # loading the case library is the researcher's business, not a rater's

    def on_mount(self) -> None:
        self.add_mode(MODE, lambda: RaterScoringScreen(self.lock))
        self.switch_mode(MODE)

    def refuse(self, reason: str) -> None:
        """End the app with code 1; `run_app` prints the reason once the terminal is restored."""
        self.refusal = reason
        self.exit(return_code=1)

    def exit_note(self) -> str | None:
        """What `run_app` tells the rater once the terminal is restored: why the app refused or failed."""
        if self.refusal:
            return self.refusal
        if self.return_code and self.withheld_errors.getvalue():
            return ("the scoring desk stopped on an internal error; every score typed before it is saved. Its "
                    "details are withheld in rater mode (they can show sealed data): tell the researcher, who "
                    "can reproduce it without --rater.")
        return None

    def open_cases(self, case_id: str | None, what: str) -> None:
        pass  # no Cases section here (its palette commands are not offered either)

    def action_help(self) -> None:
        from screens.help import HelpScreen, collect_key_help

        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        title = screen.sub_title or screen.title or "Scoring"
        self.push_screen(HelpScreen(title, collect_key_help(screen), [], None, palette_hint=PALETTE_HINT))
