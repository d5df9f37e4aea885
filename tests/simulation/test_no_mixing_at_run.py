"""The run-time half of sim/real no-mixing (issue 16): the runner refuses before its first call."""

from __future__ import annotations

import sqlite_utils

from store.calls import add_call, study_models
from tests.simulation.helpers import created, hindsight_study
from workbench.cli.main import main
from workbench.simmodel.label import run_models, run_refusal

def create(tmp_path, name: str, model: str):
    return created(tmp_path, name, hindsight_study(name, model, judged=False))


def log_call(db, study: str, model: str) -> None:
    add_call(sqlite_utils.Database(db), {"study_id": study, "call_key": "k", "attempt": 1, "replicate": 0, "sample": 0, "model": model, "request": [],
                                         "settings": {}, "status": "ok", "started_at": "2026-01-01T00:00:00Z"})


def test_a_sim_study_with_a_real_call_in_its_log_is_refused_before_any_call(tmp_path, capsys):
    db = create(tmp_path, "dry", "sim")
    log_call(db, "dry", "openai/gpt-4o-mini")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "run", "dry"]) == 1
    err = capsys.readouterr().err
    assert "SIMULATED study" in err and "cannot run on openai/gpt-4o-mini" in err
    assert study_models(sqlite_utils.Database(db), "dry") == {"openai/gpt-4o-mini"}   # nothing was added


def test_sim_on_a_study_with_real_calls_is_refused(tmp_path, capsys):
    db = create(tmp_path, "real", "mock")
    log_call(db, "real", "sim")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "run", "real"]) == 1
    assert "the `sim` model cannot add simulated data" in capsys.readouterr().err


def test_a_clean_sim_study_runs_and_another_model_for_it_is_refused(tmp_path):
    db = create(tmp_path, "clean", "sim")
    assert main(["--batch", "--db", str(db), "run", "clean"]) == 0
    definition = {"name": "clean", "protocol": "hindsight", "model": {"name": "sim"}, "judges": []}
    logged = study_models(sqlite_utils.Database(db), "clean")
    assert logged == {"sim"} and run_refusal(definition, logged) is None
    # what `run --model X` (or a settings override) would make it call
    assert "cannot run on anthropic/claude" in run_refusal(definition, logged, using=["anthropic/claude"])
    # a protocol's own model tables count as the study's models
    faultline = {"name": "f", "protocol": "faultline", "model": {"name": "sim"},
                 "faultline": {"extractor": {"name": "openai/gpt-4o"}, "rounds": 2}}
    assert run_models(faultline) == ["sim", "openai/gpt-4o"]
    assert "cannot run on openai/gpt-4o" in run_refusal(faultline, set())


def test_study_show_says_simulated(tmp_path, capsys):
    """`study show` carries the label on its first line, as the report and the screens do."""
    from pathlib import Path

    from workbench.cli.main import main

    root = Path(__file__).resolve().parents[2]
    db = str(tmp_path / "store.db")
    assert main(["--batch", "--db", db, "study", "create", str(root / "studies" / "glenda-crock-sim.toml")]) == 0
    capsys.readouterr()
    assert main(["--batch", "--db", db, "study", "show", "glenda-crock-sim"]) == 0
    assert "SIMULATED" in capsys.readouterr().out.splitlines()[0]
