"""Hindsight's topology review on one unblinded study: each case and condition's Basin / Ridge / Plateau
coding (automatic, or as reviewed), and the act of recording a person's coding with a reason.

Rows come from `workbench.protocols.hindsight.topology_review.review_rows`, the record from
`review_topology`, the calls of `workbench --batch hindsight topology --review`; its rules (a reason of
enough words, a Ridge's switching assumption, unblinded first) are the core's, shown when refused.
"""

from __future__ import annotations

from textual import work

from screens.ask_dialog import AskDialog
from screens.confirm import CANCEL, Choice, ChoiceDialog
from screens.widgets.queue_screen import QueueScreen


class TopologyReviewScreen(QueueScreen):
    """The codings as a table; enter records a reviewed coding for the row under the cursor."""

    PREFIX = "topo"
    TITLE = "Topology review of {study}"
    COLUMNS = ("case", "condition", "pattern", "automatic", "reviewed by")
    KEYS = "topology"
    ACT = ("review", "Review", "Record your coding (Basin, Ridge or Plateau) of the row under the cursor, with a "
           "reason")

    def load(self) -> list:
        from workbench.protocols.hindsight.topology_review import review_rows

        return review_rows(self.app.db, self.study_id)

    def cells(self, r: dict) -> tuple:
        return (r["case_id"], r["condition"], r["pattern"] or "-", r["automatic_pattern"] or "-",
                (r["review"] or {}).get("reviewer") or "-")

    def hint(self) -> str:
        return "enter records your coding of the row · escape closes"

    def act(self, row: dict) -> None:
        self._review(row)

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
