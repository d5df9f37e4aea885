"""Each quality figure against a hand computation on fixed scores (workbench/evaluators/quality.py)."""

from __future__ import annotations

import pytest

from workbench.evaluators.quality import Evaluations, evaluator_quality

# Two gold items (g1, g2), one attention item (att), three real items (r1..r3); one rubric "ant" with two
# criteria "a" (0..3) and "b" (0..1).
PLANTED = {
    "g1": {"kind": "gold", "expected": {"ant": {"a": 3, "b": 1}}},
    "g2": {"kind": "gold", "expected": {"ant": {"a": 0, "b": 0}}},
    "att": {"kind": "attention", "expected": {"ant": {"a": 1, "b": 1}}},
}


def cells(item: str, a: int, b: int) -> dict:
    return {(item, "ant", "a"): float(a), (item, "ant", "b"): float(b)}


def rater(name: str, values: dict, order: list[str], seconds: dict | None = None) -> Evaluations:
    return Evaluations(name, "human", values, {item: k for k, item in enumerate(order)}, seconds or {})


@pytest.fixture
def figures():
    # rater x meets: g1, r1, att, r2, g2, r3
    x = rater("x", {**cells("g1", 2, 1), **cells("r1", 3, 1), **cells("att", 1, 1), **cells("r2", 1, 0),
                    **cells("g2", 0, 1), **cells("r3", 2, 0)},
              ["g1", "r1", "att", "r2", "g2", "r3"], {"g1": 30.0, "r1": 4.0, "att": 2.0, "r2": 12.0, "g2": 60.0})
    # y and z: the others, on the real items
    y = rater("y", {**cells("r1", 3, 1), **cells("r2", 0, 0), **cells("r3", 2, 1), **cells("att", 2, 1)},
              ["r1", "r2", "r3", "att"])
    z = rater("z", {**cells("r1", 2, 1), **cells("r2", 1, 0), **cells("r3", 3, 0)}, ["r1", "r2", "r3"])
    return {q.evaluator: q for q in evaluator_quality([x, y, z], PLANTED, floor=5.0)}


def test_gold_accuracy_exact_and_within_one(figures):
    q = figures["x"]
    # g1: a 2 vs 3 (miss, within one), b 1 vs 1 (hit); g2: a 0 vs 0 (hit), b 1 vs 0 (miss, within one)
    assert (q.gold_items, q.gold_cells) == (2, 4)
    assert q.gold_exact == pytest.approx(2 / 4)
    assert q.gold_within_one == pytest.approx(4 / 4)


def test_drift_is_second_half_minus_first_half_on_gold(figures):
    # first half (g1): 1 of 2 exact; second half (g2): 1 of 2 exact -> 0
    assert figures["x"].drift == pytest.approx(0.0)


def test_attention_passes(figures):
    assert (figures["x"].attention_items, figures["x"].attention_passed, figures["x"].attention_pass) == (1, 1, 1.0)
    assert (figures["y"].attention_items, figures["y"].attention_passed, figures["y"].attention_pass) == (1, 0, 0.0)
    assert figures["z"].attention_pass is None and figures["z"].attention_items == 0


def test_time_median_and_share_under_the_floor(figures):
    q = figures["x"]
    # seconds 30, 4, 2, 12, 60 -> median 12; under 5 s: 4 and 2 -> 2 of 5
    assert (q.timed_items, q.median_seconds, q.under_floor) == (5, 12.0, pytest.approx(0.4))
    assert figures["y"].median_seconds is None and figures["y"].under_floor is None


def test_straight_lining_run_and_modal_share(figures):
    q = figures["x"]
    # values in x's order without the attention item: g1 2,1  r1 3,1  r2 1,0  g2 0,1  r3 2,0
    sequence = [2, 1, 3, 1, 1, 0, 0, 1, 2, 0]
    assert q.longest_run == 2            # 1,1 and 0,0
    assert q.modal_share == pytest.approx(sequence.count(1) / len(sequence))


def test_leave_one_out_agreement_is_spearman_with_the_others_mean(figures):
    # x on the real cells, against the mean of y and z (planted items left out):
    mine = [3, 1, 1, 0, 2, 0]                            # r1 a,b  r2 a,b  r3 a,b
    others = [2.5, 1.0, 0.5, 0.0, 2.5, 0.5]
    assert figures["x"].loo_cells == 6
    assert figures["x"].loo_agreement == pytest.approx(_spearman_by_hand(mine, others))


def _ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _spearman_by_hand(x, y):
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den


def test_a_straight_liner_has_no_agreement_and_a_full_run():
    flat = rater("flat", {**cells("r1", 1, 1), **cells("r2", 1, 1), **cells("r3", 1, 1)}, ["r1", "r2", "r3"])
    other = rater("o", {**cells("r1", 3, 1), **cells("r2", 0, 0), **cells("r3", 2, 1)}, ["r1", "r2", "r3"])
    q = evaluator_quality([flat, other], {}, floor=5.0)[0]
    assert q.loo_agreement is None                  # a constant side: rho undefined, never 0 or NaN
    assert q.modal_share == 1.0 and q.longest_run == 6   # 1,1,1,1,1,1


def test_a_judge_has_no_time_and_drift_needs_two_gold_items():
    judge = Evaluations("j", "judge", {**cells("g1", 3, 1)}, {"g1": 1})
    q = evaluator_quality([judge], PLANTED, floor=5.0)[0]
    assert q.gold_exact == 1.0 and q.drift is None and q.median_seconds is None and q.timed_items == 0
