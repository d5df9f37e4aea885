"""A modal queue over one study: a title, a table of rows and a hint; enter acts on the row under the cursor,
escape closes. Hindsight's adjudication queue and topology review are two (each says what its rows are, how
a row reads and what enter does)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from screens.widgets.panel_modal import PanelModal


class QueueScreen(PanelModal):
    DEFAULT_CSS = """
    QueueScreen > Vertical { width: 95%; height: 85%; }
    QueueScreen .queue-title { text-style: bold; }
    QueueScreen .queue-table { height: 1fr; }
    QueueScreen .queue-hint { color: $text-muted; }
    """

    PREFIX = "queue"                 # the ids: <prefix>-title, <prefix>-table, <prefix>-hint
    TITLE = "{study}"                # the title, given the study
    COLUMNS: tuple[str, ...] = ()
    KEYS = "queue"                   # its bindings' ids: <keys>.close and <keys>.<the act's id>
    ACT = ("act", "Act", "Act on the row under the cursor")  # enter's binding: (id, label, tooltip)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        act_id, label, tooltip = cls.ACT
        cls.BINDINGS = [Binding("escape", "close", "Close", id=f"{cls.KEYS}.close", tooltip="Back to the studies"),
                        Binding("enter", "act", label, id=f"{cls.KEYS}.{act_id}", tooltip=tooltip)]

    def __init__(self, study_id: str) -> None:
        super().__init__()
        self.study_id = study_id
        self.rows: list = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.TITLE.format(study=self.study_id), id=f"{self.PREFIX}-title", classes="queue-title",
                         markup=False)
            yield DataTable(id=f"{self.PREFIX}-table", classes="queue-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id=f"{self.PREFIX}-hint", classes="queue-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*self.COLUMNS)
        self.reload()

    def reload(self) -> None:
        self.rows = self.load()
        table = self.query_one(DataTable)
        table.clear()
        for row in self.rows:
            table.add_row(*self.cells(row))
        self.query_one(f"#{self.PREFIX}-hint", Static).update(self.hint())

    def load(self) -> list:
        """The rows, read from the store."""
        raise NotImplementedError

    def cells(self, row) -> tuple:
        raise NotImplementedError

    def hint(self) -> str:
        return "enter acts on the row · escape closes"

    def act(self, row) -> None:
        """What enter does on `row`."""
        raise NotImplementedError

    def action_close(self) -> None:
        self.dismiss(None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter on the table's row: the same as the screen's enter
        self.action_act()

    def action_act(self) -> None:
        if self.rows:
            self.act(self.rows[self.query_one(DataTable).cursor_row])
