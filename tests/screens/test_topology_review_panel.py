"""Issue 24, item 4: hindsight's topology review from the Studies screen: refused while blinded; once
unblinded each case and condition is listed and a person's coding is recorded with its reason; a reason
too short is refused by the core's rule and nothing is recorded."""

from __future__ import annotations

import pytest
from scoring_seed import seed_study
from study_screen_helpers import answer, push_over_studies, seeded_studies, wait_until
from textual.widgets import DataTable

from screens.confirm import ChoiceDialog
from screens.launch import make_app
from screens.topology_review import TopologyReviewScreen
from workbench.protocols.hindsight.topology_review import reviewed_topology
from workbench.scoring.unblind import unblind

async def test_topology_review_waits_for_unblinding_then_records_a_coding_with_its_reason(tmp_path):
    notes: list[str] = []
    async with seeded_studies(tmp_path) as (app, pilot, sid):
        app.screen.notify = lambda message, **kw: notes.append(message)
        await pilot.press("t")
        await pilot.pause()
        assert not isinstance(app.screen, TopologyReviewScreen) and any("is blinded" in n for n in notes)
        unblind(app.db, sid, by="tester", force=True, reason="test")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, TopologyReviewScreen), what="the review")
        await pilot.pause()
        panel = app.screen
        panel.notify = lambda message, **kw: notes.append(message)
        table = panel.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[:3] for r in rows] == [["glenda-crock", "B1", "-"], ["glenda-crock", "C2", "-"]]
        await pilot.press("enter")  # B1
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the patterns")
        await pilot.press("b")
        await answer(pilot, "too short")
        await wait_until(pilot, lambda: any("not recorded" in n for n in notes), what="the refusal")
        assert reviewed_topology(app.db, sid) == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the patterns")
        await pilot.press("b")
        await answer(pilot, "staged expansion holds under every outcome")
        await wait_until(pilot, lambda: reviewed_topology(app.db, sid), what="the record")
        [coded] = reviewed_topology(app.db, sid)
        assert (coded["case_id"], coded["condition"], coded["pattern"]) == ("glenda-crock", "B1", "Basin")
        assert coded["review"]["reason"] == "staged expansion holds under every outcome"


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
def test_topology_review_snapshot(snap_compare, tmp_path, size):
    path = tmp_path / "store.db"
    sid = seed_study(path)["study_id"]
    app = make_app(path)

    async def run_before(pilot):
        unblind(app.db, sid, by="tester", force=True, reason="test")
        await push_over_studies(pilot, TopologyReviewScreen(sid))

    assert snap_compare(app, terminal_size=size, run_before=run_before)
