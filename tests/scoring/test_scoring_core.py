"""The scoring core the keyboard screen calls: views, actions, undo, skip, progress, calibration."""

from __future__ import annotations

import pytest

from store import scores as score_rows
from tests.blinding.study_fixture import make_study
from tests.scoring.scoring_helpers import score_item, score_pilots
from workbench import scoring
from workbench.scoring.unblind import unblind
from workbench.pilots.calibration import release_rater


@pytest.fixture
def sid(db):
    sid = make_study(db)
    scoring.open_rater(db, sid, "rater-a")
    return sid


def test_entry_opens_the_first_calibration_item_and_holds_the_rest(db, sid):
    progress = scoring.progress(db, sid, "rater-a")
    assert (progress.done, progress.total, progress.phase) == (0, 9, "calibration")
    queue = scoring.queue(db, sid, "rater-a")
    assert [q.available for q in queue] == [True, True] + [False] * 7
    assert scoring.next_unscored(db, sid, "rater-a") == queue[0].item_id
    with pytest.raises(scoring.CalibrationHold):
        scoring.item_view(db, sid, "rater-a", queue[4].item_id)
    with pytest.raises(scoring.CalibrationHold):
        scoring.record_score(db, sid, "rater-a", queue[4].item_id, "anticipation", "anticipation", 2)


def test_the_view_shows_what_the_rater_may_see(db, sid):
    first = scoring.next_unscored(db, sid, "rater-a")
    left, right = scoring.pair_view(db, sid, "rater-a", first)
    assert (left.side, right.side, left.label, right.label) == ("left", "right", "Response Alpha", "Response Beta")
    assert left.partner_id == right.item_id and right.partner_id == left.item_id
    assert left.scenario.startswith("A port authority") and left.outcome.startswith("Shipping demand")
    assert [r.id for r in left.rubrics] == ["anticipation", "epistemic-humility"]
    assert [a.score for a in left.rubrics[0].criteria[0].anchors] == [0, 1, 2, 3]
    assert left.rubrics[1].procedure == ("List the confidence claims.", "Score calibration.")
    assert left.scores == {"anticipation": {"anticipation": None}, "epistemic-humility": {"calibration": None}}
    assert (left.position, left.total, left.complete) == (1, 9, False)


def test_scores_commit_and_the_latest_row_is_the_current_value(db, sid):
    item = scoring.next_unscored(db, sid, "rater-a")
    r1 = scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 1)
    r2 = scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 3)
    assert (r1.previous, r2.previous, r2.value, r2.item_complete) == (None, 1, 3, False)
    r3 = scoring.record_score(db, sid, "rater-a", item, "epistemic-humility", "calibration", 2)
    assert r3.item_complete and r3.progress.done == 1
    view = scoring.item_view(db, sid, "rater-a", item)
    assert view.scores == {"anticipation": {"anticipation": 3}, "epistemic-humility": {"calibration": 2}}
    rows = score_rows.rater_rows(db, sid, "rater-a")
    assert [r["value"] for r in rows] == [1, 3, 2]  # append-only: the edit is a new row


def test_undo_walks_back_one_score_at_a_time(db, sid):
    item = scoring.next_unscored(db, sid, "rater-a")
    scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 1)
    scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 2)
    scoring.record_score(db, sid, "rater-a", item, "epistemic-humility", "calibration", 3)
    u1 = scoring.undo_last(db, sid, "rater-a")
    assert (u1.criterion, u1.value, u1.previous) == ("calibration", None, 3)
    u2 = scoring.undo_last(db, sid, "rater-a")
    assert (u2.criterion, u2.value, u2.previous) == ("anticipation", 1, 2)
    assert scoring.item_view(db, sid, "rater-a", item).scores["anticipation"]["anticipation"] == 1
    scoring.undo_last(db, sid, "rater-a")
    assert scoring.undo_last(db, sid, "rater-a") is None
    assert scoring.item_view(db, sid, "rater-a", item).scores["anticipation"]["anticipation"] is None
    actions = [r["action"] for r in score_rows.rater_rows(db, sid, "rater-a")]
    assert actions == ["score", "score", "score", "undo", "undo", "undo"]


def test_notes_and_skips(db, sid):
    first, second = [q.item_id for q in scoring.queue(db, sid, "rater-a")[:2]]
    scoring.record_note(db, sid, "rater-a", first, "quotes the staged plan")
    scoring.record_note(db, sid, "rater-a", first, "gate rationale", rubric_id="anticipation",
                        criterion="anticipation")
    view = scoring.item_view(db, sid, "rater-a", first)
    assert view.notes == {"*": "quotes the staged plan", "anticipation/anticipation": "gate rationale"}
    scoring.skip_item(db, sid, "rater-a", first)
    assert scoring.next_unscored(db, sid, "rater-a") == second
    score_item(db, sid, "rater-a", second)
    assert scoring.next_unscored(db, sid, "rater-a") == first  # the skipped one comes round again


def test_calibration_passed_releases_the_rest(db, sid):
    score_pilots(db, sid, "rater-a")
    progress = scoring.progress(db, sid, "rater-a")
    assert (progress.phase, progress.done) == ("scoring", 2)
    assert all(q.available for q in scoring.queue(db, sid, "rater-a"))
    nxt = scoring.next_unscored(db, sid, "rater-a")
    assert scoring.item_view(db, sid, "rater-a", nxt).position == 3


def test_calibration_the_wrong_way_holds_until_rescored_or_released(db, sid):
    score_pilots(db, sid, "rater-a", right_way=False)
    progress = scoring.progress(db, sid, "rater-a")
    assert progress.phase == "held" and "against the expected direction" in progress.message
    assert scoring.next_unscored(db, sid, "rater-a") is None
    score_pilots(db, sid, "rater-a", right_way=True)  # re-scoring after re-reading the anchors
    assert scoring.progress(db, sid, "rater-a").phase == "scoring"
    score_pilots(db, sid, "rater-a", right_way=False)
    release_rater(db, sid, "rater-a", by="researcher", reason="discussed")
    assert scoring.progress(db, sid, "rater-a").phase == "scoring"


def test_invalid_actions_are_refused_with_a_reason(db, sid):
    item = scoring.next_unscored(db, sid, "rater-a")
    with pytest.raises(scoring.ScoringError, match="outside 0..3"):
        scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 4)
    with pytest.raises(scoring.ScoringError, match="whole number"):
        scoring.record_score(db, sid, "rater-a", item, "anticipation", "anticipation", 1.5)
    with pytest.raises(scoring.ScoringError, match="no criterion"):
        scoring.record_score(db, sid, "rater-a", item, "anticipation", "nope", 1)
    with pytest.raises(scoring.ScoringError, match="not scored on rubric"):
        scoring.record_score(db, sid, "rater-a", item, "blast-radius", "rollback", 1)
    with pytest.raises(scoring.ScoringError, match="not a rater"):
        scoring.progress(db, sid, "mallory")
    with pytest.raises(scoring.ScoringError, match="not in rater-a's assignment"):
        scoring.item_view(db, sid, "rater-a", "i-000000000000")
    assert score_rows.rater_rows(db, sid, "rater-a") == []


def test_a_rater_never_sees_another_raters_scores(db, sid):
    item = scoring.next_unscored(db, sid, "rater-a")
    scoring.record_score(db, sid, "rater-b", item, "anticipation", "anticipation", 3)
    scoring.record_note(db, sid, "rater-b", item, "B's private reasoning")
    view = scoring.item_view(db, sid, "rater-a", item)
    assert view.scores["anticipation"]["anticipation"] is None and view.notes == {}
    assert scoring.undo_last(db, sid, "rater-a") is None  # b's score is not a's to undo
    assert scoring.progress(db, sid, "rater-a").done == 0


def test_full_scoring_completes_and_unblinding_closes_scoring(db, sid):
    score_pilots(db, sid, "rater-a")
    while (item := scoring.next_unscored(db, sid, "rater-a")) is not None:
        score_item(db, sid, "rater-a", item)
    assert scoring.progress(db, sid, "rater-a").phase == "complete"
    unblind(db, sid, by="researcher", force=True)
    assert scoring.progress(db, sid, "rater-a").phase == "closed"
    with pytest.raises(scoring.ScoringClosed):
        scoring.record_score(db, sid, "rater-a", item or scoring.queue(db, sid, "rater-a")[0].item_id,
                             "anticipation", "anticipation", 1)


def test_current_scores_for_metrics_leave_pilots_out(db, sid):
    score_pilots(db, sid, "rater-a")
    item = scoring.next_unscored(db, sid, "rater-a")
    score_item(db, sid, "rater-a", item, a=3, c=1)
    values = scoring.current_scores(db, sid)
    assert {(v.item_id, v.rubric_id, v.criterion, v.value) for v in values} == {
        (item, "anticipation", "anticipation", 3), (item, "epistemic-humility", "calibration", 1)}
    assert len(scoring.current_scores(db, sid, include_pilots=True)) == 6


def test_a_desk_reads_the_study_once_and_answers_a_score_from_memory(db, sid, monkeypatch):
    """One sitting builds the study's context once; a score re-reads only the rater's own rows."""
    from workbench.scoring import core

    desk = scoring.RaterDesk(db, sid, "rater-a")
    elsewhere = scoring.RaterDesk(db, sid, "rater-a")  # a packet import or another terminal
    monkeypatch.setattr(core, "load_study", lambda *a, **k: pytest.fail("the study's context was rebuilt"))
    item = desk.next_unscored()
    receipt = desk.record_score(item, "anticipation", "anticipation", 2)
    assert (receipt.value, receipt.item_complete, receipt.progress.done) == (2, False, 0)
    assert desk.item_view(item).scores["anticipation"] == {"anticipation": 2}
    elsewhere.record_score(item, "epistemic-humility", "calibration", 1)
    receipt = desk.record_score(item, "anticipation", "anticipation", 3)  # sees the other write first
    assert receipt.item_complete and receipt.progress.done == 1
