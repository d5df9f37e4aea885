"""Every frozen study's report states the power it was designed with, not only a simulated one (issue 16)."""

from __future__ import annotations

from workbench.cli.main import main

STUDY = """\
name = "real-design"
protocol = "hindsight"
cases = ["glenda-crock"]
conditions = ["B1", "C2"]
replicates = 1
raters = ["rater-a", "rater-b"]
judges = []

[model]
name = "mock"
seed = 7
"""


def test_a_frozen_real_study_report_states_its_designed_power_without_naming_conditions(tmp_path):
    db, path, out = tmp_path / "s.db", tmp_path / "s.toml", tmp_path / "report.md"
    path.write_text(STUDY, encoding="utf-8")
    assert main(["--batch", "--db", str(db), "study", "create", str(path)]) == 0
    assert main(["--batch", "--db", str(db), "study", "freeze", "real-design"]) == 0
    assert main(["--batch", "--db", str(db), "report", "real-design", "--out", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert "SIMULATED" not in lines[0]
    power = next(ln for ln in lines[:6] if ln.startswith("> Designed power:"))
    # C2 - B1 (seed 000's first comparison) at the default d = 0.5 with one case: no test is possible yet
    assert power.startswith("> Designed power: comparison 1 d=0.50: -") and "1 case(s)" in power
    assert "C2" not in power and "B1" not in power          # a report read before unblinding names no condition
