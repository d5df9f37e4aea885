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


def test_the_report_power_and_the_tui_print_the_same_power(tmp_path, capsys):
    """One power computation (issue 24 item 2): the report's line (designed_power), `power` and the TUI
    (power_document with its defaults) use one simulation count and give the same numbers."""
    import json

    from workbench.simulation.marks import designed_power
    from workbench.simulation.power import DEFAULT_SIMS, power_document

    db, path = tmp_path / "s.db", tmp_path / "s.toml"
    path.write_text(STUDY.replace('cases = ["glenda-crock"]', 'cases = ["glenda-crock", "blast-radius"]'),
                    encoding="utf-8")
    assert main(["--batch", "--db", str(db), "study", "create", str(path)]) == 0
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "power", "real-design"]) == 0
    batch = json.loads(capsys.readouterr().out)
    import sqlite_utils

    from store.studies import get_study
    definition = get_study(sqlite_utils.Database(db), "real-design")["definition"]
    tui = power_document(definition)
    line = designed_power(definition)
    powers = [r["power"] for r in batch["comparisons"]]
    assert powers == [r["power"] for r in tui["comparisons"]] and any(p is not None for p in powers)
    for i, p in enumerate(powers, start=1):
        assert f"comparison {i} d=0.50: " + ("-" if p is None else f"{p:.2f}") in line
    assert f"{DEFAULT_SIMS} simulations" in line
