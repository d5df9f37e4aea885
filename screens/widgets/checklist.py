"""Check boxes that read as checked or not without colour: `✓` and blank.

Textual draws the same `X` in both states and tells them apart by colour only,
which a monochrome terminal, a screen reader or a colour-blind user loses.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

CHECKED, UNCHECKED = "✓", " "


class CheckList(SelectionList):
    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except OptionDoesNotExist:  # past the last option: nothing to mark
            return strip
        if len(segments) < 2:
            return strip
        inner = segments[1]
        mark = CHECKED if selection.value in self.selected else UNCHECKED
        segments[1] = Segment(mark * len(inner.text), inner.style, inner.control)
        return Strip(segments, strip.cell_length)


class TickBox(Checkbox):
    """A Checkbox drawn `✓` when ticked and blank when not (the stock one draws `X` in both)."""

    @property
    def BUTTON_INNER(self) -> str:  # Textual's name for the glyph inside the box
        return CHECKED if self.value else UNCHECKED
