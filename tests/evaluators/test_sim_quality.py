"""The main job (studies/glenda-crock-sim.toml): its planted careless rater is excluded by the study's own
pre-registered rule at unblinding, its careful one kept, and the report says so, labelled SIMULATED."""

from __future__ import annotations

import json

from tests.simulation.helpers import cli, sim_study
from workbench.cli.main import main


def test_the_main_jobs_careless_rater_is_excluded_by_its_rule(tmp_path, capsys):
    db = tmp_path / "main.db"
    study = "glenda-crock-sim"
    cli(db, "study", "create", str(sim_study(tmp_path, study)))
    for step in (["run", study], ["judge", study], ["simulate", "raters", study]):
        cli(db, *step)
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "evaluators", "qc", study]) == 0
    before = json.loads(capsys.readouterr().out)
    by = {e["evaluator"]: e for e in before["evaluators"]}
    assert before["simulated"] and before["planted_quality"] == {"rater-a": "careful", "rater-c": "careless"}
    assert before["planted"]["gold"] > 0 and before["planted"]["attention"] > 0 and not before["decisions_recorded"]
    assert by["rater-c"]["decision"] == "would exclude" and by["rater-c"]["under_floor"] > 0.5
    assert by["rater-c"]["attention_pass"] == 0.0 and by["rater-a"]["attention_pass"] == 1.0
    assert by["rater-a"]["decision"] == by["rater-b"]["decision"] == by["judge-a"]["decision"] == "kept (provisional)"
    cli(db, "unblind", study)
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "evaluators", "qc", study]) == 0
    after = json.loads(capsys.readouterr().out)
    assert [r[2] for r in after["rows"]] == ["kept", "kept", "EXCLUDED", "kept"]
    out = tmp_path / "report.md"
    cli(db, "report", study, "--out", str(out))
    report = out.read_text(encoding="utf-8")
    section = report.split("## Evaluator quality", 1)[1]
    assert "SIMULATED: the raters are simulated, with planted quality (rater-a careful, rater-c careless)" in section
    for row in after["rows"]:  # the report's table holds the numbers `evaluators qc` printed
        assert all(cell in section for cell in row)
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "metrics", study]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["counts"]["raters_with_scores"] == 2  # rater-c's scores left the tables
