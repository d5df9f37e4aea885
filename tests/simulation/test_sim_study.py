"""A hindsight study on the offline `sim` model, end to end through the batch commands (issue 16)."""

from __future__ import annotations

import json

import pytest
import sqlite_utils

from workbench.cli.main import main
from workbench.studies.definition import StudyError, parse_study_text

STUDY = """\
name = "sim-small"
protocol = "hindsight"
cases = ["glenda-crock"]
conditions = ["B1", "C2", "P1"]
replicates = 1
raters = ["rater-a", "rater-b"]

[model]
name = "sim"
seed = 7

[[judges]]
name = "judge-a"
model = "sim"

[simulation]
seed = {seed}
[simulation.effects]
C2 = 1.5
P1 = 1.5
[simulation.rater_bias]
rater-b = -0.3
"""


def run_study(tmp_path, name: str, seed: int = 11) -> sqlite_utils.Database:
    db_path = tmp_path / f"{name}.db"
    study = tmp_path / f"{name}.toml"
    study.write_text(STUDY.replace("{seed}", str(seed)), encoding="utf-8")

    def cli(*argv):
        code = main(["--batch", "--db", str(db_path), *argv])
        assert code == 0, argv
    cli("study", "create", str(study))
    cli("run", "sim-small")
    cli("judge", "sim-small")
    cli("simulate", "raters", "sim-small")
    return sqlite_utils.Database(db_path)


def outputs(db) -> list[tuple[str, str, int, str]]:
    rows = db.execute("select r.case_id, r.condition, r.replicate, o.text from outputs o join runs r "
                      "on r.id = o.run_id order by 1, 2, 3").fetchall()
    return [tuple(r) for r in rows]


def test_a_sim_study_is_deterministic_labelled_and_parsed_by_every_reader(tmp_path, capsys):
    first = run_study(tmp_path, "one")
    again = run_study(tmp_path, "two")
    other = run_study(tmp_path, "three", seed=12)
    assert outputs(first) == outputs(again)                # byte-identical for one study file
    assert outputs(first) != outputs(other)                # another seed, other data
    for *_, text in outputs(first):
        assert text.startswith("[SIMULATED TEXT")          # no reply can pass for a model's answer
    # the architectures' own parsers read the simulator: votes, a classified topology, judge verdicts
    votes = [json.loads(r[0]) for r in first.execute(
        "select payload from events where kind = 'vote'").fetchall()] if "events" in first.table_names() else []
    assert all(v.get("vote") != "unparsed" for v in votes)
    topology = first.execute("select pattern from topology").fetchall()
    assert topology and topology[0][0] in ("Basin", "Ridge", "Plateau")
    verdicts = first.execute("select status, count(*) from verdicts group by status").fetchall()
    assert dict(verdicts).get("ok", 0) > 0 and "judge_error" not in dict(verdicts)
    # simulated raters scored every item through packets
    scores = first.execute("select rater, count(*) from scores group by rater").fetchall()
    assert {r for r, n in scores if n > 0} == {"rater-a", "rater-b"}
    capsys.readouterr()

    db_path = tmp_path / "one.db"
    blind_report = tmp_path / "blind.md"
    assert main(["--batch", "--db", str(db_path), "report", "sim-small", "--out", str(blind_report)]) == 0
    blind = blind_report.read_text(encoding="utf-8").split("## Planted vs recovered", 1)[1].split("\n## ", 1)[0]
    assert "the study is blinded" in blind and "C2" not in blind and "P1" not in blind   # no condition named
    assert main(["--batch", "--db", str(db_path), "unblind", "sim-small"]) == 0
    capsys.readouterr()
    assert main(["--batch", "--db", str(db_path), "metrics", "sim-small", "--csv"]) == 0
    csv_lines = capsys.readouterr().out.strip().splitlines()
    assert csv_lines[0].startswith("simulated,")
    assert len(csv_lines) > 10 and all(line.startswith("SIMULATED,") for line in csv_lines[1:])
    assert main(["--batch", "--db", str(db_path), "--json", "metrics", "sim-small"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["simulated"] is True and "SIMULATED" in doc["simulated_banner"]
    report = tmp_path / "report.md"
    assert main(["--batch", "--db", str(db_path), "report", "sim-small", "--out", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# Study report: sim-small (SIMULATED)"
    assert "Designed power:" in text and "Table 1" in text
    # planted vs recovered (issue 24): each planted effect, read back from the scores against B1 (planted 0)
    section = text.split("## Planted vs recovered", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in section.splitlines()
            if line.startswith("| effects.") or line.startswith("| humility.")}
    assert set(rows) == {"effects.C2", "effects.P1"}
    assert rows["effects.C2"][1] == "1.5" and "against B1" in rows["effects.C2"][2]
    # the recovered value by hand from the long-format scores: √2·(Φ⁻¹(share C2) − Φ⁻¹(share B1)), one case
    from math import sqrt

    from scipy.stats import norm

    capsys.readouterr()
    assert main(["--batch", "--db", str(db_path), "metrics", "sim-small", "--csv"]) == 0
    import csv
    import io

    shares = {}
    for r in csv.DictReader(io.StringIO(capsys.readouterr().out)):
        if r["rubric_id"] == "anticipation" and r["pilot"] == "0" and r["value"] and r["status"] == "ok":
            shares.setdefault(r["condition"], []).append(float(r["value"]) / 3)
    mean = {c: min(0.995, max(0.005, sum(v) / len(v))) for c, v in shares.items()}
    by_hand = sqrt(2) * (norm.ppf(mean["C2"]) - norm.ppf(mean["B1"]))
    assert float(rows["effects.C2"][4]) == pytest.approx(by_hand, abs=5e-4)


def test_sim_cannot_mix_with_real_models_nor_be_unmarked():
    mixed = STUDY.replace("{seed}", "1").replace('model = "sim"', 'model = "openai/gpt-4o-mini"')
    with pytest.raises(StudyError, match="cannot also use openai/gpt-4o-mini"):
        parse_study_text(mixed, "mixed.toml")
    with pytest.raises(StudyError, match=r"mixed.toml:\d+: simulation: planted parameters need"):
        parse_study_text(STUDY.replace("{seed}", "1").replace('"sim"', '"mock"'), "mixed.toml")
    definition = parse_study_text(STUDY.replace("{seed}", "1"), "ok.toml")
    assert definition["simulation"]["effects"] == {"C2": 1.5, "P1": 1.5}
    # the label derives from the frozen definition's models: nothing in the file can switch it off
    from workbench.simmodel.label import is_simulated

    assert is_simulated(definition)


def test_bad_simulation_values_name_file_line_and_key():
    bad = STUDY.replace("{seed}", "1").replace("rater-b = -0.3", "rater-z = -0.3")
    with pytest.raises(StudyError) as err:
        parse_study_text(bad, "bad.toml")
    assert "bad.toml:" in str(err.value) and "simulation.rater_bias.rater-z" in str(err.value)
