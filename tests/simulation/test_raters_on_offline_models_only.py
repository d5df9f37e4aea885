"""Simulated raters score studies on the offline models only (issue 24 item 6): `sim`, and a `mock` dry run,
whose report then says the scores are simulated; a study on a real model is refused."""

from __future__ import annotations

import json

from tests.simulation.helpers import ROOT, cli
from workbench.cli.main import main


def create(tmp_path, model: str):
    text = (ROOT / "studies" / "glenda-crock-mock.toml").read_text(encoding="utf-8")
    text = text.replace('name = "glenda-crock-mock"', 'name = "dry"').replace('"mock"', f'"{model}"')
    (tmp_path / "studies").mkdir()
    (tmp_path / "cases").symlink_to(ROOT / "cases")
    path = tmp_path / "studies" / "dry.toml"
    path.write_text(text, encoding="utf-8")
    db = tmp_path / "store.db"
    cli(db, "study", "create", str(path))
    return db


def test_a_study_on_a_real_model_is_refused(tmp_path, capsys):
    db = create(tmp_path, "openai/gpt-4o-mini")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "simulate", "raters", "dry"]) == 1
    assert "only real people rate it" in json.loads(capsys.readouterr().out)["error"]


def test_a_mock_dry_run_is_rated_and_its_report_says_the_scores_are_simulated(tmp_path, capsys):
    db = create(tmp_path, "mock")
    cli(db, "run", "dry")
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "simulate", "raters", "dry"]) == 0
    fills = json.loads(capsys.readouterr().out)["raters"]
    assert [f["rater"] for f in fills] == ["rater-a", "rater-b"] and all(f["scores"] > 0 for f in fills)
    cli(db, "unblind", "dry")
    cli(db, "report", "dry", "--out", str(tmp_path / "dry.md"))
    head = (tmp_path / "dry.md").read_text(encoding="utf-8").split("\n- Study id")[0]
    assert "**Dry run.**" in head and "simulated raters" in head
