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


class FormProblems:
    """What a form with a problem list shares (the case editor, the study form): show problems and
    mark their fields, jump to a chosen problem's field, f2 to the list. A form maps a problem's
    field to its widget (`problem_widget`) and names the container that scrolls (`FORM_SCROLL`)."""

    FORM_SCROLL = ""
    problems: list[Problem]

    def problem_widget(self, field: str):
        raise NotImplementedError

    def show_problems(self, problems: list[Problem]) -> None:
        self.problems = problems
        self.query_one(ProblemList).show(problems)
        marked = [w for p in problems if p.severity == "error" for w in [self.problem_widget(p.field)] if w]
        for widget in self.query(".has-problem"):
            if widget not in marked:
                widget.remove_class("has-problem")
        for widget in marked:
            widget.add_class("has-problem")

    def on_problem_list_field_chosen(self, event: ProblemList.FieldChosen) -> None:
        event.stop()
        widget = self.problem_widget(event.field)
        if widget is not None:
            widget.focus()
            self.query_one(self.FORM_SCROLL).scroll_to_widget(widget)

    def action_focus_problems(self) -> None:
        self.query_one(ProblemList).focus()
