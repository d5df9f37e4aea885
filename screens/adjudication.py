"""Hindsight's adjudication queue on one study: every item criterion whose raters disagree beyond the
pre-registered margin, and the act of recording a third rater's score or a consensus for one of them.

The queue comes from `workbench.scoring.adjudication.queue` and the record from `adjudicate`, the calls of
`workbench --batch hindsight adjudicate`. The raters' scores are not shown: a third rater scores blind.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from screens.ask_dialog import AskDialog
from screens.confirm import CANCEL, Choice, ChoiceDialog


class AdjudicationScreen(ModalScreen[None]):
    """The queue as a table; enter records an adjudication for the row under the cursor."""

    DEFAULT_CSS = """
    AdjudicationScreen { align: center middle; background: $background 60%; }
    AdjudicationScreen > Vertical { width: 95%; height: 85%; border: thick $accent; background: $surface;
                                    padding: 0 1; }
    AdjudicationScreen #adj-title { text-style: bold; }
    AdjudicationScreen #adj-table { height: 1fr; }
    AdjudicationScreen #adj-hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="adjudication.close", tooltip="Back to the studies"),
        Binding("enter", "adjudicate", "Adjudicate", id="adjudication.record",
                tooltip="Record a third rater's score or a consensus for the criterion under the cursor"),
    ]

    def __init__(self, study_id: str) -> None:
        super().__init__()
        self.study_id = study_id
        self.items: list = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Adjudication queue of {self.study_id}", id="adj-title", markup=False)
            yield DataTable(id="adj-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="adj-hint", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("item", "state", "criterion", "raters", "case")  # at 80 columns the case gives way
        self.reload()

    def reload(self) -> None:
        from workbench.scoring.adjudication import queue

        self.items = queue(self.app.db, self.study_id)
        table = self.query_one(DataTable)
        table.clear()
        for d in self.items:
            state = "open" if d.adjudicated is None else f"adjudicated {d.adjudicated:g}"
            table.add_row(d.item_id, state, f"{d.rubric_id}.{d.criterion}", ", ".join(d.raters), d.case_id)
        open_items = sum(1 for d in self.items if d.adjudicated is None)
        self.query_one("#adj-hint", Static).update(
            f"{len(self.items)} disagreement(s) beyond the margin, {open_items} open · enter records one · "
            "escape closes" if self.items else "No disagreement beyond the margin. escape closes")

    def action_close(self) -> None:
        self.dismiss(None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter on the table's row: the same as the screen's enter
        self.action_adjudicate()

    def action_adjudicate(self) -> None:
        table = self.query_one(DataTable)
        if self.items:
            self._record(self.items[table.cursor_row])

    @work(exclusive=True, group="adjudicate", exit_on_error=False)
    async def _record(self, item) -> None:
        from workbench.scoring.adjudication import AdjudicationError, adjudicate

        where = f"{item.item_id} {item.rubric_id}.{item.criterion}"
        method = await self.app.push_screen_wait(ChoiceDialog(
            f"Adjudicate {where}", "Who decides the value?",
            [Choice("third_rater", "A third rater", "t", "primary"), Choice("consensus", "Consensus", "n"),
             Choice(CANCEL, "Cancel", "c")], cancel_id=CANCEL, default_id="third_rater"))
        if method == CANCEL:
            return
        value = await self.app.push_screen_wait(AskDialog(f"The value for {where}", "A score on the criterion's "
                                                          "scale:", placeholder="e.g. 2"))
        if value is None:
            return
        try:
            number = float(value)
        except ValueError:
            self.notify(f"'{value}' is not a number: nothing recorded", title="Adjudication", severity="error")
            return
        by = await self.app.push_screen_wait(AskDialog(
            "Who", "The third rater, or the raters of the consensus (\"a + b\"):"))
        if by is None:
            return
        try:
            row = adjudicate(self.app.db, self.study_id, item_id=item.item_id, rubric_id=item.rubric_id,
                             criterion=item.criterion, value=number, method=method, adjudicator=by)
        except AdjudicationError as exc:
            self.notify(str(exc), title="Adjudication", severity="error", timeout=15)
            return
        self.notify(f"{where} = {row['value']:g} ({row['method']}, {row['adjudicator']})", title="Adjudication")
        self.reload()
