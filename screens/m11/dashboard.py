"""The M11 dashboard screen, standalone given (db, study_id): Overview, Likert, Samples, Confidence tabs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from screens.m11 import render
from screens.m11.browser import SampleBrowser


def load_document(db, study_id: str) -> dict:
    from workbench.protocols.m11.export import export_document

    return export_document(db, study_id)


class M11Dashboard(Screen):
    DEFAULT_CSS = """
    M11Dashboard #m11-title { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    M11Dashboard VerticalScroll > Static { padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="m11-back", tooltip="Back to the previous screen"),
        Binding("ctrl+r", "reload", "Reload", id="m11-reload", tooltip="Read the study's results again"),
    ]
    initial_tab = "m11-tab-overview"

    def __init__(self, db, study_id: str) -> None:
        super().__init__()
        self.db, self.study_id = db, study_id
        self.document = load_document(db, study_id)

    def compose(self) -> ComposeResult:
        yield Static(f"M11 · {self.study_id}", id="m11-title")
        with TabbedContent(initial=self.initial_tab):
            with TabPane("Overview", id="m11-tab-overview"):
                with VerticalScroll():
                    yield Static(render.overview(self.document), id="m11-overview")
            with TabPane("Likert", id="m11-tab-likert"):
                with VerticalScroll():
                    yield Static(render.likert(self.document), id="m11-likert")
            with TabPane("Samples", id="m11-tab-samples"):
                yield SampleBrowser(self.document["samples"], id="m11-browser")
            with TabPane("Confidence", id="m11-tab-confidence"):
                with VerticalScroll():
                    yield Static(render.confidence(self.document), id="m11-confidence")
        yield Footer()

    def action_reload(self) -> None:
        self.document = load_document(self.db, self.study_id)
        self.query_one("#m11-overview", Static).update(render.overview(self.document))
        self.query_one("#m11-likert", Static).update(render.likert(self.document))
        self.query_one("#m11-confidence", Static).update(render.confidence(self.document))
        browser = self.query_one(SampleBrowser)
        browser.samples = self.document["samples"]
        if browser.samples:
            browser.show(browser.samples[0]["id"])
