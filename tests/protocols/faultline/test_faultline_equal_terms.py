"""ACC on equal terms (issue 31): the same per-agent accuracy planted in the `sim` model's World for a debate
and a single answer gives no difference under the default split rule (a split pair earns half); the strict
rule, kept as the study option acc_tie = "strict", reads p² for the debate. The vote is the analysis's own."""

from __future__ import annotations

import math

import pytest

from workbench.protocols.faultline.analysis import _acc, baseline_metrics
from workbench.protocols.faultline.comparisons import compare
from workbench.protocols.faultline.simulate import World

P = 0.7
CLAIMS = [{"id": "v1", "truth": True}, {"id": "v2", "truth": False}]


def world(item: str, cond: str) -> World:
    w = World.__new__(World)
    w.params, w.seed, w.item_id, w.condition, w.replicate = {"accuracy": {cond: P}}, 11, item, cond, 0
    w.personas = ["a", "b"]
    return w


def debate_acc(i: int, tie: str) -> float:
    """A debate's ACC: each persona's closing stance on each verifiable claim as the sim model draws it."""
    w = world(f"d{i}", "plain")
    voters = [{c["id"]: w.verifiable(c, persona) for c in CLAIMS} for persona in ("a", "b")]
    return _acc(voters, CLAIMS, tie)[0]["value"]


def single_acc(i: int, tie: str) -> float:
    w = world(f"d{i}", "single")
    report = {"stances": [{c["id"]: w.verifiable(c, "answer", 0) for c in CLAIMS}], "errors": []}
    return baseline_metrics(report, CLAIMS, tie)["ACC"]["value"]


@pytest.mark.parametrize("tie, want", [("half", P), ("strict", P ** 2)])
def test_a_debate_reads_the_per_agent_accuracy_under_the_half_rule(tie, want):
    n = 4000
    got = sum(debate_acc(i, tie) for i in range(n)) / n
    assert got == pytest.approx(want, abs=4 * math.sqrt(0.25 / (2 * n)))


def test_equal_planted_accuracy_gives_no_difference_between_debate_and_single():
    n = 200
    half = compare([debate_acc(i, "half") for i in range(n)], [single_acc(i + n, "half") for i in range(n)], "x")
    diff = half["mean_difference"]
    assert diff["ci_low"] < 0 < diff["ci_high"] and abs(diff["value"]) < 0.08
    assert half["mann_whitney"]["details"]["p_value"] > 0.05
    # the strict rule puts the debate below the single answer with the same per-agent accuracy
    strict = compare([debate_acc(i, "strict") for i in range(n)], [single_acc(i + n, "strict") for i in range(n)], "x")
    assert strict["mean_difference"]["ci_high"] < 0


def sc_report(i: int) -> dict:
    w = world(f"d{i}", "self-consistency")
    return {"stances": [{c["id"]: w.verifiable(c, "answer", k) for c in CLAIMS} for k in range(5)], "errors": []}


def test_self_consistency_on_equal_votes_reads_the_per_agent_accuracy_and_five_votes_the_majority():
    n = 3000
    docs = [baseline_metrics(sc_report(i), CLAIMS) for i in range(n)]
    five = sum(d["ACC"]["value"] for d in docs) / n
    two = sum(d["ACC_equal_votes"]["value"] for d in docs) / n
    tol = 4 * math.sqrt(0.25 / (2 * n))
    assert two == pytest.approx(P, abs=tol)                                 # two votes, a split earns half: p
    assert five == pytest.approx(sum(math.comb(5, k) * P ** k * (1 - P) ** (5 - k) for k in (3, 4, 5)), abs=tol)
    # the headline's equal-votes line: debate − self-consistency over two samples shows no difference
    from workbench.protocols.faultline.analysis import summarise

    debates = [{"condition": "plain", "metrics": {"ACC": {"value": debate_acc(i, "half"), "undefined_reason": None}}}
               for i in range(200)]
    scs = [{"condition": "self-consistency", "metrics": docs[i]} for i in range(200)]
    head = summarise(debates + scs, [], ["plain", "self-consistency"])["headline"]
    equal = head["equal_votes"]["mean_difference"]
    assert equal["ci_low"] < 0 < equal["ci_high"]
    assert head["mean_difference"]["ci_high"] < 0 and head["answer"] == "no"   # five votes beat two
