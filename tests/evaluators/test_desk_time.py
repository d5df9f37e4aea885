"""The desk keeps each score's open-to-save time; a packet carries the rater's seconds per item."""

from __future__ import annotations

from store import scores as score_rows
from tests.evaluators.helpers import quality_study
from tests.scoring.scoring_helpers import score_pilots
from workbench.scoring.packets import PacketError, build_packet, import_packet
from workbench.scoring.session import ScoringSession

import pytest


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_score_on_the_desk_keeps_the_seconds_since_its_pair_was_opened(db):
    sid = quality_study(db)
    session = ScoringSession.enter(db, sid, "rater-a")
    clock = Clock()
    session.clock, session.opened_at = clock, clock()
    clock.now += 7.5
    session.score(3)
    clock.now += 4.0
    session.score(0)
    rows = [r for r in score_rows.rater_rows(db, sid, "rater-a") if r["action"] == "score"]
    assert [r["seconds"] for r in rows] == [7.5, 11.5]
    session.next_unit()  # a new pair: its clock starts again
    opened = session.opened_at
    assert opened is not None


def test_a_packet_carries_seconds_per_item_and_refuses_a_bad_one(db):
    sid = quality_study(db)
    from workbench import scoring

    scoring.open_rater(db, sid, "rater-b")
    score_pilots(db, sid, "rater-b")
    packet = build_packet(db, sid, "rater-b")
    item = next(i["item"] for i in packet["sealed"]["items"]
                if any(v is None for r in packet["answers"][i["item"]]["scores"].values() for v in r.values()))
    assert packet["answers"][item]["seconds"] is None
    packet["answers"][item]["scores"] = {"anticipation": {"anticipation": 2}, "epistemic-humility": {"calibration": 1}}
    packet["answers"][item]["seconds"] = "slow"
    with pytest.raises(PacketError) as refused:
        import_packet(db, packet)
    assert any("seconds: 'slow' is not a number of seconds" in d for d in refused.value.details)
    packet = build_packet(db, sid, "rater-b")
    packet["answers"][item]["scores"] = {"anticipation": {"anticipation": 2}, "epistemic-humility": {"calibration": 1}}
    packet["answers"][item]["seconds"] = 42
    import_packet(db, packet)
    rows = [r for r in score_rows.rater_rows(db, sid, "rater-b", item) if r["action"] == "score"]
    assert [r["seconds"] for r in rows] == [42.0, 42.0]
