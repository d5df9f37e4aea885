"""Opening vs closing stance per persona on each claim (−2…+2), for one debate."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from screens.faultline import render


class StanceScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="fl-stances-back", tooltip="Back to the debate")]

    def __init__(self, view: dict) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield Static(f"[b]Stances[/b] · {render.escape(self.view['topic']['title'])} · opening → closing",
                     id="fl-stances-title")
        with VerticalScroll():
            yield Static(render.stance_chart(self.view), id="fl-stance-chart")
        yield Footer()
