"""Unblinding: refused before scoring is complete, allowed with force and marked, recorded, closing scoring."""

from __future__ import annotations

import pytest

from store import blind as blind_rows
from tests.blinding.study_fixture import make_study
from tests.scoring.scoring_helpers import score_item, score_pilots
from workbench import scoring
from workbench.blinding.unblind import StillBlind, item_labels, scrub_logs, unblind_state
from workbench.scoring.unblind import UnblindRefused, unblind
from workbench.protocols.hindsight.metrics.agreement_report import judge_errors
from workbench.protocols.hindsight.metrics.study_data import load_study_data


def _score_everything(db, sid, rater):
    score_pilots(db, sid, rater)
    while (item := scoring.next_unscored(db, sid, rater)) is not None:
        score_item(db, sid, rater, item)


def test_refused_until_every_rater_is_done_then_allowed_and_recorded(db):
    sid = make_study(db)
    scoring.open_rater(db, sid, "rater-a")
    with pytest.raises(UnblindRefused) as err:
        unblind(db, sid, by="alice")
    assert err.value.remaining == {"rater-a": {"done": 0, "total": 9}, "rater-b": {"done": 0, "total": 9}}
    _score_everything(db, sid, "rater-a")
    with pytest.raises(UnblindRefused, match="rater-b 0/9"):
        unblind(db, sid, by="alice")
    _score_everything(db, sid, "rater-b")
    record = unblind(db, sid, by="alice", reason="all scored")
    assert (record["forced"], record["by"], record["already"]) == (False, "alice", False)
    assert blind_rows.unblindings(db, sid)[0]["by"] == "alice"
    state = unblind_state(db, sid)
    assert state.unblinded and not state.forced
    labels = item_labels(db, sid)
    assert sorted(label.condition for label in labels.values() if not label.pilot) == \
        ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
    assert not any(label.unblind_forced for label in labels.values())


def test_forced_unblinding_is_marked_on_every_label(db):
    sid = make_study(db)
    scoring.open_rater(db, sid, "rater-a")
    record = unblind(db, sid, by="bob", force=True)
    assert record["forced"] is True and set(record["remaining"]) == {"rater-a", "rater-b"}
    assert db["studies"].get(sid)["unblind_forced"] == 1
    assert all(label.unblind_forced for label in item_labels(db, sid).values())
    again = unblind(db, sid, by="carol")
    assert again["already"] and again["by"] == "bob"
    assert len(blind_rows.unblindings(db, sid)) == 1


def test_the_key_stays_sealed_before_unblinding(db):
    sid = make_study(db)
    scoring.open_rater(db, sid, "rater-a")
    with pytest.raises(StillBlind):
        item_labels(db, sid)
    with pytest.raises(StillBlind):
        scrub_logs(db, sid)
    assert all(r.condition is None for r in judge_errors(load_study_data(db, sid)))
    unblind(db, sid, by="x", force=True)
    assert any(log for log in scrub_logs(db, sid).values())


def test_a_study_with_nothing_blinded_cannot_be_unblinded_without_force(db):
    sid = make_study(db)
    with pytest.raises(UnblindRefused):
        unblind(db, sid, by="x")
