"""Parts of the scoring screen: who is scoring (study, then rater), the full rubric text, and the
screen's command-palette entries.

`IdentityPicker` offers the frozen studies that name raters in the sections' study
picker and, for the one chosen, only that study's raters; enter on a rater posts `Chosen`.
`RubricGuide` is a modal with the whole rubric of the focused criterion:
instructions, procedure and every criterion's anchors. `ScoringCommands`
offers "score: …" commands while the Scoring screen is shown.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from functools import partial

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Select, Static
from textual.widgets.option_list import Option

from screens.commands import ListProvider
from screens.widgets.study_picker import StudyPicker
from screens.widgets.rubric_panel import procedure_lines
from workbench.scoring.views import RubricView
from workbench.scoring.session import StudyChoice, scorable_studies


class IdentityPicker(Vertical):
    """Pick the study (the sections' one StudyPicker), then your rater name. Enter on a name opens your next
    unscored item."""

    DEFAULT_CSS = """
    IdentityPicker {
        padding: 1 2;
    }
    IdentityPicker #pick-title { text-style: bold; color: $accent; }
    IdentityPicker #pick-intro { color: $text-muted; margin-bottom: 1; }
    IdentityPicker .pick-row { height: auto; margin-bottom: 1; }
    IdentityPicker .pick-label { width: 7; text-style: bold; }
    IdentityPicker #rater-list { width: 40; height: auto; max-height: 18; }
    IdentityPicker #pick-message { margin-top: 1; }
    """

    @dataclass
    class Chosen(Message):
        study_id: str
        rater: str

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.studies: list[StudyChoice] = []

    def compose(self) -> ComposeResult:
        yield Static("Who is scoring?", id="pick-title")
        yield Static("Pick the study, then your name. You will see only your own scores; the responses are "
                     "anonymized.", id="pick-intro", markup=False)
        with Horizontal(classes="pick-row"):
            yield Static("Study", classes="pick-label")
            yield StudyPicker(tooltip="The study to score")
        with Horizontal(classes="pick-row"):
            yield Static("Rater", classes="pick-label")
            yield OptionList(id="rater-list", markup=False)
        yield Static("", id="pick-message", markup=False)

    def load(self, studies: list[StudyChoice], listed: list[dict]) -> None:
        """(Re)fill the picker with the scorable `studies` (labelled and ordered as `listed`, the sections'
        study list, says them), keeping the study shown if it is still there."""
        picker = self.query_one(StudyPicker)
        self.studies = studies
        scorable = {s.id: s for s in studies}
        rows = [{**row, "status_text": row["status_text"] + (", scoring closed" if scorable[row["id"]].closed
                                                             else "")}
                for row in listed if row["id"] in scorable]
        shown = picker.value if isinstance(picker.value, str) else None
        study = self._study(picker.show(rows, shown))
        if study is None:
            self.query_one("#rater-list", OptionList).clear_options()
            self.say("No study to score yet: a study needs to be frozen, name its raters and have run.")
            return
        self._fill_raters(study)
        if len(studies) == 1:
            self.query_one("#rater-list", OptionList).focus()
        else:
            picker.focus()

    def focus_studies(self) -> None:
        self.query_one(StudyPicker).focus()

    def say(self, message: str, *, error: bool = False) -> None:
        self.query_one("#pick-message", Static).update(Text(message, style="bold red" if error else ""))

    def _study(self, study_id: str | None) -> StudyChoice | None:
        return next((s for s in self.studies if s.id == study_id), None)

    def _fill_raters(self, study: StudyChoice) -> None:
        rater_list = self.query_one("#rater-list", OptionList)
        rater_list.clear_options()
        rater_list.add_options([Option(name, id=name) for name in study.raters])
        rater_list.highlighted = 0 if study.raters else None

    @on(Select.Changed, "#study-select")
    def _study_chosen(self, event: Select.Changed) -> None:
        event.stop()
        study = self._study(StudyPicker.study_of(event.value))
        if study is not None:
            self._fill_raters(study)
            self.query_one("#rater-list", OptionList).focus()

    @on(OptionList.OptionSelected, "#rater-list")
    def _rater_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        study_id = StudyPicker.study_of(self.query_one(StudyPicker).value)
        if study_id is None or event.option.id is None:
            return
        self.post_message(self.Chosen(study_id, event.option.id))


_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")


def reflowed(text: str) -> str:
    """A rubric file's text with its hard line breaks inside paragraphs taken out, so the guide wraps it to its
    own width (a file wrapped at 80 columns, wrapped again at 74, comes out ragged). Blank lines and list
    items keep their breaks."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for line in block.splitlines():
            if lines and not _LIST_ITEM.match(line):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


class RubricGuide(ModalScreen[None]):
    """The whole rubric: instructions, procedure, every criterion with its anchors."""

    DEFAULT_CSS = """
    RubricGuide {
        align: center middle;
        background: $background 60%;
    }
    RubricGuide #guide-body {
        width: 110;
        max-width: 95%;
        height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape,r,q", "close", "Close", id="rubric_guide.close", tooltip="Back to scoring"),
    ]

    def __init__(self, rubric: RubricView, criterion_id: str | None = None) -> None:
        """`criterion_id`: the focused criterion, scrolled into view (at 80x24 this guide is where its anchors
        are read: the desk folds them away)."""
        super().__init__()
        self.rubric = rubric
        self.criterion_id = criterion_id

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="guide-body"):
            yield Static(self.render_head(self.rubric), id="guide-text")
            for k, criterion in enumerate(self.rubric.criteria):
                yield Static(self.render_criterion(criterion), id=f"guide-criterion-{k}")
            yield Static(Text("escape closes", style="dim"))

    def on_mount(self) -> None:
        body = self.query_one("#guide-body")
        body.focus()
        k = next((k for k, c in enumerate(self.rubric.criteria) if c.id == self.criterion_id), None)
        if k:
            self.call_after_refresh(body.scroll_to_widget, self.query_one(f"#guide-criterion-{k}"), animate=False,
                                    top=True)

    @staticmethod
    def render_head(rubric: RubricView) -> Group:
        parts: list = [Text(rubric.name, style="bold underline"), Text("")]
        parts += procedure_lines(rubric)
        if rubric.procedure:
            parts.append(Text(""))
        if rubric.instructions.strip():
            parts.append(Text(reflowed(rubric.instructions)))
            parts.append(Text(""))
        return Group(*parts)

    @staticmethod
    def render_criterion(criterion) -> Group:
        parts: list = [Text(f"{criterion.name}  ({criterion.min}–{criterion.max})", style="bold"),
                       Text(criterion.question, style="italic")]
        for anchor in criterion.anchors:
            parts.append(Text.assemble((f"  {anchor.score} {anchor.label}", "bold"), f" — {anchor.text}"))
        parts.append(Text(""))
        return Group(*parts)

    def action_close(self) -> None:
        self.dismiss(None)


class ScoringCommands(ListProvider):
    """`score: open <study> as <rater>` for every rater of every scorable study, and the desk's keys."""

    async def startup(self) -> None:
        self.studies = scorable_studies(self.app.db)

    def commands(self):
        screen = self.screen
        out = []
        for study in getattr(self, "studies", []):
            for rater in study.raters:
                out.append((f"score: open {study.id} as {rater}", f"score {study.id} as {rater}",
                            partial(screen.open_session, study.id, rater)))
        if getattr(screen, "session", None) is not None:
            out += [
                ("score: next unscored item", "g · go to your next unscored item", screen.action_next_unscored),
                ("score: one response or both", "v · show only the focused response, or both",
                 screen.action_toggle_single),
                ("score: show or hide the case", "c · the scenario and outcome record", screen.action_toggle_context),
                ("score: whole rubric", "r · instructions and every anchor of the focused criterion's rubric",
                 screen.action_rubric_guide),
                ("score: switch rater", "i · back to choosing the study and rater", screen.action_switch_rater),
            ]
        return out
