"""The help screen (`?`): the keys of the screen it was opened from, and the app's sections (if it has any:
rater mode has none, and its help names nothing a rater cannot reach)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


@dataclass(frozen=True)
class KeyHelp:
    key: str
    description: str
    tooltip: str
    enabled: bool = True


def collect_key_help(screen) -> list[KeyHelp]:
    """The bindings active on `screen` (its focused widget's, the screen's and the app's) that a user needs to know."""
    app = screen.app
    seen: set[tuple[str, str]] = set()
    out: list[KeyHelp] = []
    for key, active in screen.active_bindings.items():
        binding = active.binding
        tooltip = active.tooltip or binding.tooltip
        # Hidden widget plumbing (cursor keys, copy) is left out; sections have their own table below.
        if binding.system or not (binding.show or tooltip) or binding.action.startswith("app.go_key"):
            continue
        if binding.action.startswith("go_key"):
            continue
        shown = app.get_key_display(binding)
        description = binding.description or binding.action
        if (description, binding.action) in seen:
            continue  # one row per action even when several keys share it
        seen.add((description, binding.action))
        out.append(KeyHelp(shown, description, tooltip, active.enabled))
    return out


PALETTE_HINT = "ctrl+p opens the command palette: type 'go:', 'cases:' … to find a command. Escape closes this help."


class HelpScreen(ModalScreen[None]):
    """Lists keys and sections; escape, `?` or `q` closes it."""

    BINDINGS = [
        Binding("escape,question_mark,q,f1", "close", "Close help", id="help.close",
                tooltip="Back to the screen you came from"),
    ]

    def __init__(self, screen_title: str, keys: list[KeyHelp], sections: list, current_section: str | None,
                 *, store_path: str = "", palette_hint: str | None = None) -> None:
        super().__init__()
        self.store_path = store_path
        self.palette_hint = palette_hint or PALETTE_HINT
        self.screen_title = screen_title
        self.keys = keys
        self.sections = sections
        self.current_section = current_section

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static("Help", id="help-title")
            yield Static(f"Keys on {self.screen_title}", classes="help-heading", markup=False)
            yield DataTable(id="help-keys", cursor_type="row", zebra_stripes=True)
            if self.sections:
                yield Static("Sections", classes="help-heading")
                yield DataTable(id="help-sections", cursor_type="row", zebra_stripes=True)
            yield Static(self.palette_hint, id="help-footnote", markup=False)
            if self.store_path:
                yield Static(f"Store: {self.store_path}", id="help-store", markup=False)

    def on_mount(self) -> None:
        keys = self.query_one("#help-keys", DataTable)
        keys.add_columns("key", "does", "details")
        for k in self.keys:
            keys.add_row(k.key, k.description if k.enabled else f"{k.description} (not now)", k.tooltip)
        if self.sections:
            sections = self.query_one("#help-sections", DataTable)
            sections.add_columns("key", "section", "for")
            for s in self.sections:
                marker = " ◂ here" if s.id == self.current_section else ""
                sections.add_row(s.key, s.title + marker, s.description)
        keys.focus()

    def action_close(self) -> None:
        self.dismiss(None)
