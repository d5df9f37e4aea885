"""The rater desk's case pane shows a transposed case's mapping under the outcome (issue 30), and nothing more for a
case that is not transposed; a snapshot at 80x24."""

from __future__ import annotations

from textual.app import App, ComposeResult

from screens.widgets.response_panel import CasePanel
from workbench.scoring import ItemView

MAPPING = ("The scenario is a structural transposition of a real case: A regional bank's 2019 branch expansion. "
           "Read the scenario's terms as the real case's when you compare the response with the outcome:\n"
           "- port authority (in the scenario) = regional bank (in the real case)\n"
           "- container demand (in the scenario) = deposits (in the real case)")


def view(transposition: str | None) -> ItemView:
    return ItemView(item_id="i-1", label="Response Alpha", position=1, total=2, side="left", partner_id=None,
                    case_title="Harbor expansion",
                    scenario="A port authority must decide whether to double its container capacity.",
                    outcome="Container demand contracted sharply two years later; the new berths stood idle.",
                    response="Stage the expansion.", rubrics=[], transposition=transposition)


class PaneApp(App):
    def __init__(self, transposition: str | None) -> None:
        super().__init__()
        self.transposition = transposition

    def compose(self) -> ComposeResult:
        yield CasePanel(id="case")

    def on_mount(self) -> None:
        self.query_one(CasePanel).show(view(self.transposition))


async def test_the_mapping_shows_only_for_a_transposed_case():
    for transposition in (MAPPING, None):
        app = PaneApp(transposition)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            heading = app.query_one("#case-transposition-heading")
            body = app.query_one("#case-transposition")
            assert heading.display is body.display is (transposition is not None)
            if transposition:
                assert "port authority (in the scenario) = regional bank" in str(body.content)


def test_snapshot_the_case_pane_of_a_transposed_case_at_80x24(snap_compare):
    assert snap_compare(PaneApp(MAPPING), terminal_size=(80, 24))
