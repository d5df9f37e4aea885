"""Importing interactions: bad records named by file, line and column; good ones load; re-import adds nothing."""

from __future__ import annotations

import json

import pytest

from store.items import count_items, get_item
from tests.protocols.calibration.calkit import definition, make_db, save
from workbench.protocols.calibration.importer import ImportRefused, import_file

HEADER = "run_id,interaction_id,scenario,v_hat,ground_truth,content,accepted,rework_count\n"


@pytest.fixture
def study(tmp_path):
    db, _ = make_db(tmp_path)
    sid = save(db, definition())
    yield db, sid
    db.close()


def test_csv_bad_rows_are_named_and_the_rest_load(study, tmp_path):
    db, sid = study
    f = tmp_path / "inter.csv"
    f.write_text(HEADER +
                 "r1,a,negotiation,0.5,1,Fine text,true,2\n"          # line 2: good
                 "r1,b,negotiation,abc,1,Text,true,0\n"                # line 3: v_hat
                 "r1,c,planning,0.1,0,Text,true,0\n"                   # line 4: ground_truth
                 '"r1","d","planning","0.2","-1","multi\nline text","false","4"\n'   # lines 5-6: good
                 "r1,e,planning,0.3,1,,true,1\n"                       # line 7: content
                 "r1,f,planning,0.3\n"                                 # line 8: field count
                 "r2,a,support,-1.5,-1,Other text,yes,3\n", encoding="utf-8")   # line 9: good
    progress = []
    s = import_file(db, sid, f, progress=lambda done, total: progress.append((done, total)))
    got = [(p.line, p.field) for p in s.problems]
    assert got == [(3, "v_hat"), (4, "ground_truth"), (7, "content"), (8, "row")]
    assert all(p.file == str(f) for p in s.problems)
    assert "must be +1 or -1" in str(s.problems[1]) and str(s.problems[1]).startswith(f"{f}:4: ground_truth:")
    assert (s.added, s.bad, s.records) == (3, 4, 7)
    assert count_items(db, sid) == 3
    d = get_item(db, sid, "r1:d")["payload"]
    assert d["content"] == "multi\nline text" and d["accepted"] is False and d["observables"] == {"rework_count": 4}
    assert get_item(db, sid, "r2:a")["payload"]["ground_truth"] == -1
    assert progress[-1][0] == 7


def test_jsonl_bad_records_and_reimport_adds_nothing(study, tmp_path):
    db, sid = study
    f = tmp_path / "inter.jsonl"
    good = {"run_id": "r1", "interaction_id": "x", "scenario": "s", "v_hat": 1.2, "ground_truth": 1,
            "text": "artifact", "observables": {"rework_count": 2}, "tool_misuse_flags": 1}
    lines = [json.dumps(good), "{not json", json.dumps([1, 2]),
             json.dumps({**good, "interaction_id": "y", "v_hat": "NaN"}),
             json.dumps({**good, "interaction_id": "z", "ground_truth": 0}),
             json.dumps({**good, "interaction_id": "w"}),
             json.dumps({**good, "interaction_id": "x"})]          # a duplicate inside the file
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    s = import_file(db, sid, f)
    assert [(p.line, p.field) for p in s.problems] == [(2, "json"), (3, "json"), (4, "v_hat"), (5, "ground_truth")]
    assert (s.added, s.already_present) == (2, 1)
    assert get_item(db, sid, "r1:x")["payload"]["observables"] == {"rework_count": 2, "tool_misuse_flags": 1}
    again = import_file(db, sid, f)
    assert again.added == 0 and again.already_present == 3 and again.conflicting == 0
    assert count_items(db, sid) == 2
    # the same id with different content: reported, the stored record kept
    f2 = tmp_path / "changed.jsonl"
    f2.write_text(json.dumps({**good, "text": "a different artifact"}) + "\n", encoding="utf-8")
    s2 = import_file(db, sid, f2)
    assert s2.conflicting == 1 and s2.problems[0].field == "interaction_id" and s2.problems[0].line == 1
    assert get_item(db, sid, "r1:x")["payload"]["content"] == "artifact"


def test_missing_columns_and_unknown_format_are_refused_whole(study, tmp_path):
    db, sid = study
    f = tmp_path / "short.csv"
    f.write_text("run_id,interaction_id,v_hat\nr,1,0.2\n", encoding="utf-8")
    s = import_file(db, sid, f)
    assert s.added == 0 and s.problems[0].line == 1 and s.problems[0].field == "header"
    assert "scenario" in s.problems[0].message and "content" in s.problems[0].message
    g = tmp_path / "data.xlsx"
    g.write_text("x", encoding="utf-8")
    assert import_file(db, sid, g).problems[0].field == "file"


def test_frozen_study_refuses_import(study, tmp_path):
    db, sid = study
    db.execute("UPDATE studies SET frozen_at = '2026-01-01T00:00:00' WHERE id = ?", [sid])
    f = tmp_path / "x.csv"
    f.write_text(HEADER + "r1,a,s,0.5,1,t,true,1\n", encoding="utf-8")
    with pytest.raises(ImportRefused, match="frozen"):
        import_file(db, sid, f)
    assert count_items(db, sid) == 0
