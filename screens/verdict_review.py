"""The blind review of one judge's verdicts: one verdict at a time, as the judge saw its item.

Each page shows the item's text, the case's scenario and outcome, the rubric criterion with its anchors,
and the verdict with its quote and reasoning (`workbench.evaluators.review.sample`; never a condition).
`y` marks the verdict right, `c` corrects it (a score in the criterion's range, then a reason); both append
a review row (the verdict itself is never changed). `n` / `p` page; the batch way is `evaluators review`.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from screens.ask_dialog import AskDialog
from screens.widgets.panel_modal import PanelModal


class VerdictReviewScreen(PanelModal):
    """A judge's review sample, one verdict per page."""

    DEFAULT_CSS = """
    VerdictReviewScreen > Vertical { height: 94%; }
    VerdictReviewScreen #review-title { text-style: bold; }
    VerdictReviewScreen #review-verdict { border-top: solid $accent; max-height: 12; }
    VerdictReviewScreen #review-body { height: 1fr; }
    VerdictReviewScreen #review-hint { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="review.close", tooltip="Back to the evaluator panel"),
        Binding("n", "page(1)", "Next", id="review.next", tooltip="The next verdict of the sample"),
        Binding("p", "page(-1)", "Previous", id="review.previous", tooltip="The previous verdict of the sample"),
        Binding("y", "right", "Right", id="review.right", tooltip="Mark this verdict right (recorded, with you)"),
        Binding("c", "correct", "Correct", id="review.correct",
                tooltip="Give the score this verdict should have had, and why (the verdict itself is kept)"),
    ]

    def __init__(self, study_id: str, judge: str) -> None:
        super().__init__()
        self.study_id, self.judge = study_id, judge
        self.units: list = []
        self.index = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("", id="review-title", markup=False)
            with VerticalScroll(id="review-body"):
                yield Static("", id="review-item", markup=False)
            yield Static("", id="review-verdict", markup=False)
            yield Static("n / p page · y right · c correct · escape closes", id="review-hint", markup=False)

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        from workbench.blinding.context import load_study
        from workbench.evaluators.review import sample
        from workbench.evaluators.settings import review_size

        study = load_study(self.app.db, self.study_id)
        self.units = sample(self.app.db, study, self.judge, review_size(study.definition))
        self.index = min(self.index, max(0, len(self.units) - 1))
        self.show()

    def show(self) -> None:
        from workbench.evaluators.review import agreement

        agreed = agreement(self.app.db, self.study_id, self.judge)
        head = (f"Blind review of {self.judge} in {self.study_id}: "
                + (f"verdict {self.index + 1} of {len(self.units)}" if self.units else "no verdicts to review")
                + f" · {agreed.reviewed} reviewed, {agreed.right} right, {agreed.corrected} corrected")
        self.query_one("#review-title", Static).update(head)
        if not self.units:
            self.query_one("#review-item", Static).update("The judge has no ok verdict on the study's items yet.")
            self.query_one("#review-verdict", Static).update("")
            return
        u = self.units[self.index]
        item = [f"RESPONSE ({u.item_id})", u.response, "", f"SCENARIO ({u.case_title})", u.scenario]
        if u.outcome is not None:
            item += ["", "OUTCOME", u.outcome]
        anchors = "\n".join(f"  {a['score']} {a['label']}: {a['text']}" for a in u.anchors)
        item += ["", f"ANCHORS of {u.rubric_name} / {u.criterion_name}", anchors]
        self.query_one("#review-item", Static).update("\n".join(item))
        state = ("not reviewed yet" if u.mark is None else f"marked right by {u.by}" if u.mark == "right"
                 else f"corrected to {u.corrected:g} by {u.by}: {u.reason}")
        self.query_one("#review-verdict", Static).update(
            f"{u.rubric_name} / {u.criterion_name} ({u.low}..{u.high}): {u.question}\n"
            f"VERDICT {u.value:g}  [{state}]\nquote: {u.quote or '—'}\nreasoning: {u.reasoning or '—'}")
        self.query_one("#review-body", VerticalScroll).scroll_home(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_page(self, delta: int) -> None:
        if self.units:
            self.index = max(0, min(len(self.units) - 1, self.index + delta))
            self.show()

    def _mark(self, **kw) -> None:
        from workbench.blinding.context import load_study
        from workbench.evaluators.review import ReviewError, mark
        from workbench.scoring.actor import acting_user

        u = self.units[self.index]
        try:
            mark(self.app.db, load_study(self.app.db, self.study_id), u.verdict_id, by=acting_user(), **kw)
        except ReviewError as exc:
            self.notify(f"not recorded: {exc}", title="Review", severity="error", timeout=12)
            return
        self.reload()
        self.action_page(1)

    def action_right(self) -> None:
        if self.units:
            self._mark(right=True)

    def action_correct(self) -> None:
        if self.units:
            self._correct(self.units[self.index])

    @work(exclusive=True, group="verdict-review", exit_on_error=False)
    async def _correct(self, u) -> None:
        seen = f"verdict {self.index + 1} of {len(self.units)}"  # the position on screen, never the store's id
        score = await self.app.push_screen_wait(AskDialog(
            f"Correct {seen}", f"The score it should have had ({u.low}..{u.high}); the judge "
            f"gave {u.value:g}:"))
        if score is None:
            return
        if not score.strip().lstrip("-").isdigit():
            self.notify(f"not recorded: {score!r} is not a whole score", title="Review", severity="error")
            return
        reason = await self.app.push_screen_wait(AskDialog(f"{seen[0].upper()}{seen[1:]}: why {score}?",
                                                           "The reason is kept with the correction:"))
        if reason is None:
            return
        self._mark(right=False, corrected=int(score), reason=reason)
