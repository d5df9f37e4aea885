"""The sample browser: samples on the left; input / module output / expected side by side and the full
debate (weaknesses coloured by severity, rebuttals, verdicts) on the right."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from screens.m11 import render


class SampleBrowser(Horizontal):
    DEFAULT_CSS = """
    SampleBrowser { height: 1fr; }
    SampleBrowser > OptionList { width: 30; height: 1fr; }
    SampleBrowser #m11-detail { width: 1fr; height: 1fr; padding: 0 1; }
    SampleBrowser #m11-io { height: auto; }
    SampleBrowser #m11-io > Static { width: 1fr; height: auto; padding-right: 1; }
    SampleBrowser #m11-debate { height: auto; margin-top: 1; }
    """

    def __init__(self, samples: list[dict], **kw) -> None:
        super().__init__(**kw)
        self.samples = samples

    def compose(self) -> ComposeResult:
        yield OptionList(*[Option(render.sample_label(s), id=s["id"]) for s in self.samples], id="m11-samples")
        with VerticalScroll(id="m11-detail"):
            with Horizontal(id="m11-io"):
                yield Static(id="m11-input")
                yield Static(id="m11-output")
                yield Static(id="m11-expected")
            yield Static("Choose a sample on the left." if self.samples else "No samples in this study.",
                         id="m11-debate")

    def on_mount(self) -> None:
        if self.samples:
            self.show(self.samples[0]["id"])

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.show(event.option.id)

    def show(self, sample_id: str) -> None:
        sample = next((s for s in self.samples if s["id"] == sample_id), None)
        if sample is None:
            return
        given, output, expected = render.sample_io(sample)
        self.query_one("#m11-input", Static).update(given)
        self.query_one("#m11-output", Static).update(output)
        self.query_one("#m11-expected", Static).update(expected)
        self.query_one("#m11-debate", Static).update(render.debate(sample))
        self.query_one("#m11-detail", VerticalScroll).scroll_home(animate=False)


__all__ = ["SampleBrowser", "Vertical"]
