"""`calibration import` on files it cannot load: exit 1, the file and the column named, nothing half-loaded;
a byte-order mark is read; one field limit in CSV and JSONL (issue 31, item 11)."""

from __future__ import annotations

import json

import pytest

from store.items import count_items
from tests.protocols.calibration.calkit import definition, make_db, save
from workbench.cli.main import main
from workbench.protocols.calibration.records import MAX_FIELD_CHARS

HEADER = "run_id,interaction_id,scenario,v_hat,ground_truth,content"
ROW = "r1,a,planning,0.5,1,Fine text"


@pytest.fixture
def db_path(tmp_path):
    db, path = make_db(tmp_path)
    save(db, definition("cal-imp"))
    db.close()
    return path


def run_import(capsys, db_path, f) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db_path), "--json", "calibration", "import", "cal-imp", str(f)])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def items(db_path) -> int:
    from store import open_store

    db = open_store(db_path)
    try:
        return count_items(db, "cal-imp")
    finally:
        db.close()


@pytest.mark.parametrize("name, text, field, words", [
    ("missing.csv", "run_id,interaction_id,scenario,ground_truth,content\nr1,a,s,1,t\n", "header", "v_hat"),
    ("notes.txt", HEADER + "\n" + ROW + "\n", "file", "unknown format '.txt'"),
    ("empty.csv", "", "file", "is empty"),
    ("header-only.csv", HEADER + "\n", "file", "holds no records"),
    ("empty.jsonl", "\n\n", "file", "holds no records"),
])
def test_a_file_that_loads_nothing_exits_1_and_names_file_and_column(capsys, db_path, tmp_path, name, text, field,
                                                                      words):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    code, doc, _ = run_import(capsys, db_path, f)
    assert code == 1 and doc["ok"] is False and doc["added"] == 0
    problem = doc["problems"][0]
    assert problem["file"] == str(f) and problem["field"] == field and words in problem["message"]
    assert items(db_path) == 0


def test_a_utf8_byte_order_mark_is_read(capsys, db_path, tmp_path):
    """Excel's "CSV UTF-8" starts with a BOM: the first column is still `run_id`."""
    f = tmp_path / "excel.csv"
    f.write_bytes(("\ufeff" + HEADER + "\n" + ROW + "\n").encode("utf-8"))
    code, doc, _ = run_import(capsys, db_path, f)
    assert (code, doc["ok"], doc["added"], doc["problems"]) == (0, True, 1, [])
    bom_jsonl = tmp_path / "excel.jsonl"
    record = {"run_id": "r2", "interaction_id": "b", "scenario": "s", "v_hat": 0.1, "ground_truth": -1,
              "content": "text"}
    bom_jsonl.write_bytes(("\ufeff" + json.dumps(record) + "\n").encode("utf-8"))
    code, doc, _ = run_import(capsys, db_path, bom_jsonl)
    assert (code, doc["added"]) == (0, 1)
    assert items(db_path) == 2


def test_a_field_over_the_limit_is_refused_alike_in_csv_and_jsonl(capsys, db_path, tmp_path):
    big = "x" * (MAX_FIELD_CHARS + 1)          # just over the project's limit
    huge = "y" * (2 * 131_072)                 # past the csv module's own default limit as well
    csv_file = tmp_path / "big.csv"
    csv_file.write_text(HEADER + "\n" + f"r1,a,s,0.5,1,{big}\nr1,b,s,0.5,1,{huge}\nr1,c,s,0.5,1,ok\n",
                        encoding="utf-8")
    code, doc, _ = run_import(capsys, db_path, csv_file)
    assert code == 1 and doc["added"] == 1 and doc["bad"] == 2
    assert [(p["line"], p["field"]) for p in doc["problems"]] == [(2, "content"), (3, "content")]
    assert f"the limit is {MAX_FIELD_CHARS:,}" in doc["problems"][0]["message"]
    jsonl = tmp_path / "big.jsonl"
    base = {"run_id": "r2", "scenario": "s", "v_hat": 0.5, "ground_truth": 1}
    jsonl.write_text("\n".join(json.dumps(r) for r in (
        {**base, "interaction_id": "a", "content": big}, {**base, "interaction_id": "b", "content": huge},
        {**base, "interaction_id": "c", "content": "ok", "observables": {"note": big}})) + "\n", encoding="utf-8")
    code, doc, _ = run_import(capsys, db_path, jsonl)
    assert code == 1 and doc["added"] == 0 and doc["bad"] == 3
    assert [(p["line"], p["field"]) for p in doc["problems"]] == [(1, "content"), (2, "content"),
                                                                  (3, "observables.note")]
    assert doc["problems"][0]["message"] == csv_messages(capsys, db_path, csv_file)[0]
    assert items(db_path) == 1


def csv_messages(capsys, db_path, f) -> list[str]:
    """The CSV's problems again (a re-import reads the file again; the loaded row is already present)."""
    return [p["message"] for p in run_import(capsys, db_path, f)[1]["problems"]]


def test_a_file_with_every_record_good_exits_0_and_again_adds_nothing(capsys, db_path, tmp_path):
    f = tmp_path / "good.csv"
    f.write_text(HEADER + "\n" + ROW + "\n", encoding="utf-8")
    code, doc, _ = run_import(capsys, db_path, f)
    assert (code, doc["ok"], doc["added"]) == (0, True, 1)
    code, doc, _ = run_import(capsys, db_path, f)
    assert (code, doc["ok"], doc["added"], doc["already_present"]) == (0, True, 0, 1)
