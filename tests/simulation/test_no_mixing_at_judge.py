"""The judge half of sim/real no-mixing (issue 16): `judge` (and `judge --audit-model`) refuses before any
call to mix simulated and real models in one study, whatever the command line says."""

from __future__ import annotations

import sqlite_utils

from store.calls import add_call, study_models
from tests.simulation.helpers import created, hindsight_study
from workbench.cli.main import main

def create(tmp_path, name: str, model: str):
    return created(tmp_path, name, hindsight_study(name, model))


def calls(db, study: str) -> int:
    return sqlite_utils.Database(db)["calls"].count_where("study_id = ?", [study])


def test_an_audit_model_that_is_real_is_refused_on_a_sim_study(tmp_path, capsys):
    db = create(tmp_path, "dry", "sim")
    assert main(["--batch", "--db", str(db), "run", "dry"]) == 0
    before = calls(db, "dry")
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), "judge", "dry", "--audit", "--audit-model", "openai/gpt-4o-mini"])
    err = capsys.readouterr().err
    assert code == 1
    assert "SIMULATED study" in err and "cannot run on openai/gpt-4o-mini" in err
    # refused before anything: no judge call either (the sim judge would have run first)
    assert calls(db, "dry") == before and study_models(sqlite_utils.Database(db), "dry") == {"sim"}
    assert sqlite_utils.Database(db)["verdicts"].count_where("study_id = ?", ["dry"]) == 0


def test_sim_as_the_audit_model_of_a_real_study_is_refused(tmp_path, capsys):
    db = create(tmp_path, "real", "mock")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "judge", "real", "--audit-only", "--audit-model", "sim"]) == 1
    assert "the `sim` model cannot add simulated data" in capsys.readouterr().err
    assert calls(db, "real") == 0


def test_a_judge_run_on_a_sim_study_whose_log_holds_a_real_call_is_refused(tmp_path, capsys):
    db = create(tmp_path, "mixed", "sim")
    assert main(["--batch", "--db", str(db), "run", "mixed"]) == 0
    add_call(sqlite_utils.Database(db), {"study_id": "mixed", "call_key": "k", "attempt": 1, "replicate": 0,
                                         "sample": 0, "model": "openai/gpt-4o", "request": [], "settings": {},
                                         "status": "ok", "started_at": "2026-01-01T00:00:00Z"})
    before = calls(db, "mixed")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "judge", "mixed"]) == 1
    assert "cannot run on openai/gpt-4o" in capsys.readouterr().err
    assert calls(db, "mixed") == before


def test_judging_a_clean_sim_study_still_works(tmp_path):
    db = create(tmp_path, "clean", "sim")
    assert main(["--batch", "--db", str(db), "run", "clean"]) == 0
    assert main(["--batch", "--db", str(db), "judge", "clean"]) == 0
    assert study_models(sqlite_utils.Database(db), "clean") == {"sim"}
    assert sqlite_utils.Database(db)["verdicts"].count_where("study_id = ? AND status = 'ok'", ["clean"]) > 0
