"""`export table`: every protocol's study as tidy CSV tables whose datapackage.json declares every column,
whose values parse as declared, and whose keys join; refused while blind; written whole or not at all."""

from __future__ import annotations

import csv
import json
from datetime import datetime

import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.files import WriteError, write_folder


def export(db, study, out, *extra) -> int:
    return main(["--batch", "--db", str(db), "export", "table", study, "--out", str(out), *extra])


PARSE = {"integer": int, "number": float, "string": str, "datetime": datetime.fromisoformat,
         "boolean": lambda v: {"true": True, "false": False}[v]}


def test_the_package_declares_every_column_and_its_values_parse_and_join(built, tmp_path):
    out = tmp_path / "tables"
    assert export(built.db, built.study, out) == 0
    package = json.loads((out / "datapackage.json").read_text())
    assert package["name"] == built.study and package["workbench"]["freeze_hash"]
    resources = {r["name"]: r for r in package["resources"]}
    assert {"runs", "calls", "outputs"} <= set(resources)
    assert sorted(p.name for p in out.glob("*.csv")) == sorted(r["path"] for r in resources.values())
    columns: dict[str, dict[str, list[str]]] = {}
    for name, resource in resources.items():
        with open(out / resource["path"], newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
            header = next(csv.reader(open(out / resource["path"], newline="", encoding="utf-8")))
        fields = resource["schema"]["fields"]
        assert header == [f["name"] for f in fields], name               # every column declared, in order
        for f in fields:
            assert f["description"]
            values = [r[f["name"]] for r in rows if r[f["name"]] != ""]
            for v in values:
                PARSE[f["type"]](v)                                        # types parse
            if "enum" in f.get("constraints", {}):
                assert set(values) <= {str(e) for e in f["constraints"]["enum"]}, (name, f["name"])
            if f.get("constraints", {}).get("required"):
                assert len(values) == len(rows), (name, f["name"])
        key = resource["schema"].get("primaryKey")
        if key:
            assert len({tuple(r[k] for k in key) for r in rows}) == len(rows), (name, key)  # keys unique
        columns[name] = {f["name"]: [r[f["name"]] for r in rows] for f in fields}
    for name, resource in resources.items():                              # foreign keys join
        for fk in resource["schema"].get("foreignKeys", []):
            target = columns[fk["reference"]["resource"]][fk["reference"]["fields"][0]]
            values = {v for v in columns[name][fk["fields"][0]] if v}
            assert values <= set(target), (name, fk)
    assert len(columns["runs"]["run_id"]) == sqlite_count(built.db, "runs", built.study)
    assert len(columns["calls"]["call_id"]) == sqlite_count(built.db, "calls", built.study)


def sqlite_count(db, table, study) -> int:
    import sqlite_utils

    return sqlite_utils.Database(db)[table].count_where("study_id = ?", [study])


def test_pandas_reads_every_table_unchanged(built, tmp_path):
    out = tmp_path / "tables"
    assert export(built.db, built.study, out, "--with-text") == 0
    runs = pd.read_csv(out / "runs.csv")
    calls = pd.read_csv(out / "calls.csv")
    assert len(runs) == sqlite_count(built.db, "runs", built.study)
    assert {"request", "response"} <= set(calls.columns)
    joined = calls.merge(runs, on=["study_id", "run_id"], how="inner")
    assert len(joined) == calls["run_id"].notna().sum()


def test_calls_carry_no_text_unless_asked(built, tmp_path):
    out = tmp_path / "tables"
    assert export(built.db, built.study, out) == 0
    assert "response" not in (out / "calls.csv").read_text().splitlines()[0].split(",")


def test_scores_once_unblinded_with_rater_condition_and_criterion(blinded, tmp_path, capsys):
    capsys.readouterr()
    assert export(blinded.pre_unblind, blinded.study, tmp_path / "refused") == 1
    assert "still blind" in capsys.readouterr().err and not (tmp_path / "refused").exists()
    out = tmp_path / "tables"
    assert export(blinded.db, blinded.study, out) == 0
    scores = pd.read_csv(out / "scores.csv")
    study_items = scores[scores["pilot"] == False]  # noqa: E712 (a pandas column, not a bool)
    assert len(study_items) and study_items["condition"].notna().all() and scores["rater"].notna().all()
    assert scores[scores["pilot"] == True]["condition"].isna().all()  # noqa: E712
    import sqlite_utils

    store = sqlite_utils.Database(blinded.db)
    human = store.execute("select count(distinct rater || item_id || rubric_hash || criterion) from scores "
                          "where study_id = ? and value is not null", [blinded.study]).fetchone()[0]
    assert (scores["rater_kind"] == "human").sum() == human


def test_a_failed_write_leaves_the_previous_export_untouched(tmp_path):
    out = tmp_path / "tables"
    out.mkdir()
    (out / "runs.csv").write_text("old\n")

    def half_then_fail(tmp):
        (tmp / "runs.csv").write_text("new\n")
        raise OSError(28, "No space left on device", str(tmp / "calls.csv"))

    with pytest.raises(WriteError) as caught:
        write_folder(out, half_then_fail, replace=True)
    assert "calls.csv" in str(caught.value) and "No space left" in str(caught.value)
    assert (out / "runs.csv").read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tables"]          # no temporary sibling left behind
