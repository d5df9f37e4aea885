"""The chrome every section screen shares: header, section bar, footer.

A section screen may subclass `SectionScreen` and implement `compose_section()`;
any plain `Screen` also works as a section, it just lacks the bar.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Header, Static

from screens.widgets.footer import KeyFooter


def chosen_study(app) -> str | None:
    """The study last chosen in the Studies section, which Runs and Metrics follow (None: none yet)."""
    return getattr(app, "chosen_study", None)


class SectionBar(Static):
    """One line naming the sections with their keys; the current one is highlighted, each is clickable."""

    DEFAULT_CSS = """
    SectionBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    LEAVE_HINT = ("[b]Scoring desk[/b] · 0-9 score · [@click=screen.leave_desk][b]Esc[/b] leave the desk[/] "
                  "(a note being typed is saved)")  # whole at 80 columns

    def __init__(self, current: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.current = current
        self.leave_hint = False

    def on_mount(self) -> None:
        self.update(self.render_bar())

    def show_leave_hint(self, on: bool) -> None:
        """A screen that takes the number keys (the scoring desk) shows how to leave it instead of the
        section keys, which do not work there."""
        self.leave_hint = on
        self.update(self.render_bar())

    def render_bar(self) -> Content:
        from screens.sections import SECTIONS

        if self.leave_hint:
            return Content.from_markup(self.LEAVE_HINT)

        sections = getattr(self.app, "sections", SECTIONS)
        parts = []
        for s in sections:
            label = f"[@click=app.go('{s.id}')] [b]{s.key}[/b] {s.title} [/]"
            parts.append(f"[reverse]{label}[/]" if s.id == self.current else label)
        return Content.from_markup(" ".join(parts))


class SectionScreen(Screen):
    """A section of the app: subclasses set SECTION_ID and implement `compose_section()`."""

    SECTION_ID: ClassVar[str] = ""
    # "-narrow" below 100 columns: each screen's .tcss lays itself out for 80x24 under it (issue 15)
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield SectionBar(self.SECTION_ID, id="section-bar")
        yield from self.compose_section()
        yield KeyFooter()

    def compose_section(self) -> ComposeResult:
        yield from ()


class SectionUnavailable(SectionScreen):
    """Stands in for a section whose screen could not be built, and says why."""

    def __init__(self, section_id: str, title: str, error: BaseException) -> None:
        self.SECTION_ID = section_id
        super().__init__()
        self.sub_title = title
        self.error = error

    def compose_section(self) -> ComposeResult:
        yield Static(f"The {self.sub_title} section could not be opened:\n\n"
                     f"{type(self.error).__name__}: {self.error}", id="section-error", markup=False)
