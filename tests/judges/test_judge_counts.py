"""Issue 24 item 7: judging is counted in one unit, item-rubric pairs (`workbench.rubrics.units`), with the
same figures in the progress lines, the summary, `judge --json`, `study show`, the metrics' Judge errors
table and counts; a judging that left judge errors does not end in "ok". The expected figures are counted
here from the store's verdict rows (distinct judge, item, rubric version), not from the code under test."""

from __future__ import annotations

import json

from scripted import anticipation_only_judge

from store import open_store
from tests.screens.scoring_seed import seed_study
from workbench.cli.main import main
from workbench.rubrics import units

PAIRS_PER_ITEM = 3   # anticipation, epistemic-humility, and the case's own glenda-crock rubric


def _judge(capsys, path, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def _pairs_in_store(path, sid) -> tuple[int, int]:
    """(pairs, judge-error pairs) counted by hand from the verdict rows."""
    db = open_store(path)
    try:
        rows = list(db["verdicts"].rows_where("study_id = ?", [sid]))
        items = db.execute("SELECT count(*) FROM blind_items WHERE study_id = ?", [sid]).fetchone()[0]
    finally:
        db.close()
    pairs: dict[tuple, bool] = {}
    for r in rows:
        key = (r["judge"], r["item_id"], r["rubric_hash"])
        pairs[key] = pairs.get(key, False) or r["status"] == "judge_error"
    assert len(pairs) == items * PAIRS_PER_ITEM
    return len(pairs), sum(pairs.values())


def test_progress_summary_json_and_tables_count_the_same_pairs(tmp_path, capsys, loopback_server):
    loopback_server.responder = anticipation_only_judge
    text_store, json_store = tmp_path / "text.db", tmp_path / "json.db"
    sid = seed_study(text_store, judge_api_base=loopback_server.url)["study_id"]
    assert seed_study(json_store, judge_api_base=loopback_server.url)["study_id"] == sid

    code, out, err = _judge(capsys, text_store, "judge", sid)
    assert code == 0, err
    n, errors = _pairs_in_store(text_store, sid)
    assert (n, errors) == (6, 4)  # 2 items x 3 rubrics; only Anticipation's 2 pairs validate

    progress = [line for line in err.splitlines() if line.startswith("judge-a: ")]
    assert len(progress) == n
    assert sorted(int(line.rsplit("(", 1)[1].split("/")[0]) for line in progress) == list(range(1, n + 1))
    assert all(line.endswith(f"/{n} {units.PAIRS})") for line in progress)
    assert sum(": judge error (" in line for line in progress) == errors

    expected = f"{n}/{n} {units.PAIRS} judged: {n - errors} ok, {errors} judge errors"
    lines = out.strip().splitlines()
    assert expected in lines[1]
    assert lines[-1].startswith(f"done with {errors} judge errors (item-rubric pairs") and lines[-1] != "ok"

    code, out, err = _judge(capsys, json_store, "--json", "judge", sid)
    assert code == 0, err
    doc = json.loads(out)
    (j,) = doc["judges"]
    assert (j["unit"], j["to_judge"], j["judged"], j["ok"], j["judge_errors"]) == (
        units.PAIRS, n, n, n - errors, errors)
    assert (j["study_judged"], j["study_judge_errors"]) == (n, errors)
    assert doc["ok"] is True and doc["outcome"] == lines[-1]

    # again: nothing left to judge, but the study still holds the judge errors, and the summary says so
    code, out, _ = _judge(capsys, text_store, "judge", sid)
    again = out.strip().splitlines()
    assert f"0/0 {units.PAIRS} judged" in again[1] and f"{n} already judged" in again[1]
    assert again[2].strip() == f"in the study: {n} {units.PAIRS} judged: {n - errors} ok, {errors} judge errors"
    assert again[-1] == lines[-1]

    # study show and the metrics count the same pairs
    _, show, _ = _judge(capsys, text_store, "study", "show", sid)
    assert f"{n} {units.PAIRS} judged: {n - errors} ok, {errors} judge errors" in show
    _, metrics, _ = _judge(capsys, text_store, "--json", "metrics", sid)
    m = json.loads(metrics)
    assert (m["counts"]["judged_pairs"], m["counts"]["judge_error_pairs"]) == (n, errors)
    (row,) = [r for r in m["agreement"]["judge_errors"] if r["condition"] is None]
    assert (row["error_pairs"], row["ok_pairs"], row["error_items"]) == (errors, n - errors, 2)
    _, table, _ = _judge(capsys, text_store, "metrics", sid)
    assert f"Counted in {units.PAIRS}" in table
    assert any(line.split()[:5] == ["judge-a", "all", str(errors), "2", str(n - errors)] for line in table.splitlines())


def test_a_clean_judging_ends_in_ok(tmp_path, capsys, loopback_server):
    from scripted import naive_judge

    loopback_server.responder = naive_judge
    path = tmp_path / "store.db"
    sid = seed_study(path, judge_api_base=loopback_server.url)["study_id"]
    code, out, _ = _judge(capsys, path, "judge", sid)
    assert code == 0 and out.strip().splitlines()[-1] == "ok"
    assert f"6/6 {units.PAIRS} judged: 6 ok, 0 judge errors" in out
