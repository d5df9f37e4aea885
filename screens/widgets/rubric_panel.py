"""The rubric half of the scoring screen: every criterion with the rater's scores, and the focused
criterion's anchors.

`CriteriaGrid` lists the criteria of every rubric the item is scored on
(rows, grouped by rubric) against the responses on screen (columns), with
the rater's own current values; the focused cell is highlighted. `AnchorGuide`
shows what a number key means for the focused criterion: its question, each
anchor, the rubric's procedure when it has one (Epistemic Humility's two
steps), and the rater's note. Both render from the core's rater views only.
"""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from workbench.scoring import ItemView
from workbench.scoring.views import RubricView
from workbench.scoring.session import Cell, cells_of, value_of

UNSCORED = "·"
NOTE_MARK = "✎"


def short_label(view: ItemView) -> str:
    """"Response Alpha" -> "Alpha" (column headings)."""
    return view.label.removeprefix("Response ").strip()


NAME_WIDTH = 36
VALUE_WIDTH = 7
COMPACT_ROWS = 5  # the compact grid's criterion rows before the panel has a size (80x24: it has six lines)


class CriteriaGrid(Static):
    """Rows: criteria by rubric; columns: the responses shown; cells: the rater's scores."""

    DEFAULT_CSS = """
    CriteriaGrid {
        width: auto;
        height: auto;
        padding: 0 1 0 0;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self._shown: Text | None = None

    def show(self, views: list[ItemView], focused_view: int, focused_cell: int, name_width: int = NAME_WIDTH,
             rows: int | None = None) -> None:
        text = self.render_grid(views, focused_view, focused_cell, name_width, rows)
        if text != self._shown:  # an unchanged grid costs no re-layout
            self._shown = text
            self.update(text)

    @staticmethod
    def render_grid(views: list[ItemView], focused_view: int, focused_cell: int, name_width: int = NAME_WIDTH,
                    rows: int | None = None) -> Text:
        """Plain fixed-width columns (cheap to draw on every key). `rows`: the compact grid (80x24): that many
        criterion rows around the focused one under the column heads, each naming its rubric, with no rubric
        lines between them."""
        cells = cells_of(views[0]) if views else []
        out = Text(no_wrap=True, overflow="ellipsis")
        head = "criterion" if rows is None or not cells else f"criterion {focused_cell + 1} of {len(cells)}"
        out.append("  " + head.ljust(name_width) + "range ", style="dim")
        for k, view in enumerate(views):
            out.append(short_label(view).center(VALUE_WIDTH), style="bold reverse" if k == focused_view else "bold")
        if not views:
            return out
        first = 0 if rows is None else max(0, min(focused_cell - rows // 2, len(cells) - rows))
        window = range(first, len(cells) if rows is None else min(len(cells), first + rows))
        per_rubric = Counter(cell.rubric_id for cell in cells)
        current_rubric = None
        for index in window:
            cell = cells[index]
            if rows is None and cell.rubric_id != current_rubric:
                current_rubric = cell.rubric_id
                out.append("\n  ")
                out.append(_fit(cell.rubric_name, name_width + 6), style="bold underline")
            focused_row = index == focused_cell
            out.append("\n")
            out.append("▸ " if focused_row else "  ", style="bold")
            if rows is None:
                label = "  " + cell.criterion_name
            elif per_rubric[cell.rubric_id] == 1:  # its rubric's one criterion: the rubric needs no naming
                label = cell.criterion_name
            else:  # the rubric's name gives way first: the criterion is what is scored
                room = max(6, name_width - len(cell.criterion_name) - 3)
                label = f"{_fit(cell.rubric_name, room)} › {cell.criterion_name}"
            name = _fit(label, name_width).ljust(name_width)
            out.append(name, style="bold" if focused_row else "")
            out.append(f"{cell.min}–{cell.max}".center(5) + " ", style="dim")
            for k, view in enumerate(views):
                value = value_of(view, cell)
                shown = UNSCORED if value is None else str(value)
                shown += NOTE_MARK if cell.note_key in view.notes else ""
                if focused_row and k == focused_view:
                    style = "bold reverse"
                else:
                    style = "bold" if value is not None else "dim"
                left = (VALUE_WIDTH - len(shown)) // 2
                out.append(" " * left)
                out.append(shown, style=style)
                out.append(" " * (VALUE_WIDTH - len(shown) - left))
        return out


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class AnchorGuide(VerticalScroll, can_focus=False):
    """The focused criterion: question, anchors (the rater's current value marked), procedure, note."""

    DEFAULT_CSS = """
    AnchorGuide {
        width: 1fr;
        height: 1fr;
        padding: 0 1;
        border-left: vkey $panel-lighten-2;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown: Text | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="anchor-text", markup=False)

    def show(self, view: ItemView | None, cell: Cell | None) -> None:
        text = self.render_guide(view, cell)
        if text != self._shown:
            self._shown = text
            self.query_one("#anchor-text", Static).update(text)

    @staticmethod
    def render_guide(view: ItemView | None, cell: Cell | None) -> Text:
        if view is None or cell is None:
            return Text("")
        rubric = next(r for r in view.rubrics if r.id == cell.rubric_id)
        criterion = next(c for c in rubric.criteria if c.id == cell.criterion_id)
        value = value_of(view, cell)
        lines: list[Text] = [Text.assemble((f"{rubric.name} › {criterion.name}", "bold"),
                                           (f"  {criterion.min}–{criterion.max} · {view.label}", "dim"))]
        lines += procedure_lines(rubric)
        lines.append(Text(criterion.question, style="italic"))
        for anchor in criterion.anchors:
            chosen = anchor.score == value
            lines.append(Text.assemble(("▶ " if chosen else "  ", "bold"),
                                       (f"{anchor.score}", "bold reverse" if chosen else "bold"),
                                       (f" {anchor.label}", "bold"), f" — {anchor.text}"))
        note = view.notes.get(cell.note_key)
        if note:
            lines.append(Text.assemble(("Your note: ", "bold"), note))
        else:
            lines.append(Text("j writes a justification note for this criterion", style="dim"))
        return Text("\n").join(lines)


def procedure_lines(rubric: RubricView) -> list[Text]:
    """A rubric's ordered procedure ("Step 1 …, Step 2 …"), shown above its anchors."""
    if not rubric.procedure:
        return []
    lines = [Text("Procedure, in order:", style="bold")]
    for n, step in enumerate(rubric.procedure, 1):
        lines.append(Text.assemble((f" Step {n}. ", "bold"), step))
    return lines


def grid_line(view: ItemView, focused_cell: int) -> int:
    """The line of the criteria grid holding the focused criterion (the header, then each rubric's name line
    above its criteria)."""
    line, current = 0, None
    for index, cell in enumerate(cells_of(view)):
        if cell.rubric_id != current:
            current, line = cell.rubric_id, line + 1
        line += 1
        if index == focused_cell:
            break
    return line


class RubricPanel(Horizontal):
    """The criteria grid beside the focused criterion's anchors."""

    DEFAULT_CSS = """
    RubricPanel {
        height: 14;
        border-top: solid $panel-lighten-2;
    }
    """

    _shown_with: tuple | None = None  # what `show` was last given: drawn again at the panel's new size

    def on_resize(self) -> None:
        if self._shown_with is not None:
            views, focused_view, focused_cell, shown, compact = self._shown_with
            self.show(views, focused_view, focused_cell, shown, compact=compact)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="criteria-scroll", can_focus=False):
            yield CriteriaGrid(id="criteria-grid")
        yield AnchorGuide(id="anchor-guide")

    def _keep_in_view(self, views: list[ItemView], focused_cell: int) -> None:
        """A grid taller than the panel (at 80x24) scrolls so the focused criterion stays in sight."""
        scroll = self.query_one("#criteria-scroll", VerticalScroll)
        if views and scroll.size.height:
            line = grid_line(views[0], focused_cell)
            if not scroll.scroll_y <= line < scroll.scroll_y + scroll.size.height:
                scroll.scroll_to(y=max(0, line - scroll.size.height + 2), animate=False)

    def show(self, views: list[ItemView], focused_view: int, focused_cell: int, shown: list[int], *,
             compact: bool = False) -> None:
        """`shown`: indexes of the responses on screen (one in single mode, else all). `compact` (80x24, the
        anchors folded away): the grid fills the panel's width and shows the rows around the focused
        criterion that fit under its heads."""
        self._shown_with = (views, focused_view, focused_cell, shown, compact)
        grid_views = [views[k] for k in shown]
        grid_focus = shown.index(focused_view) if focused_view in shown else 0
        width = self.size.width
        if compact:  # the whole width: the rubric's name beside each criterion's
            name_width = max(18, min(2 * NAME_WIDTH, width - 8 - VALUE_WIDTH * len(grid_views) - 2)) if width \
                else NAME_WIDTH
            rows = max(1, self.size.height - 1) if self.size.height else COMPACT_ROWS
        else:  # criterion names get what half the panel leaves after the range and score columns
            name_width = max(18, min(NAME_WIDTH, width // 2 - 8 - VALUE_WIDTH * len(grid_views))) if width \
                else NAME_WIDTH
            rows = None
        self.query_one(CriteriaGrid).show(grid_views, grid_focus, focused_cell, name_width, rows)
        if rows is None:
            self._keep_in_view(grid_views, focused_cell)
        view = views[focused_view] if views else None
        cells = cells_of(view) if view else []
        self.query_one(AnchorGuide).show(view, cells[focused_cell] if cells else None)
