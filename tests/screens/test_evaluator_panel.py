"""Issue 32: the evaluator panel and the blind review of judge verdicts, from the Studies screen.

The panel's table is the numbers `evaluators qc` (text and --json) and the report print; the review
screen pages a judge's verdicts and records a right mark and a correction (the verdict kept)."""

from __future__ import annotations

import json

import pytest
from scoring_seed import seed_study
from study_screen_helpers import STUDIES_SIZE as SIZE
from study_screen_helpers import answer, dialog_text, open_from_studies, open_studies, wait_until
from textual.widgets import DataTable

from screens.ask_dialog import AskDialog
from screens.evaluators import EvaluatorPanelScreen
from screens.launch import make_app
from screens.verdict_review import VerdictReviewScreen
from store import open_store
from store import verdicts as verdict_rows
from store.quality import planted, reviews
from workbench.blinding.context import load_study
from workbench.cli.main import main
from workbench.evaluators.report import report_section
from workbench.scoring import RaterDesk, queue

QUALITY = ('\n[quality]\ngold_rate = 1.0\nattention_rate = 0.5\ntime_floor_seconds = 5\n'
           'exclude_if = ["gold_exact < 0.7", "raters: under_floor > 0.2"]\n')


def scored_study(path) -> str:
    """The seeded study with a [quality] table; rater-a reads (gold right, 30 s), rater-b clicks 2 in 2 s,
    the judge gave 2 everywhere with a quote."""
    sid = seed_study(path, extra=QUALITY)["study_id"]
    db = open_store(path)
    try:
        sealed = planted(db, sid)
        study = load_study(db, sid)
        for rater in ("rater-a", "rater-b"):
            desk = RaterDesk(db, sid, rater)
            for q in queue(db, sid, rater):
                for rubric in desk.rubrics(q.item_id):
                    for c in rubric.criteria:
                        if rater == "rater-b":
                            value, seconds = min(2, c.max), 2.0
                        elif q.item_id in sealed:
                            value, seconds = sealed[q.item_id]["expected"][rubric.id][c.id], 30.0
                        else:
                            value, seconds = c.max if q.position % 2 else c.min, 30.0 + q.position
                        desk.record_score(q.item_id, rubric.id, c.id, value, seconds=seconds)
        rows = []
        from store.blind import blind_items

        for item in blind_items(db, sid):
            if sealed.get(item["id"], {}).get("kind") == "attention":
                continue
            for rubric in study.rubrics_for_case(item["case_id"]):
                for c in rubric.criteria:
                    rows.append({"study_id": sid, "judge": "judge-a", "model": "anthropic/claude-3-5-sonnet",
                                 "item_id": item["id"], "rubric_hash": rubric.hash, "criterion": c.id,
                                 "value": min(2, c.max), "status": "ok", "justification": "It names the threat.",
                                 "detail": {"quote": "Refuse"}})
        verdict_rows.append_verdicts(db, rows)
    finally:
        db.close()
    return sid


async def test_the_panel_shows_the_numbers_evaluators_qc_and_the_report_print(tmp_path, capsys):
    path = tmp_path / "store.db"
    sid = scored_study(path)
    capsys.readouterr()
    assert main(["--batch", "--db", str(path), "--json", "evaluators", "qc", sid]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["--batch", "--db", str(path), "evaluators", "qc", sid]) == 0
    text = capsys.readouterr().out
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await open_from_studies(pilot, "e", EvaluatorPanelScreen, "the panel")
        table = app.screen.query_one(DataTable)
        shown = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        section = report_section(app.db, sid)
    assert shown == doc["rows"] and len(shown) == 3
    assert [r[0] for r in shown] == ["rater-a", "rater-b", "judge-a"]
    by = {r[0]: r for r in shown}
    assert by["rater-b"][2] == "would exclude" and by["rater-a"][2] == "kept (provisional)"
    for row in shown:  # the same cells, in the same order, in the batch text and the report
        line = "  ".join(row)
        assert all(cell in text for cell in row) and row[0] in section
        import re

        assert re.search(r"\s+".join(re.escape(c) for c in row), text)
        assert re.search(r"\s+".join(re.escape(c) for c in row), section), line


async def test_the_review_marks_right_and_corrects_keeping_the_verdict(tmp_path):
    path = tmp_path / "store.db"
    sid = scored_study(path)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await open_studies(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EvaluatorPanelScreen), what="the panel")
        before = verdict_rows.verdict_rows(app.db, sid, "judge-a")
        await pilot.press("down", "down")  # the judge's row
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, VerdictReviewScreen), what="the review")
        await pilot.pause()
        review = app.screen
        first = review.units[0]
        text = str(app.screen.query_one("#review-item").render())
        assert first.response.splitlines()[0] in text and "B1" not in text and "C2" not in text
        await pilot.press("y")
        await wait_until(pilot, lambda: len(reviews(app.db, sid)) == 1, what="the right mark")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the correction dialog")
        n = len(review.units)
        assert f"Correct verdict 2 of {n}" in dialog_text(app)  # the position the title shows (issue 43)
        assert str(review.units[1].verdict_id) not in dialog_text(app).replace(f"2 of {n}", "")
        await answer(pilot, "0")
        await wait_until(pilot, lambda: f"Verdict 2 of {n}: why 0?" in dialog_text(app), what="the reason")
        await answer(pilot, "the response names no compliance trap")
        await wait_until(pilot, lambda: len(reviews(app.db, sid)) == 2, what="the correction")
        marks = reviews(app.db, sid)
        assert [m["mark"] for m in marks] == ["right", "corrected"]
        assert marks[1]["original"] == 2.0 and marks[1]["corrected"] == 0.0
        assert marks[1]["reason"] == "the response names no compliance trap"
        assert verdict_rows.verdict_rows(app.db, sid, "judge-a") == before


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
@pytest.mark.parametrize("screen", [
    pytest.param(EvaluatorPanelScreen, id="panel"),
    pytest.param(lambda sid: VerdictReviewScreen(sid, "judge-a"), id="review"),
])
def test_snapshot(snap_compare, tmp_path, size, screen):
    path = tmp_path / "store.db"
    sid = scored_study(path)
    app = make_app(path)

    async def run_before(pilot):
        await open_studies(pilot)
        app.push_screen(screen(sid))
        await wait_until(pilot, lambda: isinstance(app.screen, (EvaluatorPanelScreen, VerdictReviewScreen)),
                         what="the screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
