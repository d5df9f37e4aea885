"""`workbench --batch evaluators override|review|audit`: what each prints, records and refuses (qc is held by
tests/evaluators/test_sim_quality.py, tests/screens/test_evaluator_panel.py and the contract suite)."""

from __future__ import annotations

import json

import pytest

from store import open_store
from store.quality import decisions, planted, planted_audits, reviews
from tests.evaluators.helpers import quality_study
from tests.evaluators.test_review import JUDGE, judged
from workbench.blinding.items import prepare_study
from workbench.cli.main import main


@pytest.fixture
def path(tmp_path, monkeypatch):
    # the fixture studies freeze rubric texts of their own under the shipped rubrics' ids: keep the shipped
    # library out of this store (the command would refuse it as an edit of a frozen rubric)
    monkeypatch.setattr("workbench.cases.library.bootstrap", lambda db: None)
    return tmp_path / "cli.db"


def batch(path, *argv: str, json_out: bool = False) -> int:
    return main(["--batch", "--db", str(path), *(["--json"] if json_out else []), "evaluators", *argv])


def test_override_records_the_decision_with_its_reason_and_says_so(path, capsys):
    db = open_store(path)
    sid = quality_study(db)
    assert batch(path, "override", sid, "rater-b", "--exclude", "--reason", "left early", "--by", "ana") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"study {sid}  protocol hindsight\n")
    assert ("rater-b excluded from the tables of harbor-study by ana (an override, printed in the report as a "
            "deviation): left early") in out
    assert [(d["evaluator"], d["excluded"], d["by"]) for d in decisions(db, sid)] == [("rater-b", 1, "ana")]
    assert batch(path, "override", sid, "rater-b", "--include", "--reason", "came back", "--by", "ana",
                 json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["study"] == sid and doc["protocol"] == "hindsight" and doc["ok"] is True
    assert doc["evaluator"] == "rater-b" and doc["excluded"] is False and doc["reason"] == "came back"
    assert "quality" not in doc


def test_override_refuses_an_unknown_evaluator_and_an_unknown_study(path, capsys):
    db = open_store(path)
    sid = quality_study(db)
    assert batch(path, "override", sid, "rater-z", "--exclude", "--reason", "x") == 1
    assert "'rater-z' is not an evaluator of study 'harbor-study'" in capsys.readouterr().err
    assert batch(path, "override", "no-such", "rater-a", "--exclude", "--reason", "x") == 1
    assert "no-such" in capsys.readouterr().err
    assert decisions(db, sid) == []


def test_review_lists_the_sample_then_marks_a_verdict(path, capsys):
    db = open_store(path)
    sid = judged(db)
    assert batch(path, "review", sid, "--judge", "judge-a", "--sample", "3", json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["study"] == sid and doc["judge"] == "judge-a" and len(doc["sample"]) == 3
    verdict = doc["sample"][0]["verdict_id"]
    assert batch(path, "review", sid, "--judge", "judge-a", "--verdict", str(verdict), "--correct", "1",
                 "--reason", "no trap named", "--by", "ana") == 0
    out = capsys.readouterr().out
    assert f"verdict {verdict} of judge-a marked corrected 2 -> 1 by ana (the verdict itself is kept" in out
    assert [(r["verdict_id"], r["corrected"]) for r in reviews(db, sid)] == [(verdict, 1)]
    assert batch(path, "review", sid, "--judge", "judge-a", "--verdict", str(verdict), "--right") == 0
    assert "marked right" in capsys.readouterr().out


def test_review_refuses_half_a_mark_and_an_unknown_judge(path, capsys):
    db = open_store(path)
    sid = judged(db)
    assert batch(path, "review", sid, "--judge", "judge-a", "--right") == 2
    assert "name the verdict to mark with --verdict ID" in capsys.readouterr().err
    assert batch(path, "review", sid, "--judge", "judge-a", "--verdict", "1") == 2
    assert "say --right or --correct SCORE" in capsys.readouterr().err
    assert batch(path, "review", sid, "--judge", "nobody") == 1
    assert "not a judge" in capsys.readouterr().err
    assert batch(path, "review", "no-such", "--judge", "judge-a") == 1
    assert "no-such" in capsys.readouterr().err
    assert reviews(db, sid) == []


def test_audit_asks_the_first_judge_model_about_real_and_gold_items(path, capsys, loopback_server):
    db = open_store(path)
    sid = quality_study(db, pilot_items=False, judges=[{**JUDGE, "model": "openai/auditor",
                                                        "api_base": loopback_server.url}])
    prepare_study(db, sid)
    gold = {i for i, p in planted(db, sid).items() if p["kind"] == "gold"}
    loopback_server.responder = lambda body: json.dumps({"guess": "study", "reason": "reads like the rest"})
    assert batch(path, "audit", sid, json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["model"], doc["gold"], doc["gold_called_check"], doc["real"]) == ("openai/auditor", len(gold), 0, 7)
    assert doc["ok"] is True and doc["p_value"] == 1.0 and doc["leak_suspected"] is False
    assert len(planted_audits(db, sid, "openai/auditor")) == len(gold) + 7
    assert batch(path, "audit", sid) == 0  # everything audited already: no call, the same aggregates
    assert "planted-item audit (openai/auditor): gold items called check 0/2, real items 0/7" in capsys.readouterr().out
    assert len(loopback_server.requests) == len(gold) + 7


def test_audit_needs_a_model(path, capsys):
    db = open_store(path)
    sid = quality_study(db, judges=[])
    assert batch(path, "audit", sid) == 1
    assert "the planted-item audit needs a model: pass --model or name a judge" in capsys.readouterr().err
    assert batch(path, "audit", "no-such", "--model", "openai/x") == 1
    assert "no-such" in capsys.readouterr().err


def test_review_lists_the_study_s_pre_registered_sample_unless_told(path, capsys):
    db = open_store(path)
    sid = judged(db)
    definition = json.loads(db["studies"].get(sid)["definition"])
    definition["quality"]["review_sample"] = 4
    db["studies"].update(sid, {"definition": json.dumps(definition)})
    assert batch(path, "review", sid, "--judge", "judge-a", json_out=True) == 0
    assert len(json.loads(capsys.readouterr().out)["sample"]) == 4
    assert batch(path, "review", sid, "--judge", "judge-a", "--sample", "6", json_out=True) == 0
    assert len(json.loads(capsys.readouterr().out)["sample"]) == 6
