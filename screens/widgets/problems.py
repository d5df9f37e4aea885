"""A list of validation problems; choosing one asks the screen to focus its field."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.problems import Problem


class ProblemList(OptionList):
    """Shows `field: message` per problem, errors first in red, warnings in yellow."""

    @dataclass
    class FieldChosen(Message):
        field: str

    def show(self, problems: list[Problem]) -> None:
        self.clear_options()
        if not problems:
            self.add_option(Option(Text("✓ no problems", style="green"), id="ok", disabled=True))
            return
        for i, p in enumerate(problems):
            mark, style = ("✗", "red") if p.severity == "error" else ("!", "yellow")
            text = Text.assemble((f"{mark} {p.field}", f"bold {style}"), ": ", p.message)
            self.add_option(Option(text, id=f"p{i}:{p.field}"))
        self.highlighted = 0  # enter on a freshly focused list jumps to the first problem's field

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and ":" in event.option.id:
            self.post_message(self.FieldChosen(event.option.id.split(":", 1)[1]))
