"""The Scoring section: a rater scores anonymized responses side by side, with the keyboard only.

On entry the rater picks the study and their name (only that study's raters
are listed) and lands on their next unscored item: the calibration pilots
first while they are pending, the rest once the core releases them. A pair of
responses to one case is shown side by side (or one, `v`), labelled only by
the rater's own queue positions ("Response Alpha", "Response Beta"), beside
the scenario and, for the hindsight protocol, the outcome record. Below them:
every criterion of every rubric the item is scored on, and the focused
criterion's anchors (with Epistemic Humility's two-step procedure).

Every key that changes a score (a number, undo, skip, a note) is written and
committed through the scoring core before the screen redraws, so a crash or a
dropped SSH session loses nothing; a note being typed when the app is quit is
saved, not dropped. Nothing shown names a condition, a model, a run, a
timestamp or another rater's scores: the screen renders the core's rater
views and nothing else.
"""

from __future__ import annotations

import sqlite3

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, ProgressBar, Static

from screens.note_dialog import NoteDialog
from screens.scoring_parts import IdentityPicker, RubricGuide, ScoringCommands
from screens.widgets.response_panel import CasePanel, ResponsePanel
from screens.widgets.rubric_panel import RubricPanel
from screens.widgets.section import SectionScreen
from screens.widgets.unsaved_guard import UnsavedGuard
from workbench.scoring import ScoringError
from workbench.scoring.session import ActionResult, ScoringSession, cells_of, scorable_studies, value_of

PICK, DESK = "scoring-pick", "scoring-desk"

PHASE_TEXT = {
    "calibration": "Calibration: {message}.",
    "held": "Held: {message}.",
    "complete": "All your items are scored. n / p to look back over them; i switches rater.",
    "closed": "This study is unblinded: scoring is closed, the items are read only.",
}

KEY_HINT = ("↑↓ criterion · ←→ response · tab next cell · pgup/pgdn scroll response · [ ] scroll case · "
            "{ } scroll anchors · ? all keys")
# at 80 columns: the desk's keys the footer has no room for (NARROW_KEYS), on the feedback line when it has
# nothing else to say (a line of their own would take one of the twelve a response keeps)
NARROW_KEY_HINT = "s skip · p previous · v one/two · pgup/pgdn response · [ ] case · { } anchors"

# Actions that need an open scoring session (the rest of the screen is the identity picker).
DESK_ACTIONS = {"score", "cell", "response", "note", "undo", "skip", "next_pair", "previous_pair",
                "next_unscored",
                "toggle_single", "toggle_context", "rubric_guide", "scroll_response", "scroll_context",
                "scroll_guide", "switch_rater", "leave_desk"}


class ScoringDesk(Vertical, can_focus=True):
    """The scoring half of the screen. It holds the focus while scoring, so every key reaches the
    screen's bindings (and never a widget of the hidden rater picker)."""


def _score_bindings(numbers: range) -> list[Binding]:
    """One binding per number key (an action takes no key argument); only "0-9" shows in the footer."""
    out = []
    for n in numbers:
        if n == 0:
            description = "Score"
            tooltip = ("Number keys score the focused criterion of the focused response (saved at once; only "
                       "within the criterion's range)")
        else:
            description, tooltip = f"Score {n}", f"Give the focused criterion of the focused response the score {n}"
        out.append(Binding(str(n), f"score({n})", description, id=f"scoring.score_{n}", show=n == 0,
                           key_display="0-9" if n == 0 else None, tooltip=tooltip))
    return out


class ScoringScreen(UnsavedGuard, SectionScreen):
    """Pick who is scoring, then score pair by pair with the keyboard."""

    SECTION_ID = "scoring"
    # ScoringCommands offers these by name; per-key scoring and scrolling are no palette material
    PALETTE_SKIP = {"next_unscored", "toggle_single", "toggle_context", "rubric_guide", "switch_rater", "score",
                    "cell", "response", "tab", "scroll_response", "scroll_context", "scroll_guide", "back",
                    "leave_desk"}
    SUB_TITLE = "Scoring"
    # the footer's keys at 80 columns (widgets/footer.py): the rest are on the desk's short key line
    # (NARROW_KEY_HINT), in help (?) and the palette (Esc, leaving the desk, is named on the section bar)
    NARROW_KEYS = frozenset({"score", "note", "undo", "next_pair", "toggle_context", "rubric_guide",
                             "switch_rater", "back"})
    CSS_PATH = "styles/scoring.tcss"
    AUTO_FOCUS = None
    COMMANDS = SectionScreen.COMMANDS | {ScoringCommands}
    BINDINGS = [
        *_score_bindings(range(0, 1)),
        Binding("down", "cell(1)", "Next criterion", id="scoring.cell_down", show=False,
                tooltip="Focus the next criterion of the focused response"),
        Binding("up", "cell(-1)", "Previous criterion", id="scoring.cell_up", show=False,
                tooltip="Focus the previous criterion of the focused response"),
        Binding("right", "response(1)", "Other response", id="scoring.response_right", show=False,
                tooltip="Focus the other response of the pair (same criterion)"),
        Binding("left", "response(-1)", "Other response", id="scoring.response_left", show=False,
                tooltip="Focus the other response of the pair (same criterion)"),
        Binding("tab", "tab(1)", "Next cell", id="scoring.tab", show=False,
                tooltip="Next criterion, on to the other response after the last one"),
        Binding("shift+tab", "tab(-1)", "Previous cell", id="scoring.shift_tab", show=False,
                tooltip="Previous criterion, back to the other response before the first one"),
        Binding("j", "note", "Note", id="scoring.note",
                tooltip="Write a justification note for the focused criterion of the focused response"),
        Binding("u,ctrl+z", "undo", "Undo", id="scoring.undo",
                tooltip="Undo your last score (wherever it is) and show it"),
        Binding("s", "skip", "Skip", id="scoring.skip",
                tooltip="Put this pair aside and go to the next unscored one; it comes round again at the end"),
        Binding("n", "next_pair", "Next", id="scoring.next", tooltip="Show the next pair in your queue"),
        Binding("p", "previous_pair", "Previous", id="scoring.previous",
                tooltip="Show the previous pair in your queue"),
        Binding("g", "next_unscored", "Next unscored", id="scoring.next_unscored", show=False,
                tooltip="Go to your next unscored item (the one you would land on when opening scoring)"),
        Binding("v", "toggle_single", "One/two", id="scoring.single",
                tooltip="Show only the focused response, or both side by side"),
        Binding("c", "toggle_context", "Case", id="scoring.context",
                tooltip="Show or hide the scenario and outcome record"),
        Binding("r", "rubric_guide", "Rubric", id="scoring.rubric",
                tooltip="Read the whole rubric of the focused criterion: instructions and every anchor"),
        Binding("pagedown", "scroll_response(1)", "Scroll response", id="scoring.response_down", show=False,
                tooltip="Scroll the focused response down a page"),
        Binding("pageup", "scroll_response(-1)", "Scroll response up", id="scoring.response_up", show=False,
                tooltip="Scroll the focused response up a page"),
        Binding("right_square_bracket", "scroll_context(1)", "Scroll case", id="scoring.case_down",
                show=False, tooltip="Scroll the scenario and outcome down"),
        Binding("left_square_bracket", "scroll_context(-1)", "Scroll case up", id="scoring.case_up",
                show=False, tooltip="Scroll the scenario and outcome up"),
        Binding("right_curly_bracket", "scroll_guide(1)", "Scroll anchors", id="scoring.guide_down",
                show=False, tooltip="Scroll the focused criterion's anchors down"),
        Binding("left_curly_bracket", "scroll_guide(-1)", "Scroll anchors up", id="scoring.guide_up",
                show=False, tooltip="Scroll the focused criterion's anchors up"),
        Binding("i", "switch_rater", "Rater", id="scoring.switch_rater",
                tooltip="Back to choosing the study and rater"),
        Binding("escape", "leave_desk", "Leave desk", id="scoring.leave_desk",
                tooltip="Leave the scoring desk for the study and rater list (a note being typed is saved "
                        "first); every score is already saved"),
        Binding("escape", "back", "Back", id="scoring.back", show=False,
                tooltip="From the rater list back to the study list"),
        *_score_bindings(range(1, 10)),  # last, so help lists the moving keys before nine "Score n" rows
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: ScoringSession | None = None
        self.single = False
        self._note_dialog: NoteDialog | None = None
        self._lines: dict[str, str | Text] = {}
        # after a score the focus moves on; `j` pressed next writes the note of the criterion just scored:
        # (where the score moved the focus to, the criterion scored), until the focus moves again
        self._just_scored: tuple[tuple, tuple] | None = None
        self._note_return: tuple | None = None  # where the focus goes back to once that note is closed

    def compose_section(self) -> ComposeResult:
        with ContentSwitcher(initial=PICK, id="scoring-switcher"):
            yield IdentityPicker(id=PICK)
            with ScoringDesk(id=DESK):
                with Horizontal(id="desk-status"):
                    yield Static("", id="desk-where", markup=False)
                    yield ProgressBar(id="desk-progress", show_eta=False, show_percentage=False)
                    yield Static("", id="desk-count", markup=False)
                yield Static("", id="desk-phase", markup=False)
                with Horizontal(id="desk-reading"):
                    yield CasePanel(id="case-panel")
                    yield ResponsePanel(id="response-0")
                    yield ResponsePanel(id="response-1")
                yield RubricPanel(id="rubric-panel")
                yield Static("", id="desk-feedback", markup=False)
                yield Static(KEY_HINT, id="desk-keys", markup=False)

    def on_screen_resume(self) -> None:
        """On first show and on every return (from a dialog or another section): re-read the store."""
        if self.session is None:  # studies may have been created or frozen meanwhile
            self.enter_without_session()
        else:
            self.query_one(ScoringDesk).focus()
            self._run(self.session.refresh)

    # -- who is scoring -----------------------------------------------------------------------

    def enter_without_session(self) -> None:
        """Shown with no session open: the rater picker. (Rater mode opens its one session here instead.)"""
        self._load_picker()

    def _load_picker(self) -> None:
        from workbench.metrics.ratings import study_list

        self.query_one(IdentityPicker).load(scorable_studies(self.app.db), study_list(self.app.db))

    @on(IdentityPicker.Chosen)
    def _chosen(self, event: IdentityPicker.Chosen) -> None:
        self.open_session(event.study_id, event.rater)

    def open_session(self, study_id: str, rater: str) -> bool:
        """Open `rater`'s session on `study_id` and show their next unscored item."""
        picker = self.query_one(IdentityPicker)
        try:
            session = ScoringSession.enter(self.app.db, study_id, rater)
        except (ScoringError, sqlite3.Error) as exc:
            picker.say(f"Cannot open scoring for {rater}: {exc}", error=True)
            return False
        if not session.units:
            picker.say(f"{rater} has no items assigned in {study_id}.", error=True)
            return False
        self.session = session
        self.single = False
        self.query_one("#case-panel").display = True
        self.query_one(ContentSwitcher).current = DESK
        self.query_one(ScoringDesk).focus()
        self.sub_title = f"Scoring · {rater}"
        self._desk_owns_keys(True)
        self.say("")
        self.refresh_desk()
        self.call_after_refresh(self.refresh_desk)  # again once laid out: the grid fits the width
        self.refresh_bindings()
        return True

    @property
    def owns_digits(self) -> bool:
        """On the desk the number keys are scores only: the app's section keys and their palette hints
        step aside (issue 24, item 5)."""
        return self.session is not None

    def _desk_owns_keys(self, on_desk: bool) -> None:
        bar = self.query("#section-bar")
        if bar:
            bar.first().show_leave_hint(on_desk)
        self.app.refresh_bindings()

    async def action_leave_desk(self) -> None:
        """Escape on the desk: save a note being typed (the unsaved-changes check), then the rater list."""
        if await self.resolve_unsaved_changes():
            self.action_switch_rater()

    def action_switch_rater(self) -> None:
        self.session = None
        self._desk_owns_keys(False)
        self.sub_title = "Scoring"
        self.query_one(ContentSwitcher).current = PICK
        self._load_picker()
        self.query_one(IdentityPicker).say("")
        self.refresh_bindings()

    def action_back(self) -> None:
        self.query_one(IdentityPicker).focus_studies()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        on_desk = self.session is not None
        if action in DESK_ACTIONS:
            return on_desk
        if action == "back":
            return not on_desk
        return True

    # -- drawing ------------------------------------------------------------------------------

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_desk)  # the criteria grid fits its names to the width
        message, error = getattr(self, "_said", ("", False))
        self.call_after_refresh(self.say, message, error=error)  # the key line comes and goes with the width

    def shown_responses(self) -> list[int]:
        s = self.session
        if s is None or not s.views:
            return []
        return [s.response] if self.single else list(range(len(s.views)))

    def refresh_desk(self) -> None:
        s = self.session
        if s is None:
            return
        progress = s.progress
        where = f"{s.rater} · {s.study_id}"
        if s.unit_number is not None:
            where += f" · pair {s.unit_number} of {len(s.units)}"
        self._put("#desk-where", where)
        bar = self.query_one("#desk-progress", ProgressBar)
        bar.update(total=max(progress.total, 1), progress=progress.done)
        self._put("#desk-count", f"{progress.done}/{progress.total} scored")
        phase = PHASE_TEXT.get(progress.phase, "")
        self._put("#desk-phase", phase.format(message=progress.message.rstrip(".")) if phase else "")
        phase_widget = self.query_one("#desk-phase", Static)
        phase_widget.display = bool(phase)
        phase_widget.set_class(progress.phase in ("calibration", "held"), "-attention")
        phase_widget.set_class(progress.phase == "held", "-held")
        shown = self.shown_responses()
        for k in range(2):
            panel = self.query_one(f"#response-{k}", ResponsePanel)
            if k < len(s.views) and k in shown:
                view = s.views[k]
                cells = cells_of(view)
                scored = sum(1 for c in cells if value_of(view, c) is not None)
                panel.display = True
                panel.show(view, focused=k == s.response, scored=scored, total=len(cells))
            else:
                panel.display = False
        if s.views:
            case = self.query_one(CasePanel)
            case.show(s.views[0])
            if not (s.views[0].case_title or s.views[0].scenario.strip()):
                case.display = False  # an item with no case (M11's samples carry their own question): no empty pane
            self.query_one(RubricPanel).show(s.views, s.response, s.cell, shown,
                                             compact=self.has_class("-narrow"))

    def _put(self, selector: str, content: str | Text) -> None:
        """Redraw a line only when it changed: every redraw of an unchanged line costs a re-layout."""
        if self._lines.get(selector) != content:
            self._lines[selector] = content
            self.query_one(selector, Static).update(content)

    def say(self, message: str, *, error: bool = False) -> None:
        self._said = (message, error)
        if not message and self.has_class("-narrow"):
            self._put("#desk-feedback", Text(NARROW_KEY_HINT, style="dim"))
        else:
            self._put("#desk-feedback", Text(message, style="bold red" if error else ""))

    def _run(self, act) -> ActionResult | None:
        """Run one session action; a refusal is shown, never raised (nothing was written)."""
        try:
            result = act()
        except ScoringError as exc:
            self.say(f"not saved: {exc}", error=True)
            if not self.has_class("-narrow"):  # at 80 columns a toast would cover Response Beta: the line says it
                self.notify(str(exc), title="Scoring", severity="error")
            self.refresh_desk()
            return None
        except sqlite3.Error as exc:
            self.say(f"not saved: the store refused the write ({exc})", error=True)
            self.notify(f"the store refused the write: {exc}", title="Scoring", severity="error")
            return None
        self.refresh_desk()
        if result.released:
            self.notify("Calibration passed: the rest of your items are open (n: next pair).", title="Scoring")
        elif result.held:
            self.notify(self.session.progress.message, title="Calibration", severity="warning", timeout=10)
        return result

    # -- scoring ------------------------------------------------------------------------------

    def action_score(self, value: int) -> None:
        s = self.session
        if s is None:
            return
        label = s.view.label if s.view else ""
        cell, scored_at = s.focused_cell, self._focus()
        result = self._run(lambda: s.score(value))
        if result is None or result.receipt is None or cell is None:
            return
        self._just_scored = (self._focus(), scored_at)
        r = result.receipt
        was = "" if r.previous is None or r.previous == r.value else f" (was {r.previous})"
        message = f"saved · {label} · {cell.criterion_name} = {r.value}{was}"
        if r.progress.phase == "complete" and r.progress.done == r.progress.total:
            message += " · every item is scored"
        elif r.item_complete and s.index is not None and s.units[s.index].complete:
            message += " · pair complete: n for the next one"
        self.say(message)

    def action_undo(self) -> None:
        self._say_run(lambda s: s.undo())

    def action_skip(self) -> None:
        self._say_run(lambda s: s.skip())

    def _say_run(self, act) -> None:
        """Run `act(session)` (undo, skip, a note) and show what it says."""
        s = self.session
        if s is not None:
            result = self._run(lambda: act(s))
            if result is not None:
                self.say(result.message or "")

    def action_note(self) -> None:
        s = self.session
        if s is None or s.view is None or s.focused_cell is None:
            return
        if s.read_only:
            self.say("scoring is closed: notes cannot change", error=True)
            return
        moved_to, scored = self._just_scored or ((), ())
        self._just_scored = None
        if moved_to == self._focus() and scored[0] == s.index:  # the focus has not moved since the score
            self._note_return = moved_to  # the note is the scored criterion's: focus it while it is written
            s.response, s.cell = scored[1:]
            self.refresh_desk()
        cell, view = s.focused_cell, s.view
        dialog = NoteDialog(f"Justification · {view.label} · {cell.rubric_name} › {cell.criterion_name}",
                            s.note())
        self._note_dialog = dialog
        self.app.push_screen(dialog, callback=self._note_closed)

    def _note_closed(self, text: str | None) -> None:
        dialog, self._note_dialog = self._note_dialog, None
        s = self.session
        back, self._note_return = self._note_return, None
        if not (text is None or s is None or dialog is None or text.strip() == dialog.original.strip()):
            self._say_run(lambda s: s.write_note(text))
        if back is not None and s is not None and s.index == back[0]:  # on to where the score had moved
            s.response, s.cell = back[1:]
            self.refresh_desk()

    def _focus(self) -> tuple:
        """Where the desk's focus is: (pair, response, criterion)."""
        s = self.session
        return (s.index, s.response, s.cell) if s is not None else ()

    # -- unsaved-changes guard (the app asks before quitting) ----------------------------------

    def has_unsaved_changes(self) -> bool:
        dialog = self._note_dialog
        return dialog is not None and dialog.changed

    async def resolve_unsaved_changes(self) -> bool:
        """A half-typed note is saved, never lost: there is nothing to ask."""
        dialog, s = self._note_dialog, self.session
        if dialog is not None and dialog.changed and s is not None:
            try:
                s.write_note(dialog.draft)
            except (ScoringError, sqlite3.Error) as exc:
                self.notify(f"the note could not be saved: {exc}", title="Scoring", severity="error")
                return False
        return True

    # -- moving -------------------------------------------------------------------------------

    def _move(self, move) -> None:
        if self.session is not None:
            move()
            self.say("")
            self.refresh_desk()

    def action_cell(self, delta: int) -> None:
        self._move(lambda: self.session.move_cell(delta))

    def action_response(self, delta: int) -> None:
        self._move(lambda: self.session.move_response(delta))

    def action_tab(self, delta: int) -> None:
        if self.session is None:  # the rater picker: tab moves between its lists (this binding hides the screen's)
            self.focus_next() if delta > 0 else self.focus_previous()
            return
        self._move(lambda: self.session.tab(delta))

    def action_next_pair(self) -> None:
        self._step(self.session.next_unit if self.session else None, "this is your last pair")

    def action_previous_pair(self) -> None:
        self._step(self.session.previous_unit if self.session else None, "this is your first pair")

    def _step(self, step, at_end: str) -> None:
        if step is None:
            return
        try:
            moved = step()
        except ScoringError as exc:
            self.say(str(exc), error=True)
            return
        if not moved:
            held = self.session.phase in ("calibration", "held")
            self.say(f"{at_end}{' you can open now (the rest wait for calibration)' if held else ''}")
        else:
            self.say("")
        self.refresh_desk()

    def action_next_unscored(self) -> None:
        s = self.session
        if s is None:
            return
        result = self._run(s.to_next_unscored)
        if result is not None:
            self.say(result.message or "")

    def action_toggle_single(self) -> None:
        self.single = not self.single
        self.refresh_desk()

    def action_toggle_context(self) -> None:
        panel = self.query_one(CasePanel)
        panel.display = not panel.display

    def action_rubric_guide(self) -> None:
        s = self.session
        if s is None or s.view is None or s.focused_cell is None:
            return
        rubric = next(r for r in s.view.rubrics if r.id == s.focused_cell.rubric_id)
        self.app.push_screen(RubricGuide(rubric, s.focused_cell.criterion_id))

    def action_scroll_response(self, delta: int) -> None:
        if self.session is not None:
            panel = self.query_one(f"#response-{self.session.response}", ResponsePanel)
            panel.scroll_page_down() if delta > 0 else panel.scroll_page_up()

    def action_scroll_context(self, delta: int) -> None:
        self.query_one(CasePanel).scroll_relative(y=5 * delta, animate=False)

    def action_scroll_guide(self, delta: int) -> None:
        self.query_one("#anchor-guide").scroll_relative(y=3 * delta, animate=False)
