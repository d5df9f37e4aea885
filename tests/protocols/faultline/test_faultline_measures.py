"""The six metrics on hand-built vectors and stances, with the values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.protocols.faultline import measures as m

E = np.eye(4)


def test_belief_adherence_counts_claims_whose_nearest_node_reaches_0_7():
    nodes = np.array([E[0], E[1]])
    # cos to e0: 1.0 (grounded); 0.8 (grounded); 0.6 (not); exactly along e2: 0 (not)
    claims = np.array([E[0], [0.8, 0.6, 0, 0], [0.6, 0, 0.8, 0], E[2]])
    est = m.belief_adherence(claims, nodes)
    assert est.value == pytest.approx(0.5) and est.details["grounded"] == 2 and est.n == 4
    # (0.7, 0.714..) normalised has cosine exactly 0.7 with e0: the seed says "above 0.7" → ≥ 0.7 is grounded
    at = np.array([[0.7, math.sqrt(1 - 0.49), 0, 0]])
    assert m.belief_adherence(at, np.array([E[0]])).value == 1.0


def test_belief_adherence_undefined_cases():
    assert "no belief-graph nodes" in m.belief_adherence(np.array([E[0]]), np.empty((0, 4))).undefined_reason
    assert "no extracted claims" in m.belief_adherence(None, np.array([E[0]])).undefined_reason


def test_delta_sd_by_hand():
    opening = {"a": {"c1": 2, "c2": 1}, "b": {"c1": -2, "c2": 1}}
    closing = {"a": {"c1": 1, "c2": 2}, "b": {"c1": -1, "c2": 0}}
    # c1: pstdev(1,−1) − pstdev(2,−2) = 1 − 2 = −1 ; c2: pstdev(2,0) − pstdev(1,1) = 1 − 0 = 1 ; mean 0
    est = m.delta_sd(opening, closing, ["c1", "c2"])
    assert est.value == pytest.approx(0.0) and est.details["per_claim"] == {"c1": -1.0, "c2": 1.0}
    # only c1: −1 (convergence)
    assert m.delta_sd(opening, closing, ["c1"]).value == pytest.approx(-1.0)


def test_delta_sd_undefined_with_one_persona_or_missing_stances():
    one = m.delta_sd({"a": {"c1": 2}}, {"a": {"c1": 1}}, ["c1"])
    assert not one.defined and "fewer than two personas" in one.undefined_reason
    failed = m.delta_sd({"a": {"c1": 2}, "b": None}, {"a": {"c1": 1}, "b": {"c1": 0}}, ["c1"])
    assert not failed.defined
    none = m.delta_sd({"a": {"c1": None}, "b": {"c1": 1}}, {"a": {"c1": 1}, "b": {"c1": 0}}, ["c1"])
    assert "no contested claim" in none.undefined_reason


def test_spread_by_hand():
    # A: e0, B: e1 (distance 1), B: (e0+e1)/√2 (distance 1 − 0.7071 to A)
    v = np.array([E[0], E[1], (E[0] + E[1]) / math.sqrt(2)])
    est = m.spread(v, ["A", "B", "B"])
    assert est.value == pytest.approx((1 + (1 - 1 / math.sqrt(2))) / 2) and est.n == 2
    assert "fewer than two personas" in m.spread(np.array([E[0]]), ["A"]).undefined_reason


def test_spread_trend_and_its_one_round_case():
    r0, r1 = m.spread(np.array([E[0], E[1]]), ["A", "B"]), m.spread(np.array([E[0], E[0]]), ["A", "B"])
    assert m.spread_trend([r0, r1]).value == pytest.approx(-1.0)
    assert "fewer than two rounds" in m.spread_trend([r0]).undefined_reason


def test_crux_grounding_by_hand():
    cards = np.array([E[0], E[1]])
    # card 1 cites e0 and e1: centroid (1,1)/√2 → cos 0.7071; card 2 cites e1 → cos 1
    sources = [np.array([E[0], E[1]]), np.array([E[1]])]
    est = m.crux_grounding(cards, sources)
    assert est.value == pytest.approx((1 / math.sqrt(2) + 1) / 2) and est.n == 2
    unsourced = m.crux_grounding(cards, [None, np.array([E[1]])])
    assert unsourced.value == pytest.approx(1.0) and unsourced.details["cards_without_sources"] == 1
    assert "no crux card cites" in m.crux_grounding(cards[:1], [None]).undefined_reason


def _planted():
    """Two tight clusters: one question asked in all 5 runs (stable), one asked in runs 1-2 only."""
    rng = np.random.default_rng(3)
    stable = [E[0] + rng.normal(0, 0.01, 4) for _ in range(5)]
    local = [E[1] + rng.normal(0, 0.01, 4) for _ in range(2)]
    return np.array(stable + local), ["r1", "r2", "r3", "r4", "r5", "r1", "r2"]


def test_crux_recurrence_on_a_planted_structure():
    vecs, runs = _planted()
    est = m.crux_recurrence(vecs, runs)
    assert est.details["clusters"] == 2 and est.details["stable"] == 1
    assert est.value == pytest.approx(0.5)


def test_crux_recurrence_undefined_cases():
    vecs, runs = _planted()
    assert "a stable cluster spans 3" in m.crux_recurrence(vecs[:2], ["r1", "r2"]).undefined_reason
    scattered = np.array([E[0], E[1], E[2], E[3]])
    est = m.crux_recurrence(scattered, ["r1", "r2", "r3", "r4"])
    assert not est.defined and "noise" in est.undefined_reason


def test_majority_and_accuracy():
    assert m.majority([2, 1, -1, None, 1]) == 1
    assert m.majority([2, -2]) is None          # a tie is no majority
    assert m.majority([None, None]) is None
    truths = {"v1": True, "v2": False, "v3": True}
    # v1 right, v2 right, v3 neutral (not correct) → 2/3
    est = m.accuracy({"v1": 1, "v2": -1, "v3": 0}, truths, {"v1", "v2", "v3"})
    assert est.value == pytest.approx(2 / 3) and est.details["correct"] == 2
    # v3 has no extracted stance: left out, counted
    est = m.accuracy({"v1": 1, "v2": 1, "v3": None}, truths, {"v1", "v2"})
    assert est.value == pytest.approx(0.5) and est.details["unextracted"] == 1
    assert "no verifiable claims" in m.accuracy({}, {}, set()).undefined_reason
    assert "could be extracted" in m.accuracy({}, truths, set()).undefined_reason


def test_thresholds_are_the_seeds():
    assert m.meets("BA", 0.61) and not m.meets("BA", 0.6)
    assert m.meets("dSD", 0.0) and not m.meets("dSD", -0.01)
    assert m.meets("CG", 0.56) and not m.meets("CG", 0.55)
    assert m.meets("CR", 0.41) and not m.meets("CR", 0.4)
    assert m.meets("ACC", 0.9) is None
