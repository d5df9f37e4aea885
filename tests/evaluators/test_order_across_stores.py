"""One study gives one evaluator order in every fresh store (issue 42 item 10: the README's main job, run in two
new stores, gave rater-b a longest run of 8 and 14, drift −0.40 and +0.40, because the opaque item ids each store
draws ordered the items before the seeded shuffle, and a judge's order was the order its verdicts finished)."""

from __future__ import annotations

from store import blind as blind_rows
from store import open_memory_store
from tests.blinding.study_fixture import make_study
from workbench.blinding.items import prepare_study
from workbench.evaluators.study import judge_order


def _queues(db, sid) -> dict[str, list[str]]:
    """Each rater's queue as the items' texts in position order (ids differ between stores; texts do not)."""
    text = {i["id"]: (i["case_id"], i["text"]) for i in blind_rows.blind_items(db, sid)}
    out: dict[str, list] = {}
    for a in sorted(blind_rows.assignments(db, sid), key=lambda a: (a["rater"], a["position"])):
        out.setdefault(a["rater"], []).append(text[a["item_id"]])
    return out


def test_two_fresh_stores_deal_one_studys_raters_one_order():
    queues = []
    for _ in range(2):
        db = open_memory_store()
        sid = make_study(db, replicates=3)
        prepare_study(db, sid)
        queues.append(_queues(db, sid))
    assert queues[0] == queues[1] and len(queues[0]["rater-a"]) > 4
    assert queues[0]["rater-a"] != queues[0]["rater-b"]    # still each rater's own order


def test_a_judges_order_is_drawn_from_the_seed_and_the_items_content_not_their_ids():
    items = [{"id": f"i-{k}", "case_id": "c", "text": f"response {k}"} for k in range(8)]
    renamed = [{**i, "id": f"x-{7 - k}"} for k, i in enumerate(items)]   # another store's opaque ids
    a, b = judge_order(items, 3, "judge-1"), judge_order(renamed, 3, "judge-1")
    by_text = lambda order, rows: sorted(rows, key=lambda i: order[i["id"]])
    assert [i["text"] for i in by_text(a, items)] == [i["text"] for i in by_text(b, renamed)]
    other = judge_order(items, 4, "judge-1")
    assert [i["text"] for i in by_text(other, items)] != [i["text"] for i in by_text(a, items)]
