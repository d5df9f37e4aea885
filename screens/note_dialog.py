"""The justification-note dialog of the scoring screen: one line of text for one criterion.

Enter saves (the screen writes it through the scoring core at once), escape
leaves the stored note as it was. While the dialog is open its draft is
reachable through `draft`/`changed`, so quitting the app with a half-typed
note saves it instead of losing it (see ScoringScreen.resolve_unsaved_changes).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NoteDialog(ModalScreen[str | None]):
    """Dismisses with the note's text (enter) or None (escape)."""

    DEFAULT_CSS = """
    NoteDialog {
        align: center middle;
        background: $background 60%;
    }
    NoteDialog > Vertical {
        width: 90;
        max-width: 95%;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 1 2;
    }
    NoteDialog #note-title { text-style: bold; }
    NoteDialog #note-hint { color: $text-muted; margin-bottom: 1; }
    NoteDialog #note-keys { color: $text-muted; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="note.cancel",
                tooltip="Close without changing the stored note"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.note_title = title
        self.original = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.note_title, id="note-title", markup=False)
            yield Static("One sentence that quotes the response and says why it earns this score.",
                         id="note-hint", markup=False)
            yield Input(value=self.original, id="note-input", placeholder="justification…")
            yield Static("enter saves · escape cancels · an empty note clears it", id="note-keys", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @property
    def draft(self) -> str:
        return self.query_one(Input).value

    @property
    def changed(self) -> bool:
        return self.is_mounted and self.draft.strip() != self.original.strip()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
