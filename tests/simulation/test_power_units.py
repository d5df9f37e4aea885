"""The power analysis's N is the protocol's own unit count (cases, debates, items), read from the study."""

from __future__ import annotations

from pathlib import Path

from workbench.simulation.power import study_power
from workbench.studies.definition import parse_study_text

ROOT = Path(__file__).resolve().parents[2]


def definition(name: str) -> dict:
    path = ROOT / "studies" / name
    return parse_study_text(path.read_text(encoding="utf-8"), str(path))


def test_each_protocol_counts_its_own_units():
    faultline = definition("faultline-sim.toml")
    debates = len(faultline["faultline"]["topics"]) * len(faultline["faultline"]["pairs"])
    assert study_power(faultline, {}, sims=50, comparisons=[])["design"]["cases"] == debates
    hindsight = definition("glenda-crock-sim.toml")
    assert study_power(hindsight, {}, sims=50, comparisons=[])["design"]["cases"] == len(hindsight["cases"])


def test_a_study_without_raters_is_not_said_to_have_one(capsys, tmp_path):
    """Faultline measures its metrics once per run, with no raters: its own power (on ACC, BA and ΔSD, see
    tests/protocols/faultline/test_faultline_power.py) says so; a protocol with raters keeps their count."""
    from workbench.cli.main import main

    faultline = definition("faultline-mock.toml")
    assert not faultline.get("raters")
    code = main(["--batch", "--db", str(tmp_path / "w.db"), "power", str(ROOT / "studies" / "faultline-mock.toml"),
                 "--sims", "100"])
    out = capsys.readouterr().out
    assert code == 0
    assert "rater(s)" not in out
    assert "no raters: each run's metrics are measured once by the protocol's pipeline" in out
    hindsight = definition("glenda-crock-mock.toml")
    assert study_power(hindsight, {}, sims=50, comparisons=[])["design"]["raters"] == len(hindsight["raters"])


def test_power_help_shows_a_single_percent_sign():
    from workbench.cli.main import build_parser

    power_parser = build_parser()._subparsers._group_actions[0].choices["power"]
    text = power_parser.format_help()
    assert "95% CI" in text and "%%" not in text
