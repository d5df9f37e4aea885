"""One tab of the Metrics section, built from what the study's protocol names (`StudyProtocol.metrics_tabs`,
laid out by `workbench.exports.metrics_files.screen_tabs`): its plots, then its prose and tables in the
report's order. Each table is a `MetricPanel`: its title, the cells in a DataTable (enter on a cell with
items behind it drills down), its notes."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Select, Static, TabPane

from screens.metrics_plots import MetricPlot
from workbench.safe_text import for_terminal

PANEL_CHROME = 6  # the panel's margins and the scroll bar beside it
CELL_PADDING = 2  # a DataTable cell's padding, left and right
LABEL_MIN = 14    # the label column is narrower only when its labels are


def column_widths(table, width: int) -> list[int] | None:
    """Each column's width so the whole table fits `width`, or None when it fits as it is. The first (label)
    column gives way first, then the others in proportion to what they lose; none is narrower than its
    header or its longest word, so a cell wraps between words and nothing is cut (issue 43: "(Chain-of-thou /
    ght)" and "0.21 (n too small" at 140 columns). Where whole headers alone are too wide, a header wraps between
    its words too (Topology's last columns were cut at 80x24); where words alone are still too wide, a label's long
    word folds (M11's sample ids pushed its last column off at 80x24); a table still wider keeps its words."""
    cells = [[table.columns[k], *(str(r[k]) for r in table.rows if k < len(r))] for k in range(len(table.columns))]
    if not cells:
        return None
    natural = [max(len(line) for c in col for line in c.splitlines() or [""]) for col in cells]
    # a header stays whole on one line where it can; a cell wraps between its words
    floor = [max([len(col[0]), *(len(word) for c in col for word in c.split())]) for col in cells]
    floor[0] = min(natural[0], max(floor[0], LABEL_MIN))
    room = width - CELL_PADDING * len(natural)
    if sum(natural) <= room:
        return None
    if sum(floor) > room:  # whole headers alone overrun (Topology's at 80x24): headers wrap too (`header_lines`)
        floor = [max(len(word) for c in col for word in c.split() or [""]) for col in cells]
        floor[0] = min(natural[0], max(floor[0], LABEL_MIN))
    if sum(floor) > room and floor[0] > LABEL_MIN:  # a label's one long word (an M11 sample id) folds: the
        floor[0] = LABEL_MIN                           # numbers to its right stay whole on screen
    if floor[0] + sum(natural[1:]) <= room:  # the label column alone gives way
        return [room - sum(natural[1:]), *natural[1:]]
    give = [n - f for n, f in zip(natural[1:], floor[1:])]
    spare = max(0, room - sum(floor))
    return [floor[0], *(f + (g * spare // sum(give) if sum(give) else 0) for f, g in zip(floor[1:], give))]


def header_lines(columns: list[str], widths: list[int] | None) -> list[list[str]]:
    """Each column's header as the lines it is drawn in: one, unless its column is narrower (then between words)."""
    if widths is None:
        return [[name] for name in columns]
    return [textwrap.wrap(name, w) or [""] if len(name) > w else [name] for name, w in zip(columns, widths)]


class MetricPanel(Vertical):
    """One table: its title, the cells in a DataTable, its notes."""

    def __init__(self, table) -> None:
        super().__init__(id=f"panel-{table.id}", classes="metric-panel")
        self.table = table

    def compose(self) -> ComposeResult:
        yield Static(self.table.title, classes="panel-title", markup=False)
        yield DataTable(id=f"table-{self.table.id}", classes="metric-table", cursor_type="cell",
                        zebra_stripes=True)
        if self.table.notes:
            yield Static("\n".join(f"* {n}" for n in self.table.notes), classes="panel-notes", markup=False)

    def on_mount(self) -> None:
        self._filled_for = 0
        self._fill(self.app.size.width - PANEL_CHROME)  # a first guess; on_resize refits to the real width

    def on_resize(self) -> None:
        if self.size.width and self.size.width != self._filled_for:
            self._fill(self.size.width)

    def _fill(self, width: int) -> None:
        """Fill the table so every column fits `width` (`column_widths`): the label column gives way and
        wraps first, so the numbers, targets and verdicts to its right stay whole where they can (issue 24)."""
        self._filled_for = width
        dt = self.query_one(DataTable)
        cursor = dt.cursor_coordinate
        dt.clear(columns=True)
        widths = column_widths(self.table, width)
        heads = header_lines(self.table.columns, widths)
        dt.header_height = max(len(head) for head in heads) if heads else 1
        for k, head in enumerate(heads):
            label = head[0] if len(head) == 1 else Text("\n".join(head))
            dt.add_column(label, width=widths[k] if widths else None)
        for row in self.table.rows:  # cells may quote items and replies: plain text, never markup
            cells = [Text(for_terminal(cell)) if isinstance(cell, str) else cell for cell in row]
            dt.add_row(*(cells + [""] * (len(self.table.columns) - len(cells)))[:len(self.table.columns)],
                       height=None if widths else 1)
        if self.table.rows:
            dt.cursor_coordinate = cursor


def prose(markdown: str) -> Text:
    """A report's prose as the terminal shows it: headings bold, emphasis marks dropped, the words as they are."""
    text = Text()
    for k, line in enumerate(for_terminal(markdown).splitlines()):
        if k:
            text.append("\n")
        if line.startswith("#"):
            text.append(line.lstrip("#").strip(), style="bold")
        else:
            text.append(line.replace("**", ""))
    return text


def tab_pane(screen_tab, rendered) -> TabPane:
    """The pane of one tab: a row of its plots (the heatmap with its run picker), then its prose and tables.
    `rendered(table)`: the table as a RenderedTable (a drill-down reads its references)."""
    tab = screen_tab.tab
    children = []
    if "heatmap" in tab.plots:
        children.append(Select([], prompt="run for the similarity heatmap", id="dq-run", compact=True))
    if tab.plots:
        children.append(Horizontal(*(Vertical(MetricPlot(id=f"plot-{kind}", classes="metric-plot"),
                                              Static("", id=f"plot-{kind}-caption", classes="plot-caption",
                                                     markup=False), classes="plot-box")
                                     for kind in tab.plots), classes="plot-row"))
    for block in screen_tab.blocks:
        if isinstance(block, str):
            children.append(Static(prose(block), classes="metric-prose"))
        else:
            children.append(MetricPanel(rendered(block)))
    return TabPane(tab.title, VerticalScroll(*children, id=f"scroll-{tab.id}", classes="metric-scroll"),
                   id=f"tab-{tab.id}")
