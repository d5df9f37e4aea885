"""Small modal dialogs that ask one question and return the answer's id."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


@dataclass(frozen=True)
class Choice:
    id: str
    label: str
    key: str  # a single key that picks this choice
    variant: str = "default"


class ChoiceDialog(ModalScreen[str]):
    """A question with a row of buttons; dismisses with the chosen id (escape picks `cancel_id`)."""

    DEFAULT_CSS = """
    ChoiceDialog {
        align: center middle;
        background: $background 60%;
    }
    ChoiceDialog > Vertical {
        width: 64;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }
    ChoiceDialog .dialog-title { text-style: bold; margin-bottom: 1; }
    ChoiceDialog .dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ChoiceDialog Button { margin-left: 1; min-width: 10; }
    ChoiceDialog.-stacked > Vertical { width: 76; max-width: 100%; }
    ChoiceDialog.-stacked .dialog-buttons { layout: vertical; }
    ChoiceDialog.-stacked Button { width: 100%; margin-left: 0; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close the dialog without doing anything"),
        Binding("left", "app.focus_previous", show=False, id="dialog.left", tooltip="Previous button"),
        Binding("right", "app.focus_next", show=False, id="dialog.right", tooltip="Next button"),
        Binding("up", "app.focus_previous", show=False, id="dialog.up", tooltip="Previous button"),
        Binding("down", "app.focus_next", show=False, id="dialog.down", tooltip="Next button"),
    ]

    def __init__(self, title: str, message: str, choices: list[Choice], *, cancel_id: str = "cancel",
                 default_id: str | None = None, stacked: bool = False) -> None:
        """`stacked`: one compact button per line, for a list of choices that would not fit in a row at
        80 columns (the export list)."""
        super().__init__(classes="-stacked" if stacked else None)
        self.stacked = stacked
        self.dialog_title = title
        self.message = message
        self.choices = choices
        self.cancel_id = cancel_id
        self.default_id = default_id or choices[0].id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.dialog_title, classes="dialog-title", markup=False)
            yield Static(self.message, classes="dialog-message", markup=False)
            with Horizontal(classes="dialog-buttons"):
                for c in self.choices:
                    yield Button(f"{c.label} ({c.key})", id=f"choice-{c.id}", variant=c.variant,
                                 compact=self.stacked)

    def on_mount(self) -> None:
        self.query_one(f"#choice-{self.default_id}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id.removeprefix("choice-"))

    def on_key(self, event) -> None:
        for c in self.choices:
            if event.key == c.key:
                event.stop()
                self.dismiss(c.id)
                return

    def action_cancel(self) -> None:
        self.dismiss(self.cancel_id)


SAVE, DISCARD, CANCEL = "save", "discard", "cancel"


def unsaved_changes_dialog(what: str) -> ChoiceDialog:
    """Asks what to do with unsaved changes: dismisses with "save", "discard" or "cancel"."""
    return ChoiceDialog(
        "Unsaved changes",
        f"{what} has changes that are not saved.",
        [Choice(SAVE, "Save", "s", "primary"), Choice(DISCARD, "Discard", "d", "error"),
         Choice(CANCEL, "Cancel", "c")],
        cancel_id=CANCEL,
        default_id=CANCEL,
    )


WITHOUT, ADD = "without", "add"


def without_evaluators_dialog(kind: str) -> ChoiceDialog:
    """Asked before storing a study with no raters (or judges): dismisses with "without" or "add"."""
    what = {"raters": ("No raters", ("The study names no human raters, so nobody can score it blind. "
                                     "Batch refuses such a file unless it says raters = [].")),
            "judges": ("No judges", ("The study names no LLM judge, so no verdicts and no judge agreement. "
                                     "Batch refuses such a file unless it says judges = []."))}[kind]
    return ChoiceDialog(what[0], f"{what[1]}\n\nStore it without {kind} anyway?",
                        [Choice(ADD, f"Add {kind}", "a", "primary"), Choice(WITHOUT, f"Store without {kind}", "w",
                                                                            "warning")],
                        cancel_id=ADD, default_id=ADD)


FREEZE = "freeze"


def freeze_summary(db, study_id: str) -> str:
    """What freezing `study_id` will hash, by kind: `3 rubrics: anticipation, …` (raises StudyError)."""
    from workbench.studies.freeze import current_artefacts
    from workbench.studies.lookup import load_study

    artefacts = current_artefacts(db, study_id, load_study(db, study_id)["definition"])
    kinds: dict[str, list[str]] = {}
    for a in artefacts:
        kinds.setdefault(a.kind, []).append(a.ref)
    lines = []
    for kind, refs in kinds.items():
        shown = ", ".join(refs[:4]) + (f", … ({len(refs) - 4} more)" if len(refs) > 4 else "")
        lines.append(f"· {len(refs)} {kind}{'s' if len(refs) != 1 else ''}: {shown}")
    return "\n".join(lines)


def freeze_dialog(db, study_id: str) -> ChoiceDialog:
    """Asks before freezing, showing what will be hashed: dismisses with "freeze" or "cancel"."""
    return ChoiceDialog(
        f"Freeze {study_id}?",
        f"The freeze hashes:\n{freeze_summary(db, study_id)}\n\n"
        "A frozen study cannot change: a changed definition needs a new study.",
        [Choice(FREEZE, "Freeze", "f", "warning"), Choice(CANCEL, "Cancel", "c")],
        cancel_id=CANCEL, default_id=CANCEL)
