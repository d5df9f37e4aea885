"""Seed 002 (faultline) on the offline `sim` model: studies/faultline-sim.toml end to end (issue 16)."""

from __future__ import annotations

import pytest

from tests.simulation.helpers import cli, metrics_json, outputs, run_sim
from workbench.protocols.faultline.simulate import closing_gap

SMALL = {'conditions = ["plain", "graph-20", "qbaf-20", "latent-20", "single", "self-consistency"]':
         'conditions = ["plain", "graph-20", "single", "self-consistency"]',
         "qbaf-20 = -0.2\n": "", "latent-20 = 0.2\n": "", "qbaf-20 = 0.7\n": "", "latent-20 = 0.5\n": ""}


def run(tmp_path, tag: str, replace: dict | None = None):
    return run_sim(tmp_path, "faultline-sim", {**SMALL, **(replace or {})}, tag)


def test_faultline_sim_recovers_the_planted_stance_shift_and_adherence(tmp_path, capsys):
    db = run(tmp_path, "one")
    texts = outputs(db)
    assert texts and all(t.startswith(("#", "[SIMULATED TEXT")) for *_, t in texts)
    again = run(tmp_path, "two")
    assert outputs(again) == texts                                    # same study file: byte-identical
    other = run(tmp_path, "three", {"seed = 2": "seed = 3"})
    assert outputs(other) != texts                                    # another seed, other debates

    doc = metrics_json(db, "faultline-sim", capsys)
    assert doc["simulated"] is True and doc["errors"]["extraction_errors"] == 0
    plain, graph = doc["conditions"]["plain"], doc["conditions"]["graph-20"]
    # ΔSD has the planted sign: plain debate converges (-0.6), belief graphs hold the personas apart (+0.3)
    assert plain["dSD"]["value"] < -0.2 and graph["dSD"]["value"] > 0
    # BA reads the planted adherence (0.8) against the control (plain: no graph in the prompt)
    assert graph["BA"]["value"] == pytest.approx(0.8, abs=0.2) and plain["BA"]["value"] < 0.2
    assert graph["CG"]["value"] is not None                          # crux cards cite real message ids
    assert doc["conditions"]["self-consistency"]["ACC"]["value"] is not None

    # planted vs recovered (issue 24): every planted value beside the metric the study recovered, as `metrics`
    report = tmp_path / "report.md"
    cli(db, "report", "faultline-sim", "--out", str(report))
    section = report.read_text(encoding="utf-8").split("## Planted vs recovered", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| parameter")}
    assert set(rows) == {"stance_shift.plain", "stance_shift.graph-20", "adherence.graph-20", "accuracy.single",
                         "accuracy.self-consistency", "accuracy.plain"}
    for name, metric in (("stance_shift.plain", "dSD"), ("adherence.graph-20", "BA"), ("accuracy.plain", "ACC")):
        cond = name.split(".", 1)[1]
        assert rows[name][4] == f"{doc['conditions'][cond][metric]['value']:.3f}"
    assert rows["adherence.graph-20"][1] == "0.8" and rows["adherence.graph-20"][3] == "0.800"
    assert rows["accuracy.plain"][3] == "0.600"                        # two personas, a split by a coin: 0.6
    # the report's designed-power line is `power`'s faultline document at the study's N (one computation)
    import sqlite_utils

    from store.studies import get_study
    from workbench.simulation.marks import designed_power
    from workbench.simulation.power import power_document

    definition = get_study(sqlite_utils.Database(db), "faultline-sim")["definition"]
    line = designed_power(definition)
    assert f"> Designed power: {line}" in report.read_text(encoding="utf-8")
    doc = power_document(definition, grid=())
    assert doc["comparisons"][0]["comparison"] == "ACC: all debate conditions − self-consistency on 2 votes"
    first = doc['comparisons'][0]   # named: a faultline study blinds no condition (issue 42)
    assert line.startswith(f"{first['comparison']} Δ={first['effect']:.2f}: {first['power']:.2f}")


def test_closing_gap_by_hand():
    # opening +2 / -1: SD 1.5; a shift of -0.5 asks for a gap of 2, noise 0
    assert closing_gap(2, -1, -0.5, 0.0) == 2
    assert closing_gap(2, -2, 0.5, 0.0) == 4 and closing_gap(1, -1, -2.0, 0.0) == 0   # kept in 0..4
