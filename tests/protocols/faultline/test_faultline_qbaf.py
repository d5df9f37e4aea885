"""DF-QuAD strengths (Rago et al., KR 2016) against a hand-computed example."""

from __future__ import annotations

import pytest

from workbench.protocols.faultline.qbaf import aggregate, combine, crux, strengths


def test_probabilistic_sum_and_combination():
    assert aggregate([]) == 0.0
    assert aggregate([0.5, 0.5]) == pytest.approx(0.75)          # 1 − 0.5·0.5
    assert combine(0.6, 0.8, 0.2) == pytest.approx(0.6 - 0.6 * 0.6)   # attack surplus 0.6 → 0.24
    assert combine(0.6, 0.2, 0.8) == pytest.approx(0.6 + 0.4 * 0.6)   # support surplus 0.6 → 0.84
    assert combine(0.6, 0.5, 0.5) == pytest.approx(0.6)


def test_hand_computed_chain():
    # d (0.4) attacks b (0.5); c (0.6) supports a; b attacks a (0.5).
    # σ(d) = 0.4, σ(c) = 0.6; σ(b) = 0.5 − 0.5·0.4 = 0.3
    # σ(a): attack F = 0.3, support F = 0.6 → support surplus 0.3 → 0.5 + 0.5·0.3 = 0.65
    base = {"a": 0.5, "b": 0.5, "c": 0.6, "d": 0.4}
    rel = [("b", "a", "attack"), ("c", "a", "support"), ("d", "b", "attack")]
    res = strengths(base, rel)
    assert res.acyclic
    assert res.values == pytest.approx({"a": 0.65, "b": 0.3, "c": 0.6, "d": 0.4})


def test_two_attackers_aggregate():
    # x (0.5) and y (0.5) attack t (0.8): F = 0.75 → 0.8 − 0.8·0.75 = 0.2
    res = strengths({"t": 0.8, "x": 0.5, "y": 0.5}, [("x", "t", "attack"), ("y", "t", "attack")])
    assert res.values["t"] == pytest.approx(0.2)


def test_cycle_iterates_to_a_fixed_point():
    res = strengths({"p": 0.5, "q": 0.5}, [("p", "q", "attack"), ("q", "p", "attack")])
    assert not res.acyclic and res.converged
    # symmetric fixed point: s = 0.5 − 0.5 s → s = 1/3
    assert res.values["p"] == pytest.approx(1 / 3, abs=1e-6)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="base score"):
        strengths({"a": 1.5}, [])
    with pytest.raises(ValueError, match="no base score"):
        strengths({"a": 0.5}, [("a", "zz", "attack")])


def test_crux_is_the_largest_divergence():
    assert crux({"A": {"a1": 0.9, "a2": 0.5}, "B": {"a1": 0.2, "a2": 0.4}}) == ("a1", pytest.approx(0.7))
    assert crux({"A": {"a1": 0.9}}) is None
