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


def palette_hint(sections) -> str:
    """The palette's prefixes, from the same table the commands use (screens/sections.py)."""
    from screens.sections import APP_PALETTE

    prefixes = [*APP_PALETTE, *(s.palette for s in sections if s.palette)]
    return (f"ctrl+p opens the command palette: type {', '.join(repr(p) for p in prefixes)} to find a command "
            "(each section's prefix is in the table above). Escape closes this help.")


PALETTE_HINT = palette_hint([])


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
        self.palette_hint = palette_hint or globals()["palette_hint"](sections)
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
        self._fill(self.app.size.width)
        self.query_one("#help-keys", DataTable).focus()

    def on_resize(self, event) -> None:
        self._fill(event.size.width)

    def _fill(self, screen_width: int) -> None:
        """Columns sized to the dialog, the last one wrapping (rows grow taller) so no text is cut."""
        from rich.text import Text

        inner = max(min(100, screen_width * 95 // 100) - 8, 40)  # border, padding, scrollbar, cell gaps
        keys = self.query_one("#help-keys", DataTable)
        keys.clear(columns=True)
        key_w = max([len("key"), *(len(k.key) for k in self.keys)])
        does = [k.description if k.enabled else f"{k.description} (not now)" for k in self.keys]
        does_w = min(max([len("does"), *(len(d) for d in does)]), 24)
        keys.add_column("key", width=key_w)
        keys.add_column("does", width=does_w)
        keys.add_column("details", width=max(inner - key_w - does_w - 4, 16))
        for k, d in zip(self.keys, does):
            keys.add_row(k.key, Text(d), Text(k.tooltip), height=None)
        if self.sections:
            sections = self.query_one("#help-sections", DataTable)
            sections.clear(columns=True)
            sections.add_column("key", width=3)
            sections.add_column("section", width=16)
            sections.add_column("palette", width=10)
            sections.add_column("for", width=max(inner - 3 - 16 - 10 - 6, 16))
            for s in self.sections:
                marker = " ◂ here" if s.id == self.current_section else ""
                sections.add_row(s.key, s.title + marker, s.palette, Text(s.description), height=None)

    def action_close(self) -> None:
        self.dismiss(None)
