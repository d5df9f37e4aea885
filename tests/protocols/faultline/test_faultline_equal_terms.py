"""ACC on equal terms (issue 31): with the same per-agent accuracy planted in every condition, the headline and
every row against a baseline read no difference; a planted debate advantage is detected.

Stances are the `sim` model's own draws (its World, called directly), scored by the analysis's vote and coin
(`_acc`, `baseline_metrics`, `coin_key`) and compared by the analysis's `headline` and `baseline_comparisons`
(the core's bootstrap CI and Mann-Whitney U). The headline reads self-consistency on as many votes as a
persona pair (`acc_headline = "equal-votes"`); the seed's five-vote majority is the row beside it, and with
equal per-agent accuracy it favours five votes, as the binomial says it must."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest
from scipy import stats

from workbench.protocols.faultline.analysis import _acc, baseline_metrics, coin_key, headline
from workbench.protocols.faultline.comparisons import baseline_comparisons, compare
from workbench.protocols.faultline.measures import COIN, EQUAL_VOTES, FIVE_VOTES, HALF, STRICT
from workbench.protocols.faultline.simulate import World

P = 0.7
CLAIMS = [{"id": "v1", "truth": True}, {"id": "v2", "truth": False}]
DEBATES = ["plain", "graph-20"]
CONDITIONS = [*DEBATES, "single", "self-consistency"]


def world(item: str, cond: str, p: float = P, replicate: int = 0, seed: int = 11) -> World:
    w = World.__new__(World)
    w.params, w.seed, w.item_id, w.condition, w.replicate = {"accuracy": {cond: p}}, seed, item, cond, replicate
    w.personas = ["a", "b"]
    return w


def debate_acc(item: str, cond: str, tie: str, p: float = P, replicate: int = 0, seed: int = 11,
               claims: list[dict] = CLAIMS) -> float:
    """A debate's ACC: each persona's closing stance on each verifiable claim as the sim model draws it."""
    w = world(item, cond, p, replicate, seed)
    voters = [{c["id"]: w.verifiable(c, persona) for c in claims} for persona in ("a", "b")]
    return _acc(voters, claims, tie, coin_key(item, cond, replicate))[0]["value"]


def baseline(item: str, cond: str, tie: str, p: float = P, replicate: int = 0, seed: int = 11,
             claims: list[dict] = CLAIMS) -> dict:
    w = world(item, cond, p, replicate, seed)
    samples = 5 if cond == "self-consistency" else 1
    report = {"stances": [{c["id"]: w.verifiable(c, "answer", k) for c in claims} for k in range(samples)],
              "errors": []}
    return baseline_metrics(report, claims, tie, coin_key(item, cond, replicate))


@pytest.mark.parametrize("tie, want", [(COIN, P), (HALF, P), (STRICT, P ** 2)])
def test_a_debate_reads_the_per_agent_accuracy_unless_the_rule_is_strict(tie, want):
    n = 4000
    got = sum(debate_acc(f"d{i}", "plain", tie) for i in range(n)) / n
    assert got == pytest.approx(want, abs=4 * math.sqrt(0.25 / (2 * n)))


def test_under_the_coin_a_debate_and_a_single_answer_have_one_distribution():
    """Not only the mean: the share of runs at 0, 0.5 and 1 is the single answer's (a chi-square test), which
    is what Mann-Whitney compares. Half credit has the same mean and other shares (0.25 and 0.75 occur)."""
    n = 3000
    coin = [debate_acc(f"d{i}", "plain", COIN) for i in range(n)]
    single = [baseline(f"s{i}", "single", COIN)["ACC"]["value"] for i in range(n)]
    levels = (0.0, 0.5, 1.0)
    table = [[sum(v == lv for v in coin) for lv in levels], [sum(v == lv for v in single) for lv in levels]]
    assert stats.chi2_contingency(table).pvalue > 0.001
    assert {debate_acc(f"d{i}", "plain", HALF) for i in range(50)} & {0.25, 0.75}


def simulated_study(seed: int, p_debate: float, p_baseline: float, topics: int = 8, pairs: int = 2,
                    replicates: int = 3) -> list[dict]:
    """One study's per-run ACC documents: `topics` topics of two verifiable claims (one true, one false), each
    debated by `pairs` persona pairs in every debate condition, and the baselines on each topic, every run
    `replicates` times, under the default coin. Each study has topics of its own: the coin is keyed by what a
    run measured, so studies sharing topic names would share their coins."""
    docs = []
    for topic in (f"s{seed}-t{t}" for t in range(topics)):
        claims = [{"id": f"{topic}-v0", "truth": True}, {"id": f"{topic}-v1", "truth": False}]
        for r in range(replicates):
            for pair in range(pairs):
                for cond in DEBATES:
                    value = debate_acc(f"{topic}--p{pair}", cond, COIN, p_debate, r, seed, claims)
                    docs.append({"condition": cond, "item": f"{topic}--p{pair}",
                                 "metrics": {"ACC": {"value": value, "undefined_reason": None}}})
            for cond in ("single", "self-consistency"):
                docs.append({"condition": cond, "item": topic,
                             "metrics": baseline(topic, cond, COIN, p_baseline, r, seed, claims)})
    return docs


def rows_of(docs: list[dict]) -> list[dict]:
    head = headline(docs, CONDITIONS, EQUAL_VOTES)
    return [head["equal_votes"], head["five_votes"], *baseline_comparisons(docs, CONDITIONS, EQUAL_VOTES)], head


def significant(row: dict) -> bool:
    p = row["mann_whitney"]["details"]["p_value"]
    return p is not None and p < 0.05


def excludes_zero(row: dict) -> bool:
    d = row["mean_difference"]
    return d["ci_low"] is not None and (d["ci_low"] > 0 or d["ci_high"] < 0)


SEEDS = 40
# Under no difference each row's test rejects with chance 0.05: 7 or more of 40 has chance 0.0086 (binomial)
BOUND = 6


@pytest.mark.parametrize("p", [0.6, 0.8])
def test_equal_per_agent_accuracy_reads_no_difference_on_the_headline_and_every_baseline_row(p):
    """40 simulated studies at each p: the headline and each debate condition against single and against
    self-consistency on 2 votes stay within what chance allows a true null; the seed's five-vote rows
    favour self-consistency (its majority of five reads P(Bin(5, p) ≥ 3) > p)."""
    assert stats.binom.sf(BOUND, SEEDS, 0.05) < 0.01
    rejected, excluded, answers, five = defaultdict(int), defaultdict(int), defaultdict(int), []
    for seed in range(SEEDS):
        rows, head = rows_of(simulated_study(seed, p, p))
        answers[head["answer"]] += 1
        for row in rows:
            rejected[row["comparison"]] += significant(row)
            excluded[row["comparison"]] += excludes_zero(row)
            if "5 votes" in row["comparison"] and "all debate" in row["comparison"]:
                five.append(row["mean_difference"]["value"])
    equal = [c for c in rejected if "5 votes" not in c]
    assert sorted(equal) == sorted(["ACC: all debate conditions − self-consistency on 2 votes",
                                    *(f"ACC: {c} − self-consistency on 2 votes" for c in DEBATES),
                                    *(f"ACC: {c} − single" for c in DEBATES)])
    for label in equal:
        assert rejected[label] <= BOUND and excluded[label] <= BOUND, (label, rejected[label], excluded[label])
    assert answers["undecided"] >= SEEDS - BOUND and answers["yes"] + answers["no"] <= BOUND
    # the seed's comparison, beside it: five votes beat two by P(Bin(5, p) >= 3) - p on average
    gap = float(stats.binom.sf(2, 5, p)) - p
    assert sum(five) / len(five) == pytest.approx(-gap, abs=0.03)
    seed_row = "ACC: all debate conditions − self-consistency on 5 votes (seed 002)"
    if p == 0.8:   # a gap of 0.14, against 24 self-consistency runs: seen far more often than chance allows
        assert rejected[seed_row] > 2 * BOUND


def test_a_planted_debate_advantage_is_detected():
    """Debates right with chance 0.85 a stance, the baselines 0.55: the headline says yes and every row
    against a baseline detects it, in nearly every simulated study."""
    seeds = 20
    answers, detected = defaultdict(int), defaultdict(int)
    for seed in range(seeds):
        rows, head = rows_of(simulated_study(100 + seed, 0.85, 0.55))
        answers[head["answer"]] += 1
        for row in rows:
            d = row["mean_difference"]
            detected[row["comparison"]] += significant(row) and d["ci_low"] is not None and d["ci_low"] > 0
    assert answers["yes"] >= seeds - 2
    assert all(n >= seeds - 3 for label, n in detected.items() if "5 votes" not in label), dict(detected)


def test_the_half_rule_has_the_mean_but_not_the_distribution_of_a_single_answer():
    """Why the coin is the default: under half credit, with equal per-agent accuracy 0.8, a large study's
    Mann-Whitney test tells debates from single answers far more often than 5% (the faultline power model,
    which test_faultline_power checks against the sim model's draws); under the coin it does not."""
    from workbench.protocols.faultline import power as fp

    params = {"seed": 4, "accuracy": {"plain": 0.8, "single": 0.8}}
    sims = 2000
    share = {}
    for tie in (COIN, HALF):
        # one run a unit: averaging repeats (the comparisons' unit since issue 42) smooths the spread it tests
        layout = fp.Layout(((2, 2),) * 40, pairs=3, replicates=1, rounds=2, tie=tie)
        mean_a, mean_b, share[tie] = fp.simulate("ACC: plain − single", "ACC", ["plain"], "single", params, layout,
                                                 sims)
        assert mean_a == pytest.approx(mean_b, abs=0.01)
    tol = 4 * math.sqrt(0.05 * 0.95 / sims)
    assert share[COIN] <= 0.05 + tol and share[HALF] > 0.15


def test_the_equal_votes_reading_is_the_per_agent_accuracy_and_five_votes_the_majority():
    n = 3000
    docs = [baseline(f"d{i}", "self-consistency", COIN) for i in range(n)]
    five = sum(d["ACC"]["value"] for d in docs) / n
    two = sum(d["ACC_equal_votes"]["value"] for d in docs) / n
    tol = 4 * math.sqrt(0.25 / (2 * n))
    assert two == pytest.approx(P, abs=tol)                                 # two votes, a split by a coin: p
    assert five == pytest.approx(sum(math.comb(5, k) * P ** k * (1 - P) ** (5 - k) for k in (3, 4, 5)), abs=tol)


def test_a_stored_study_keeps_the_five_vote_verdict_it_was_frozen_with():
    """acc_headline "five-votes" (what a study stored before the key has): the verdict is the seed's
    comparison, and the equal-votes row is in the document beside it."""
    docs = simulated_study(7, P, P)
    five = headline(docs, CONDITIONS, FIVE_VOTES)
    assert five["comparison"] == "ACC: all debate conditions − self-consistency on 5 votes (seed 002)"
    assert five["question"] == "Debate beats self-consistency on ACC" and five["basis"] == FIVE_VOTES
    assert five["mean_difference"] == five["five_votes"]["mean_difference"]
    assert five["equal_votes"]["comparison"] == "ACC: all debate conditions − self-consistency on 2 votes"
    equal = headline(docs, CONDITIONS, EQUAL_VOTES)
    assert equal["question"] == "Debate beats self-consistency on equal votes (ACC)"
    assert equal["mean_difference"] == equal["equal_votes"]["mean_difference"] == five["equal_votes"]["mean_difference"]
    rows = [r["comparison"] for r in baseline_comparisons(docs, CONDITIONS, FIVE_VOTES)][:3]
    assert rows == ["ACC: plain − self-consistency on 5 votes (seed 002)",
                    "ACC: plain − self-consistency on 2 votes", "ACC: plain − single"]


def test_equal_planted_accuracy_gives_no_difference_between_debate_and_single_under_coin_or_half():
    n = 200
    for tie in (COIN, HALF):
        row = compare([debate_acc(f"d{i}", "plain", tie) for i in range(n)],
                      [baseline(f"s{i}", "single", tie)["ACC"]["value"] for i in range(n)], "x")
        assert row["mean_difference"]["ci_low"] < 0 < row["mean_difference"]["ci_high"]
    # the strict rule puts the debate below the single answer with the same per-agent accuracy
    strict = compare([debate_acc(f"d{i}", "plain", STRICT) for i in range(n)],
                     [baseline(f"s{i}", "single", STRICT)["ACC"]["value"] for i in range(n)], "x")
    assert strict["mean_difference"]["ci_high"] < 0


@pytest.mark.parametrize("tie, basis", [(COIN, EQUAL_VOTES), (HALF, FIVE_VOTES)])
def test_the_report_names_the_rules_and_labels_the_seeds_comparison(tie, basis):
    """The `metrics` text and the report (one function): the verdict first, on the study's headline; the
    other reading of self-consistency beside it, labelled; the split rule and the headline rule named."""
    from workbench.protocols.faultline.analysis import summarise
    from workbench.protocols.faultline.report import text

    docs = simulated_study(3, P, P)
    doc = summarise(docs, [], CONDITIONS, {"embedding_model": "m", "acc_tie": tie, "acc_headline": basis,
                                           "crux_similarity": 0.7, "hdbscan_min_cluster_size": 2})
    head = text(doc).split("## Faultline metrics by condition", 1)[0]
    h = doc["headline"]
    if basis == EQUAL_VOTES:
        assert head.startswith("## Faultline: does debate beat self-consistency?\n\nDebate beats self-consistency "
                               f"on equal votes (ACC): **{h['answer']}** — ACC: all debate conditions − "
                               "self-consistency on 2 votes: mean difference")
        assert 'Headline (acc_headline = "equal-votes", the project\'s choice)' in head
        five = h["five_votes"]["mean_difference"]
        assert (f"Seed 002's comparison (five-vote majority; not the verdict): ACC: all debate conditions − "
                f"self-consistency on 5 votes (seed 002): mean difference {five['value']:.3f}") in head
        assert 'ACC rule (acc_tie = "coin", the project\'s default)' in head
    else:   # a study stored before acc_headline: the seed's verdict, the equal-votes comparison beside it
        assert f"Debate beats self-consistency on ACC: **{h['answer']}** — ACC: all debate conditions − " \
               "self-consistency on 5 votes (seed 002)" in head
        assert 'Headline (acc_headline = "five-votes", seed 002\'s comparison' in head
        assert "On equal votes (the project's like-with-like comparison; not this study's verdict): ACC: all " \
               "debate conditions − self-consistency on 2 votes" in head
        assert 'ACC rule (acc_tie = "half", a study option)' in head
    table = text(doc).split("## Faultline metrics by condition", 1)[1]
    two = doc["conditions"]["self-consistency"]["ACC_equal_votes"]
    assert ("over its first two samples alone (the equal-votes reading, split rule as above) it reads "
            f"{two['value']:.3f}") in table
