"""Holm's step-down correction against hand-computed values (issue 42: every family of comparisons)."""

from __future__ import annotations

import math

import pytest

from workbench.metrics.corrections import holm_adjusted


def test_holm_matches_a_hand_computation_in_input_order():
    # sorted: 0.01, 0.02, 0.03, 0.04, 0.20 (m = 5) → 5·0.01 = 0.05, 4·0.02 = 0.08, 3·0.03 = 0.09,
    # 2·0.04 = 0.08 → max(0.09, 0.08) = 0.09 (monotone), 1·0.20 = 0.20
    got = holm_adjusted([0.04, 0.20, 0.01, 0.03, 0.02])
    assert got == pytest.approx([0.09, 0.20, 0.05, 0.09, 0.08])


def test_holm_caps_at_one_and_leaves_missing_out_of_the_family():
    # the defined p's are 0.3 and 0.6 (m = 2): 2·0.3 = 0.6, 1·0.6 = 0.6
    got = holm_adjusted([0.6, None, float("nan"), 0.3])
    assert got[1] is None and got[2] is None
    assert got[0] == pytest.approx(0.6) and got[3] == pytest.approx(0.6)
    assert holm_adjusted([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm_adjusted([]) == []


def test_holm_refuses_a_p_outside_the_unit_interval():
    with pytest.raises(ValueError, match="must lie in"):
        holm_adjusted([0.1, 1.5])
    assert not math.isnan(holm_adjusted([0.0])[0])
