"""Seed 004 on the offline `sim` model: studies/calibration-sim.toml end to end (issue 16)."""

from __future__ import annotations

import pytest

from tests.simulation.helpers import cli, metrics_json, outputs, run_sim
from workbench.protocols.calibration.program import parse_score
from workbench.protocols.calibration.simulate import score, spread, true_quality


def run(tmp_path, tag: str, replace: dict | None = None):
    return run_sim(tmp_path, "calibration-sim", replace, tag)


def test_calibration_sim_recovers_the_planted_judge_reliability_and_is_deterministic(tmp_path, capsys):
    db = run(tmp_path, "one")
    doc = metrics_json(db, "calibration-sim", capsys)
    assert doc["simulated"] is True
    arm_c = doc["arm_c"]
    assert arm_c["n_items"] == 60 and doc["arm_b"]
    # planted judge_icc = 0.7 for each judge: alpha and ICC(2,1) land near it (60 items: SE about 0.05)
    assert arm_c["alpha"]["value"] == pytest.approx(0.7, abs=0.12)
    assert arm_c["icc_2_1"]["value"] == pytest.approx(0.7, abs=0.12)
    # the planted judges read what the proxy stands for: proxy and judges agree strongly
    assert arm_c["proxy_vs_judges"]["value"] > 0.7
    # planted vs recovered (issue 24): judge_icc beside Arm C's α, judge-c's offset beside its mean lean
    report = tmp_path / "report.md"
    cli(db, "report", "calibration-sim", "--out", str(report))
    section = report.read_text(encoding="utf-8").split("## Planted vs recovered", 1)[1]
    icc = next(line for line in section.splitlines() if line.startswith("| judge_icc")).split(" | ")
    assert icc[1] == "0.7" and icc[4] == f"{arm_c['alpha']['value']:.3f}"
    offset = next(line for line in section.splitlines() if line.startswith("| judge_offsets.judge-c")).split(" | ")
    low, high = (float(v) for v in offset[5].strip("[]").split(", "))
    assert offset[1] == "0.05" and low < 0.05 < high
    texts = outputs(db)
    assert len(texts) == 180 and all("judge_error" not in t for *_, t in texts)

    again = run(tmp_path, "two")
    assert outputs(again) == texts                                   # same study file: byte-identical
    same = metrics_json(again, "calibration-sim", capsys)
    # every number is the same; only the import record (its file path and time) differs
    assert {k: v for k, v in same.items() if k != "items"} == {k: v for k, v in doc.items() if k != "items"}
    noisy = run(tmp_path, "three", {"judge_icc = 0.7": "judge_icc = 0.2", "seed = 40": "seed = 41"})
    low = metrics_json(noisy, "calibration-sim", capsys)["arm_c"]["alpha"]["value"]
    assert outputs(noisy) != texts and low < arm_c["alpha"]["value"] - 0.2   # a noisier panel agrees less


def test_planted_judge_model_by_hand():
    assert true_quality(0.0) == 0.5
    # the seed's grid: mean 0.5, deviations 0.45, 0.3, 0.1 twice each -> SD sqrt(0.605 / 6)
    assert spread([0.05, 0.2, 0.4, 0.6, 0.8, 0.95]) == pytest.approx((0.605 / 6) ** 0.5)
    # noise SD = 0.3 * sqrt(0.3/0.7); z = 1 -> 0.5 + 0.05 + 0.19640 = 0.7464 -> 0.75
    assert score(0.5, 0.05, 0.7, 0.3, 1.0) == 0.75
    assert score(0.95, 0.3, 0.5, 0.3, 2.0) == 1.0 and score(0.05, -0.3, 0.5, 0.3, -1.0) == 0.0
    assert parse_score('[SIMULATED TEXT: x]\n{"score": 0.75, "reason": "r"}') == (0.75, "r")
