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


RUNS = ["r1", "r2", "r3", "r4", "r5"]


def _cruxes(n: int, seed: int = 3):
    """n crux directions far apart (random in 64 dimensions: pairwise cosine near 0)."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 64))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _asked(crux, runs, seed: int = 0):
    """The crux asked once in each of `runs`, each time in slightly other words (cosine ≈ 0.99)."""
    rng = np.random.default_rng(seed)
    return [crux + rng.normal(0, 0.01, len(crux)) for _ in runs], list(runs)


def test_cr_every_question_recurring_in_every_run_is_1():
    a, b = _cruxes(2)
    (qa, ra), (qb, rb) = _asked(a, RUNS), _asked(b, RUNS, 1)
    est = m.crux_recurrence(np.array(qa + qb), ra + rb)
    assert est.value == 1.0 and est.details["clusters"] == 2 and est.details["noise"] == 0


def test_cr_one_crux_asked_identically_in_all_five_runs_is_1_not_undefined():
    est = m.crux_recurrence(np.array([E[0]] * 5), RUNS)
    assert est.value == 1.0 and est.details == {"stable": 1, "clusters": 1, "noise": 0, "questions": 5, "runs": 5}


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_cr_fifteen_questions_that_never_recur_read_0_whatever_their_runs(order):
    runs = list(np.random.default_rng(order).permutation(RUNS * 3))
    est = m.crux_recurrence(_cruxes(15, seed=order), runs)
    # each question is HDBSCAN noise: a crux of its own, found in one run; none spans 3
    assert est.value == 0.0 and est.details["noise"] == 15 and est.details["clusters"] == 0 and est.n == 15


def test_cr_half_the_cruxes_recurring_is_half():
    a, b, c, d = _cruxes(4)
    (qa, ra), (qb, rb) = _asked(a, RUNS), _asked(b, RUNS, 1)
    est = m.crux_recurrence(np.array(qa + qb + [c, d]), ra + rb + ["r1", "r4"])
    assert est.value == pytest.approx(0.5)
    assert est.details == {"stable": 2, "clusters": 2, "noise": 2, "questions": 12, "runs": 5}


def test_cr_a_crux_in_two_runs_is_a_cluster_but_not_stable():
    a, b = _cruxes(2)
    (qa, ra), (qb, rb) = _asked(a, RUNS), _asked(b, ["r1", "r2"], 1)
    est = m.crux_recurrence(np.array(qa + qb), ra + rb)
    assert est.value == pytest.approx(0.5) and est.details["clusters"] == 2 and est.details["stable"] == 1
    # min_cluster_size 3: the pair is too small to be a cluster: two noise points, each a one-run crux
    wide = m.crux_recurrence(np.array(qa + qb), ra + rb, min_cluster_size=3)
    assert wide.value == pytest.approx(1 / 3) and wide.details["noise"] == 2 and "min_cluster_size 3" in wide.method


def test_cr_same_crux_similarity_is_the_line_between_one_crux_and_none():
    # five questions, one a run, each pair at cosine 0.8 (a shared axis plus one of its own)
    eye = np.eye(6)
    asked = np.array([math.sqrt(0.8) * eye[0] + math.sqrt(0.2) * eye[i] for i in range(1, 6)])
    assert (asked @ asked.T)[0, 1] == pytest.approx(0.8)
    assert m.crux_recurrence(asked, RUNS).value == 1.0                       # one crux at 0.7 (the default)
    apart = m.crux_recurrence(asked, RUNS, same=0.9)
    assert apart.value == 0.0 and apart.details["noise"] == 5                 # five one-off cruxes at 0.9


def test_cr_undefined_with_fewer_than_three_runs():
    a = _cruxes(1)[0]
    assert "a stable cluster spans 3" in m.crux_recurrence(np.array([a, a]), ["r1", "r2"]).undefined_reason


def test_cr_on_minilm_questions(minilm):
    """The bundled MiniLM: one crux asked in every run in other words, and five one-off questions."""
    recurring = ["Is nuclear waste storage a solved problem?", "Is the storage of nuclear waste a solved problem?",
                 "Is nuclear waste storage a solved problem?", "Has the problem of storing nuclear waste been solved?",
                 "Is nuclear waste storage a solved problem today?"]
    one_off = ["Should cities ban cars from their centres?", "Does a four-day week raise productivity?",
               "Will sugar taxes reduce obesity?", "Should phones be banned in schools?",
               "Does rent control reduce housing supply?"]
    est = m.crux_recurrence(minilm.embed(recurring + one_off), RUNS + RUNS)
    assert est.details == {"stable": 1, "clusters": 1, "noise": 5, "questions": 10, "runs": 5}
    assert est.value == pytest.approx(1 / 6)


def test_vote_credit_and_its_tie_rules():
    # a persona pair: both right 1, both wrong 0, split half under "half" (strict: 0)
    H, S = m.HALF, m.STRICT
    assert m.vote_credit([2, 1], True) == 1.0 and m.vote_credit([-1, -2], True) == 0.0
    assert m.vote_credit([1, -1], True, H) == 0.5 and m.vote_credit([1, -1], True, S) == 0.0
    assert m.vote_credit([1, -1], False, H) == 0.5
    assert m.vote_credit([1, None], True) == 1.0           # one persona took no stance: the other's counts
    assert m.vote_credit([None, None], True) == 0.0         # nobody took a stance: not correct
    assert m.vote_credit([0, 0], True) == 0.0               # a neutral majority is not correct
    assert m.vote_credit([1, 0], True, H) == 0.5            # right and neutral tie
    # five samples: 2 for, 2 against, 1 neutral → for and against tie: half
    assert m.vote_credit([1, 2, -1, -1, 0], True, H) == 0.5 and m.vote_credit([1, 2, -1, -1, 0], True, S) == 0
    assert m.vote_credit([1, 1, 1, -1, -1], True) == 1.0 and m.vote_credit([1, 1, 1, -1, -1], False) == 0.0
    assert m.vote_credit([1, -1, 0], True, H) == pytest.approx(1 / 3)   # three signs tied


def test_the_coin_settles_a_tie_fairly_and_reproducibly():
    """acc_tie "coin" (the default): a split earns 0 or 1, the same for the same key, and over many keys the
    tied true sign wins with chance 1/k (a binomial test against 1/2 and 1/3, and the draw by hand)."""
    import hashlib

    from scipy import stats

    keys = [f"topic--pair|plain|{r}|v{c}" for r in range(600) for c in range(2)]
    two = [m.vote_credit([1, -1], True, m.COIN, k) for k in keys]
    assert set(two) == {0.0, 1.0}
    assert two == [m.vote_credit([-1, 1], True, m.COIN, k) for k in keys]       # the order of the voters: no matter
    assert stats.binomtest(int(sum(two)), len(two), 0.5).pvalue > 0.001
    three = [m.vote_credit([1, -1, 0], True, m.COIN, k) for k in keys]
    assert stats.binomtest(int(sum(three)), len(three), 1 / 3).pvalue > 0.001
    # by hand: the tied signs sorted (−1, 0, +1), the index the first 8 bytes of SHA-256 of the key, mod k
    for k in keys[:50]:
        pick = [-1, 1][int(hashlib.sha256(k.encode()).hexdigest()[:16], 16) % 2]
        assert m.vote_credit([1, -1], True, m.COIN, k) == (1.0 if pick == 1 else 0.0)
        assert m.vote_credit([1, -1], False, m.COIN, k) == (1.0 if pick == -1 else 0.0)   # one sign wins the toss
    assert m.vote_credit([1, 1, -1], True, m.COIN, "any") == 1.0                # no tie: no coin


def test_majority_and_accuracy():
    assert m.majority([2, 1, -1, None, 1]) == 1
    assert m.majority([2, -2]) is None          # a tie is no majority
    assert m.majority([None, None]) is None
    truths = {"v1": True, "v2": False, "v3": True}
    est = m.accuracy({"v1": 1.0, "v2": 0.5, "v3": 0.0}, truths)
    assert est.value == pytest.approx(1.5 / 3) and est.details["correct"] == 1.5 and est.n == 3
    # v3's stance extraction failed for every voter: left out, counted
    est = m.accuracy({"v1": 1.0, "v2": 0.0, "v3": None}, truths)
    assert est.value == pytest.approx(0.5) and est.details["unextracted"] == 1
    assert "no verifiable claims" in m.accuracy({}, {}).undefined_reason
    assert "could be extracted" in m.accuracy({"v1": None}, truths).undefined_reason


def test_thresholds_are_the_seeds():
    assert m.meets("BA", 0.61) and not m.meets("BA", 0.6)
    assert m.meets("dSD", 0.0) and not m.meets("dSD", -0.01)
    assert m.meets("CG", 0.56) and not m.meets("CG", 0.55)
    assert m.meets("CR", 0.41) and not m.meets("CR", 0.4)
    assert m.meets("ACC", 0.9) is None
