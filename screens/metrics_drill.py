"""The drill-down screen: the items, scores and verdicts behind one number of the Metrics screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from screens.widgets.footer import KeyFooter
from workbench.metrics.render import RenderedTable


class DrillDownScreen(ModalScreen[None]):
    """A table of what produced a number; escape goes back to the panel."""

    CSS_PATH = "styles/metrics.tcss"
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="metrics.drill.back", tooltip="Back to the metric panels"),
    ]

    def __init__(self, table: RenderedTable, origin: str = "") -> None:
        super().__init__()
        self.table = table
        self.origin = origin

    def compose(self) -> ComposeResult:
        with Vertical(id="drill-box"):
            yield Static(self.table.title, id="drill-title", markup=False)
            if self.origin:
                yield Static(f"behind: {self.origin}", id="drill-origin", markup=False)
            yield DataTable(id="drill-table", cursor_type="row", zebra_stripes=True)
            yield Static("\n".join(f"* {n}" for n in self.table.notes), id="drill-notes", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        dt = self.query_one("#drill-table", DataTable)
        dt.add_columns(*self.table.columns)
        for row in self.table.rows:
            dt.add_row(*row)
        if not self.table.rows:
            self.query_one("#drill-notes", Static).update("No items behind this number.")
        dt.focus()

    def action_close(self) -> None:
        self.dismiss(None)
