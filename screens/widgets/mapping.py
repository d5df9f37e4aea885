"""One from → to row of a transposition mapping, with a button to remove it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Input, Static


class MappingRow(Horizontal):
    DEFAULT_CSS = """
    MappingRow { height: auto; }
    MappingRow Input { width: 1fr; }
    MappingRow .map-arrow { width: 3; padding: 0 1; }
    MappingRow Button { min-width: 5; width: 5; }
    """

    @dataclass
    class RemoveRequested(Message):
        row: "MappingRow"

    def __init__(self, source: str = "", target: str = "") -> None:
        super().__init__(classes="mapping-row")
        self._source = source
        self._target = target

    def compose(self) -> ComposeResult:
        yield Input(self._source, placeholder="in the real case", classes="map-from", compact=True)
        yield Static("→", classes="map-arrow")
        yield Input(self._target, placeholder="in the scenario", classes="map-to", compact=True)
        yield Button("✕", classes="map-remove", tooltip="Remove this mapping row", compact=True)

    @property
    def pair(self) -> tuple[str, str]:
        inputs = self.query(Input)
        if len(inputs) < 2:  # not composed yet: what it was created with
            return self._source, self._target
        return self.query_one(".map-from", Input).value, self.query_one(".map-to", Input).value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RemoveRequested(self))
