"""Hindsight's topology review on one unblinded study: each case and condition's Basin / Ridge / Plateau
coding (automatic, or as reviewed), and the act of recording a person's coding with a reason.

Rows come from `workbench.protocols.hindsight.topology_review.review_rows`, the record from
`review_topology`, the calls of `workbench --batch hindsight topology --review`; its rules (a reason of
enough words, a Ridge's switching assumption, unblinded first) are the core's, shown when refused.
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


class TopologyReviewScreen(ModalScreen[None]):
    """The codings as a table; enter records a reviewed coding for the row under the cursor."""

    DEFAULT_CSS = """
    TopologyReviewScreen { align: center middle; background: $background 60%; }
    TopologyReviewScreen > Vertical { width: 95%; height: 85%; border: thick $accent; background: $surface;
                                      padding: 0 1; }
    TopologyReviewScreen #topo-title { text-style: bold; }
    TopologyReviewScreen #topo-table { height: 1fr; }
    TopologyReviewScreen #topo-hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="topology.close", tooltip="Back to the studies"),
        Binding("enter", "review", "Review", id="topology.review",
                tooltip="Record your coding (Basin, Ridge or Plateau) of the row under the cursor, with a reason"),
    ]

    def __init__(self, study_id: str) -> None:
        super().__init__()
        self.study_id = study_id
        self.rows: list[dict] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Topology review of {self.study_id}", id="topo-title", markup=False)
            yield DataTable(id="topo-table", cursor_type="row", zebra_stripes=True)
            yield Static("enter records your coding of the row · escape closes", id="topo-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("case", "condition", "pattern", "automatic", "reviewed by")
        self.reload()

    def reload(self) -> None:
        from workbench.protocols.hindsight.topology_review import review_rows

        self.rows = review_rows(self.app.db, self.study_id)
        table = self.query_one(DataTable)
        table.clear()
        for r in self.rows:
            table.add_row(r["case_id"], r["condition"], r["pattern"] or "-", r["automatic_pattern"] or "-",
                          (r["review"] or {}).get("reviewer") or "-")

    def action_close(self) -> None:
        self.dismiss(None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter on the table's row: the same as the screen's enter
        self.action_review()

    def action_review(self) -> None:
        if self.rows:
            self._review(self.rows[self.query_one(DataTable).cursor_row])

    @work(exclusive=True, group="topology-review", exit_on_error=False)
    async def _review(self, row: dict) -> None:
        from workbench.protocols.hindsight.topology_review import TopologyReviewError, review_topology
        from workbench.scoring.actor import acting_user

        where = f"{row['case_id']} {row['condition']}"
        pattern = await self.app.push_screen_wait(ChoiceDialog(
            f"Code {where}", f"Automatic coding: {row['automatic_pattern'] or 'none'}. Your coding:",
            [Choice("Basin", "Basin", "b"), Choice("Ridge", "Ridge", "r"), Choice("Plateau", "Plateau", "p"),
             Choice(CANCEL, "Cancel", "c")], cancel_id=CANCEL, default_id=CANCEL))
        if pattern == CANCEL:
            return
        switching = None
        if pattern == "Ridge":
            switching = await self.app.push_screen_wait(AskDialog(
                f"{where}: the switching assumption", "A Ridge needs the assumption whose change switches the "
                "recommendation:"))
            if switching is None:
                return
        reason = await self.app.push_screen_wait(AskDialog(f"{where}: why {pattern}?", "The reason is recorded "
                                                           "with the coding:"))
        if reason is None:
            return
        try:
            review = review_topology(self.app.db, self.study_id, row["case_id"], row["condition"], pattern=pattern,
                                     reason=reason, reviewer=acting_user(), switching_assumption=switching)
        except TopologyReviewError as exc:
            self.notify(f"not recorded: {exc}", title="Topology", severity="error", timeout=15)
            return
        self.notify(f"{where}: {row['automatic_pattern'] or 'no automatic coding'} -> {review['pattern']} "
                    f"(recorded, by {review['reviewer']})", title="Topology")
        self.reload()
