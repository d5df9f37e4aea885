"""Issue 24, item 4: hindsight's adjudication panel from the Studies screen: the queue without the raters'
scores, and a third rater's score recorded for the row under the cursor."""

from __future__ import annotations

import pytest
from scoring_seed import seed_study
from study_screen_helpers import answer, open_from_studies, push_over_studies, wait_until
from textual.widgets import DataTable

from screens.adjudication import AdjudicationScreen
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from store import blind as blind_rows
from store import open_store
from workbench import scoring
from workbench.scoring.adjudication import queue


def disagreeing_store(tmp_path):
    path = tmp_path / "store.db"
    sid = seed_study(path)["study_id"]
    db = open_store(path)
    try:
        for rater, value in (("rater-a", 0), ("rater-b", 3)):
            scoring.open_rater(db, sid, rater)
            item = blind_rows.blind_items(db, sid)[0]["id"]
            scoring.record_score(db, sid, rater, item, "anticipation", "anticipation", value)
    finally:
        db.close()
    return path, sid


async def test_the_queue_hides_the_scores_and_records_a_third_raters_value(tmp_path):
    path, sid = disagreeing_store(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_from_studies(pilot, "a", AdjudicationScreen, "the queue")
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[1:4] for r in rows] == [["open", "anticipation.anticipation", "rater-a, rater-b"]]
        assert not any(v in cell for r in rows for cell in r[1:] for v in ("0", "3"))  # no score shown
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the method")
        await pilot.press("t")
        await answer(pilot, "2")
        await answer(pilot, "rater-c")
        await wait_until(pilot, lambda: queue(app.db, sid)[0].adjudicated is not None, what="the record")
        assert queue(app.db, sid)[0].adjudicated == pytest.approx(2.0)
        await wait_until(pilot, lambda: isinstance(app.screen, AdjudicationScreen), what="the queue again")
        assert "adjudicated 2" in str(app.screen.query_one(DataTable).get_row_at(0)[1])


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
def test_adjudication_panel_snapshot(snap_compare, tmp_path, size):
    path, sid = disagreeing_store(tmp_path)
    app = make_app(path)

    async def run_before(pilot):
        await push_over_studies(pilot, AdjudicationScreen(sid))

    assert snap_compare(app, terminal_size=size, run_before=run_before)
