"""Rater queues: seeded per-rater order, left/right pairs within a case, pilots first, overlap."""

from __future__ import annotations

from collections import Counter

from store import blind as blind_rows
from tests.blinding.study_fixture import make_study
from workbench.blinding.assign import ItemRef, order_queue, partner_positions, share_out
from workbench.blinding.items import prepare_study


def test_each_rater_gets_every_item_in_their_own_order_with_pilots_first(db):
    sid = make_study(db, raters=("r1", "r2", "r3"))
    prepare_study(db, sid)
    pilots = {i["id"] for i in blind_rows.blind_items(db, sid) if i["pilot"]}
    orders = {}
    for rater in ("r1", "r2", "r3"):
        queue = blind_rows.assignments(db, sid, rater)
        assert len(queue) == 9
        assert {q["item_id"] for q in queue[:2]} == pilots
        assert [q["side"] for q in queue[:2]] == ["left", "right"]
        orders[rater] = [q["item_id"] for q in queue[2:]]
    assert len({tuple(o) for o in orders.values()}) > 1  # not one shared order


def test_order_and_sides_are_reproducible_from_the_seed():
    items = [ItemRef(f"i-{k:02d}", "case-a" if k % 2 else "case-b") for k in range(12)]
    assert order_queue(items, 42) == order_queue(list(reversed(items)), 42)
    assert order_queue(items, 42) != order_queue(items, 43)


def test_pairs_are_one_left_one_right_from_the_same_case():
    items = [ItemRef(f"i-{k:02d}", f"case-{k % 3}") for k in range(11)]
    rows = order_queue(items, 7)
    case = {i.id: i.case_id for i in items}
    partners = partner_positions(rows)
    by_pos = {r["position"]: r for r in rows}
    for pos, other in partners.items():
        assert case[by_pos[pos]["item_id"]] == case[by_pos[other]["item_id"]]
        assert {by_pos[pos]["side"], by_pos[other]["side"]} == {"left", "right"}
    sides = Counter(r["side"] for r in rows)
    assert sides["left"] >= sides["right"]
    # both orientations happen: which response is on the left is random
    firsts = [case for case in range(20)
              if order_queue(items, case)[0]["item_id"] < order_queue(items, case)[1]["item_id"]]
    assert 0 < len(firsts) < 20


def test_overlap_shares_a_fraction_with_everyone_and_deals_out_the_rest():
    items = [ItemRef(f"i-{k:02d}", "c") for k in range(20)]
    shares = share_out(items, ["a", "b"], 0.5, blinding_seed=9)
    both = set(i.id for i in shares["a"]) & set(i.id for i in shares["b"])
    assert len(both) == 10
    covered = set(i.id for i in shares["a"]) | set(i.id for i in shares["b"])
    assert covered == {i.id for i in items}
    assert len(shares["a"]) == len(shares["b"]) == 15


def test_overlap_in_a_study_still_gives_every_rater_the_pilots(db):
    sid = make_study(db, overlap=0.5)
    prepare_study(db, sid)
    a = {q["item_id"] for q in blind_rows.assignments(db, sid, "rater-a")}
    b = {q["item_id"] for q in blind_rows.assignments(db, sid, "rater-b")}
    pilots = {i["id"] for i in blind_rows.blind_items(db, sid) if i["pilot"]}
    assert pilots <= a and pilots <= b
    assert a | b == {i["id"] for i in blind_rows.blind_items(db, sid)}
    assert a != b
