"""Hindsight's adjudication queue on one study: every item criterion whose raters disagree beyond the
pre-registered margin, and the act of recording a third rater's score or a consensus for one of them.

The queue comes from `workbench.scoring.adjudication.queue` and the record from `adjudicate`, the calls of
`workbench --batch hindsight adjudicate`. The raters' scores are not shown: a third rater scores blind.
"""

from __future__ import annotations

from textual import work

from screens.ask_dialog import AskDialog
from screens.confirm import CANCEL, Choice, ChoiceDialog
from screens.widgets.queue_screen import QueueScreen


class AdjudicationScreen(QueueScreen):
    """The queue as a table; enter records an adjudication for the row under the cursor."""

    PREFIX = "adj"
    TITLE = "Adjudication queue of {study}"
    COLUMNS = ("item", "state", "criterion", "raters", "case")  # at 80 columns the case gives way
    KEYS = "adjudication"
    ACT = ("record", "Adjudicate", "Record a third rater's score or a consensus for the criterion under the cursor")

    def load(self) -> list:
        from workbench.scoring.adjudication import queue

        return queue(self.app.db, self.study_id)

    def cells(self, d) -> tuple:
        state = "open" if d.adjudicated is None else f"adjudicated {d.adjudicated:g}"
        return d.item_id, state, f"{d.rubric_id}.{d.criterion}", ", ".join(d.raters), d.case_id

    def hint(self) -> str:
        open_items = sum(1 for d in self.rows if d.adjudicated is None)
        return (f"{len(self.rows)} disagreement(s) beyond the margin, {open_items} open · enter records one · "
                "escape closes" if self.rows else "No disagreement beyond the margin. escape closes")

    def act(self, item) -> None:
        self._record(item)

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
