"""A modal that asks for one line of text (a path, a reason) and returns it, or None on escape."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class AskDialog(ModalScreen[str | None]):
    """Title, an explanation, one input; enter answers (an empty answer is refused when `required`)."""

    DEFAULT_CSS = """
    AskDialog {
        align: center middle;
        background: $background 60%;
    }
    AskDialog > Vertical {
        width: 76;
        max-width: 95%;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 1 2;
    }
    AskDialog .dialog-title { text-style: bold; margin-bottom: 1; }
    AskDialog .dialog-hint { color: $text-muted; margin-top: 1; }
    AskDialog .dialog-error { color: $error; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="ask.cancel", tooltip="Close the dialog without doing anything"),
    ]

    def __init__(self, title: str, message: str, *, value: str = "", placeholder: str = "",
                 required: bool = True) -> None:
        super().__init__()
        self.dialog_title, self.message = title, message
        self.value, self.placeholder, self.required = value, placeholder, required

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.dialog_title, classes="dialog-title", markup=False)
            yield Static(self.message, classes="dialog-message", markup=False)
            yield Input(self.value, placeholder=self.placeholder, id="ask-input")
            yield Static("", id="ask-error", classes="dialog-error", markup=False)
            yield Static("enter confirms · escape cancels", classes="dialog-hint", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        answer = event.value.strip()
        if self.required and not answer:
            self.query_one("#ask-error", Static).update("an answer is needed (escape cancels)")
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
