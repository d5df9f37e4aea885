"""Issue 43 item 5: `study show` counted 72 judged item-rubric pairs and Metrics 60, gold items counted in one and
not the other, and neither said which. The study's counts (`study show`'s and the Studies detail's counts line,
and their JSON) now say which items they cover, from the one definition (workbench.rubrics.units), and the numbers
are checked against the store's rows by hand."""

from __future__ import annotations

import json
import sqlite3

from tests.hardening.conftest import STUDY, batch, study_toml
from workbench.rubrics import units


def _pairs(db, planted: bool | None = None) -> int:
    """(judge, item, rubric) pairs with a verdict, counted from the tables: all, or only the planted items' or
    only the others'."""
    where = "" if planted is None else (" AND item_id IN (SELECT item_id FROM planted_items)" if planted
                                        else " AND item_id NOT IN (SELECT item_id FROM planted_items)")
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(DISTINCT judge || '|' || item_id || '|' || rubric_hash) FROM verdicts "
                            f"WHERE study_id = ?{where}", [STUDY]).fetchone()[0]


def test_study_show_says_its_judged_pairs_include_gold_items(tmp_path, cases_dir, capsys):
    db = tmp_path / "store.db"
    study_file = tmp_path / f"{STUDY}.toml"
    study_file.write_text(study_toml(("B1",)) + "\n[quality]\ngold_rate = 1.0\n")
    for argv in (("study", "create", str(study_file)), ("run", STUDY), ("judge", STUDY)):
        code, _, err = batch(capsys, db, *argv)
        assert code in (0, 1), err  # the mock judge never validates: its pairs are judge errors, still judged
    gold = _pairs(db, planted=True)
    assert gold > 0 and _pairs(db, planted=False) > 0

    from store import open_store
    from workbench.studies.counts import study_counts

    store = open_store(db)
    counts = study_counts(store, STUDY)
    store.close()
    assert counts.judged == _pairs(db) and counts.to_dict()["judged_items"] == units.EVERY_ITEM
    assert f"{units.pairs(_pairs(db))} judged: " in counts.calls_text(), counts.calls_text()
    assert counts.calls_text().endswith(f"judge errors ({units.EVERY_ITEM})"), counts.calls_text()
    assert units.EVERY_ITEM == "counting pilot, gold and attention items"

    code, out, err = batch(capsys, db, "--json", "metrics", STUDY)
    assert json.loads(out)["counts"]["judged_pairs"] == _pairs(db) - gold  # the tables leave the gold items out
