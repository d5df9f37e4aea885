"""Seed 003 (M11) on the offline `sim` model: studies/m11-sim.toml end to end (issue 16)."""

from __future__ import annotations

from tests.simulation.helpers import cli, metrics_json, outputs, run_sim
from workbench.protocols.m11 import replies
from workbench.protocols.m11.simulate import SIMULATOR, Item
from workbench.simmodel.params import params_of


def run(tmp_path, tag: str, replace: dict | None = None):
    return run_sim(tmp_path, "m11-sim", {"runs = 3 ": "runs = 1 ", "limit = 0": "limit = 12", **(replace or {})}, tag)


def test_m11_sim_fills_bands_and_the_binary_comparison_and_is_deterministic(tmp_path, capsys):
    db = run(tmp_path, "one")
    doc = metrics_json(db, "m11-sim", capsys)
    assert doc["simulated"] is True
    bands = doc["bands"]
    assert bands["n"] == 12 and bands["unscored"] == 0
    assert sum(r["count"] for r in bands["rows"]) == 12 and sum(r["count"] > 0 for r in bands["rows"]) >= 2
    binary = doc["binary"]
    assert binary["n"] == 12 and binary["agreement"]["value"] is not None
    # the binary judge and the Likert pipeline read one planted quality at reliability 0.8: they agree
    assert binary["kappa"]["value"] is not None and binary["kappa"]["value"] > 0.3
    assert all("counted error" not in t for *_, t in outputs(db))
    # planted vs recovered (issue 24): the planted baseline beside the items' mean overall score
    from statistics import mean

    from scipy.stats import norm

    report = tmp_path / "report.md"
    cli(db, "report", "m11-sim", "--out", str(report))
    row = next(line for line in report.read_text(encoding="utf-8").split("## Planted vs recovered", 1)[1]
               .splitlines() if line.startswith("| baseline")).split(" | ")
    assert row[1] == "0.6" and row[3] == f"{5 * norm.cdf(0.6 / 2 ** 0.5):.3f}"
    assert row[4] == f"{mean(s['overall'] for s in doc['samples']):.3f}"
    again = run(tmp_path, "two")
    assert outputs(again) == outputs(db)                               # same study file: byte-identical
    assert metrics_json(again, "m11-sim", capsys)["bands"] == bands
    # the planted quality shows: a much better item pool passes more often
    better = run(tmp_path, "three", {"baseline = 0.6": "baseline = 2.5"})
    assert metrics_json(better, "m11-sim", capsys)["bands"]["pass_rate"] > bands["pass_rate"]


class _Request:
    def __init__(self, phase, turn, messages=(), item="x"):
        self.metadata = {"phase": phase, "item": item, "replicate": 0}
        self.turn, self.messages = turn, list(messages)


def test_every_stage_reply_parses_and_the_defender_answers_every_criticism():
    from workbench.protocols.m11.prompts import messages

    params = params_of({"simulation": {"seed": 1, "baseline": -1.0}})
    item = {"id": "x", "title": "Tray", "validated_use": "serving", "attribute_table": ["Bamboo"],
            "hard_constraints": [], "reasoning": ""}
    weaknesses = replies.critic(SIMULATOR.reply(_Request("critic", "critic"), params, None))
    assert len(weaknesses) == len(Item(params, "x").weaknesses()) >= 3
    prompt = messages("defender", item, weaknesses=weaknesses)
    rebuttals = replies.defender(SIMULATOR.reply(_Request("defender", "defender", prompt), params, None), weaknesses)
    assert [r["id"] for r in rebuttals] == [w["id"] for w in weaknesses]
    judged = replies.judge(SIMULATOR.reply(_Request("judge", "judge"), params, None))
    assert 0 <= judged["overall"] <= 5
    assert replies.metajudge(SIMULATOR.reply(_Request("metajudge", "metajudge.again1"), params, None))["sycophantic"] is False
    assert replies.binary(SIMULATOR.reply(_Request("binary", "binary"), params, None))["verdict"] in ("PASS", "FAIL")
