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
