"""Arm A on generated interactions: the metrics recover the calibration the generator planted."""

from __future__ import annotations

import math

import pytest

from tests.protocols.calibration.calkit import definition, freeze, make_db, save
from workbench.protocols.calibration import PROTOCOL
from workbench.protocols.calibration.generator import generate, planted_ece
from workbench.protocols.calibration.results import load, study_results

GRID = [0.05, 0.2, 0.4, 0.6, 0.8, 0.95]


def _study(tmp_path, name, k_true):
    db, _ = make_db(tmp_path)
    d = definition(name, section={"generator": {"per_bin": 500, "seed": 11, "k_true": k_true}})
    sid = save(db, d)
    assert PROTOCOL.load_items(db, sid, d).added == 3000
    return db, freeze(db, sid)


def test_generator_draws_the_seed_grid_with_500_per_bin():
    recs = list(generate(per_bin=500, seed=3))
    assert len(recs) == 3000
    by_q = {q: [r for r in recs if r["latent_q"] == q] for q in GRID}
    assert all(len(v) == 500 for v in by_q.values())
    # planted: sigmoid(v_hat) is exactly the latent probability when k_true = 1
    assert all(abs(1 / (1 + math.exp(-r["v_hat"])) - r["latent_q"]) < 1e-9 for r in recs)
    assert list(generate(per_bin=5, seed=3)) == list(generate(per_bin=5, seed=3))


def test_metrics_recover_a_calibrated_proxy(tmp_path):
    db, sid = _study(tmp_path, "cal-a", 1.0)
    doc = study_results(db, sid)
    a = doc["arm_a"]
    bins = [b for b in a["calibration"]["bins"] if b["count"]]
    assert [b["count"] for b in bins] == [500] * 6
    # independent tally straight from the generator's records
    recs = list(generate(per_bin=500, seed=11))
    freq = {q: sum(r["ground_truth"] == 1 for r in recs if r["latent_q"] == q) / 500 for q in GRID}
    for b, q in zip(bins, GRID):
        assert b["mean_predicted"] == pytest.approx(q, abs=1e-9)
        assert b["observed_frequency"] == pytest.approx(freq[q])
        assert abs(b["observed_frequency"] - q) < 4 * math.sqrt(q * (1 - q) / 500)   # planted within sampling noise
    ece = sum(abs(freq[q] - q) for q in GRID) / 6
    brier = sum((q - (r["ground_truth"] == 1)) ** 2 for q in GRID for r in recs if r["latent_q"] == q) / 3000
    assert a["calibration"]["ece"]["value"] == pytest.approx(ece)
    assert a["calibration"]["mce"]["value"] == pytest.approx(max(abs(freq[q] - q) for q in GRID))
    assert a["calibration"]["brier"]["value"] == pytest.approx(brier)
    assert a["calibration"]["brier"]["value"] == pytest.approx(sum(q * (1 - q) for q in GRID) / 6, abs=0.01)
    assert a["calibration"]["ece"]["value"] < 0.04 and a["well_calibrated"] is True
    assert a["k_sweep"]["best_k"] == 1.0


def test_metrics_recover_a_planted_miscalibration_and_the_k_that_fixes_it(tmp_path):
    db, sid = _study(tmp_path, "cal-b", 2.0)       # v_hat = logit(q) / 2: at k = 1 p is too timid
    a = study_results(db, sid)["arm_a"]
    # hand-computed: mean over the grid of |q - sigmoid(logit(q) / 2)| = (0.1367 + 0.1333 + 0.0495) / 3
    assert planted_ece(GRID, 1.0, 2.0) == pytest.approx(0.1065, abs=5e-4)
    assert a["calibration"]["ece"]["value"] == pytest.approx(0.1065, abs=0.02)
    assert a["well_calibrated"] is False
    assert a["k_sweep"]["best_k"] == 2.0
    at_2 = next(p for p in a["k_sweep"]["points"] if p["k"] == 2.0)
    assert at_2["ece"]["value"] < 0.04


def test_no_interactions_gives_undefined_not_zero(tmp_path):
    db, _ = make_db(tmp_path)
    sid = freeze(db, save(db, definition("cal-empty")))
    data = load(db, sid)
    doc = study_results(db, sid, data)
    assert doc["arm_a"]["calibration"]["ece"]["value"] is None
    assert doc["arm_a"]["well_calibrated"] is None
    assert doc["outcome"]["holds"] is None and "undefined" in doc["outcome"]["summary"]
