"""Reading panes of the scoring screen: one anonymized response, and the case it answers.

Both only ever receive what the scoring core's rater views carry (the
scrubbed response, its "Response Alpha" label, the case's scenario and outcome
record); they render text verbatim, without markup, so nothing in a response
can restyle or hide part of the screen. They never take focus: the scoring
screen's keys drive them (page up / page down scroll the focused response).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.scoring import ItemView
from workbench.safe_text import for_terminal


class ReadingPane(VerticalScroll, can_focus=False):
    """A titled pane of the desk's reading row (a response, the case), side by side with the others."""

    DEFAULT_CSS = """
    ReadingPane {
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
        width: 1fr;
    }
    """


class ResponsePanel(ReadingPane):
    """One response of the pair, titled with its label; the focused one is highlighted."""

    DEFAULT_CSS = """
    ResponsePanel.-focused {
        border: round $accent;
        border-title-color: $accent;
        border-title-style: bold;
    }
    ResponsePanel .response-text {
        width: 1fr;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.item_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="response-text", markup=False)

    def show(self, view: ItemView, *, focused: bool, scored: int, total: int) -> None:
        """Show `view`; a new item starts at the top, the same item keeps its scroll position."""
        if view.item_id != self.item_id:
            self.item_id = view.item_id
            self.query_one(".response-text", Static).update(Text(for_terminal(view.response)))
            self.scroll_home(animate=False)
        self.border_title = view.label
        if view.complete:
            state = "scored ✓"
        elif view.skipped:
            state = f"skipped · {scored}/{total} scored"
        else:
            state = f"{scored}/{total} scored"
        self.border_subtitle = state
        self.set_class(focused, "-focused")


class CasePanel(ReadingPane):
    """The scenario as the architectures saw it and, for the hindsight protocol, the outcome record."""

    DEFAULT_CSS = """
    CasePanel .case-heading {
        text-style: bold;
        color: $accent;
    }
    CasePanel .case-outcome-heading {
        margin-top: 1;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shown: tuple[str, str, str | None, str | None] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Scenario", classes="case-heading", markup=False)
        yield Static("", id="case-scenario", markup=False)
        yield Static("Outcome (what actually happened)", classes="case-heading case-outcome-heading",
                     id="case-outcome-heading", markup=False)
        yield Static("", id="case-outcome", markup=False)
        yield Static("Transposition (scenario -> real case)", classes="case-heading case-outcome-heading",
                     id="case-transposition-heading", markup=False)
        yield Static("", id="case-transposition", markup=False)

    def show(self, view: ItemView) -> None:
        shown = (view.case_title, view.scenario, view.outcome, view.transposition)
        if shown == self.shown:
            return
        self.shown = shown
        self.border_title = view.case_title or "Case"
        self.query_one("#case-scenario", Static).update(Text(for_terminal(view.scenario.strip())))
        has_outcome = view.outcome is not None
        self.query_one("#case-outcome-heading").display = has_outcome
        outcome = self.query_one("#case-outcome", Static)
        outcome.display = has_outcome
        outcome.update(Text(for_terminal((view.outcome or "").strip())))
        # a transposed case's mapping, for reading the outcome back onto the scenario (the same for every item)
        mapped = view.transposition is not None
        self.query_one("#case-transposition-heading").display = mapped
        mapping = self.query_one("#case-transposition", Static)
        mapping.display = mapped
        mapping.update(Text(for_terminal((view.transposition or "").strip())))
        self.scroll_home(animate=False)
