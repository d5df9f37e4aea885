"""The evaluator panel of one study: every rater's and judge's quality, and the exclusion decisions.

The table is `workbench.evaluators.study.StudyQuality.rows()`, the numbers `evaluators qc` and the report
print. `a` records the pre-registered rules' decisions (as `evaluators qc --apply`); `o` overrides the
decision about the evaluator under the cursor, with a reason (as `evaluators override`); `v` opens the blind
review of the judge under the cursor. Nothing here is reachable from a rater's desk.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from screens.ask_dialog import AskDialog
from screens.widgets.panel_modal import PanelModal
from screens.confirm import CANCEL, Choice, ChoiceDialog


class EvaluatorPanelScreen(PanelModal):
    """Quality figures per evaluator; a, o and v act on the study or the row under the cursor."""

    DEFAULT_CSS = """
    EvaluatorPanelScreen > Vertical { height: 92%; }
    EvaluatorPanelScreen #qc-title { text-style: bold; }
    EvaluatorPanelScreen #qc-table { height: auto; max-height: 60%; }
    EvaluatorPanelScreen #qc-notes { height: 1fr; border-top: solid $accent; }
    EvaluatorPanelScreen #qc-hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="evaluators.close", tooltip="Back to the studies"),
        Binding("a", "apply", "Apply rules", id="evaluators.apply",
                tooltip="Record the pre-registered exclusion rules' decisions now, as `evaluators qc --apply` "
                        "(the unblinding records them too)"),
        Binding("o", "override", "Override", id="evaluators.override",
                tooltip="Keep or exclude the evaluator under the cursor against the rules, with a reason "
                        "(printed in the report as a deviation)"),
        Binding("v", "review", "Review", id="evaluators.review",
                tooltip="Blind review of the judge under the cursor: page through its verdicts, mark them right "
                        "or correct them"),
    ]

    def __init__(self, study_id: str) -> None:
        super().__init__()
        self.study_id = study_id
        self.quality = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Evaluator quality of {self.study_id}", id="qc-title", markup=False)
            yield DataTable(id="qc-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="qc-notes"):
                yield Static("", id="qc-text", markup=False)
            yield Static("a applies the rules · o overrides · v reviews a judge · escape closes", id="qc-hint",
                         markup=False)

    def on_mount(self) -> None:
        from workbench.evaluators.study import COLUMNS

        self.query_one(DataTable).add_columns(*COLUMNS)
        self.reload()

    def reload(self) -> None:
        from workbench.evaluators.report import head_lines, tail_lines
        from workbench.evaluators.study import study_quality

        self.quality = study_quality(self.app.db, self.study_id)
        table = self.query_one(DataTable)
        table.clear()
        for row in self.quality.rows():
            table.add_row(*row)
        # what the study pre-registered and planted, then what fired, the reviews and the deviations
        self.query_one("#qc-text", Static).update("\n".join([*tail_lines(self.quality), *head_lines(self.quality)[1:]]))

    def _selected(self):
        if not self.quality or not self.quality.evaluators:
            return None
        return self.quality.evaluators[self.query_one(DataTable).cursor_row]

    def action_close(self) -> None:
        self.dismiss(None)

    def action_apply(self) -> None:
        from workbench.evaluators.exclusions import ExclusionError, apply_rules
        from workbench.scoring.actor import acting_user

        try:
            written = apply_rules(self.app.db, self.study_id, by=acting_user())
        except ExclusionError as exc:
            self.notify(str(exc), title="Evaluators", severity="warning", timeout=12)
            return
        out = [r["evaluator"] for r in written if r["excluded"]]
        self.notify(f"decisions recorded: {', '.join(out) + ' excluded' if out else 'nobody excluded'}",
                    title="Evaluators")
        self.reload()

    def action_review(self) -> None:
        from screens.verdict_review import VerdictReviewScreen

        q = self._selected()
        if q is None or q.kind != "judge":
            self.notify("move to a judge's row: the review pages through a judge's verdicts", title="Evaluators",
                        severity="warning")
            return
        self.app.push_screen(VerdictReviewScreen(self.study_id, q.evaluator), callback=lambda _: self.reload())

    def action_override(self) -> None:
        q = self._selected()
        if q is not None:
            self._override(q.evaluator)

    @work(exclusive=True, group="evaluator-override", exit_on_error=False)
    async def _override(self, evaluator: str) -> None:
        from workbench.evaluators.exclusions import ExclusionError, override
        from workbench.scoring.actor import acting_user

        choice = await self.app.push_screen_wait(ChoiceDialog(
            f"Override for {evaluator}", "Against (or beside) the pre-registered rules, the report prints this "
            "as a deviation:", [Choice("keep", "Keep in the tables", "k"), Choice("exclude", "Exclude", "e"),
                                Choice(CANCEL, "Cancel", "c")], cancel_id=CANCEL, default_id=CANCEL))
        if choice == CANCEL:
            return
        reason = await self.app.push_screen_wait(AskDialog(f"{evaluator}: why?", "The reason is recorded and "
                                                           "printed in the report:"))
        if reason is None:
            return
        try:
            override(self.app.db, self.study_id, evaluator, exclude=choice == "exclude", reason=reason,
                     by=acting_user())
        except ExclusionError as exc:
            self.notify(f"not recorded: {exc}", title="Evaluators", severity="error", timeout=12)
            return
        self.reload()
