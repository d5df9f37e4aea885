"""The runner walks a study's runs a page at a time (store.runs.iter_runs) instead of holding them all."""

from __future__ import annotations

from store import open_memory_store
from store.runs import ensure_runs, finish_run, iter_runs, list_runs


def _store_with_runs(n: int):
    db = open_memory_store()
    db.conn.execute("PRAGMA foreign_keys = OFF")  # run rows alone: the study row is not what is walked
    plans = [{"id": f"s/c{i % 7}/B{i % 3}/{i}", "case_id": f"c{i % 7}", "condition": f"B{i % 3}", "replicate": i}
             for i in range(n)]
    ensure_runs(db, "s", plans)
    return db


def test_the_walk_reads_every_run_once_in_list_order_across_pages():
    db = _store_with_runs(23)
    for page in (1, 2, 5, 23, 1000):
        assert list(iter_runs(db, "s", page=page)) == list_runs(db, "s"), page


def test_a_run_that_changes_behind_the_walk_is_not_read_again_and_one_ahead_is_read_as_it_is_then():
    db = _store_with_runs(10)
    rows = list_runs(db, "s")
    walk = iter_runs(db, "s", page=3)
    seen = [next(walk)]
    finish_run(db, rows[0]["id"], "done")      # behind the walk
    finish_run(db, rows[-1]["id"], "failed")   # ahead of it, on a page not read yet
    seen += list(walk)
    assert [r["id"] for r in seen] == [r["id"] for r in rows]
    assert seen[-1]["status"] == "failed"
