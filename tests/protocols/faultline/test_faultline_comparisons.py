"""Seed 002's comparisons (issue 31): CR between conditions, 0/20/50 nodes, every architecture against every
other, every pair of divergence levels; each row's Mann-Whitney U against SciPy and its mean difference and
bootstrap CI against SciPy's bootstrap, on fixed per-debate values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS
from workbench.protocols.faultline.analysis import summarise

CONDITIONS = ["plain", "graph-20", "graph-50", "qbaf", "latent-20", "single", "self-consistency"]
NODES = {"plain": 0, "qbaf": 0, "graph-20": 20, "latent-20": 20, "graph-50": 50}
ARCH = {"plain": "plain", "qbaf": "qbaf", "graph-20": "graph", "graph-50": "graph", "latent-20": "latent"}
LEVELS = ("low", "medium", "high")


def est(v):
    return {"value": v, "undefined_reason": None if v is not None else "planted undefined", "n": 1}


def fixture():
    """Per debate: BA, ΔSD, spread trend, CG and ACC from a seeded generator; plain's BA against each size."""
    rng = np.random.default_rng(5)
    docs, cr = [], []
    for cond in CONDITIONS:
        for k in range(6):
            level = LEVELS[k % 3]
            debate = cond in NODES
            m = {"ACC": est(float(rng.integers(0, 5)) / 4)}
            if cond == "self-consistency":   # its first two samples: the equal-votes reading
                m["ACC_equal_votes"] = est(float(rng.integers(0, 5)) / 4)
            if debate:
                m.update(BA_pooled=est(float(rng.uniform(0, 1))), dSD=est(float(rng.normal())),
                         spread_trend=est(float(rng.normal(0, 0.1))), CG=est(float(rng.uniform(0.3, 0.8))),
                         spread=[])
                if NODES[cond] == 0:
                    m["BA_against"] = {"20": est(float(rng.uniform(0, 0.3))), "50": est(float(rng.uniform(0, 0.3)))}
            docs.append({"condition": cond, "item": f"t{k}", "divergence": level if debate else None, "metrics": m})
            if debate:
                cr.append({"item": f"t{k}", "condition": cond, "runs": 5, "divergence": level,
                           **est(float(rng.integers(0, 4)) / 3 if k != 5 else None)})
    return docs, cr


def values(docs, cr, conds, metric, level=None, size=None):
    """The reference: one value per item (the independent unit, issue 42), the mean of its debates' values."""
    per = {}
    if metric == "CR":
        for g in cr:
            if g["condition"] in conds and g["value"] is not None and (level is None or g["divergence"] == level):
                per.setdefault(g["item"], []).append(g["value"])
        return [float(np.mean(v)) for v in per.values()]
    key = {"BA": "BA_pooled", "ACC on 2 votes": "ACC_equal_votes"}.get(metric, metric)
    for d in docs:
        if d["condition"] in conds and (level is None or d["divergence"] == level):
            e = d["metrics"]["BA_against"][str(size)] if (metric == "BA" and size and "BA_against" in d["metrics"]) \
                else d["metrics"][key]
            per.setdefault(d["item"], []).append(e["value"])
    return [float(np.mean(v)) for v in per.values()]


def check(row, x, y):
    """The row's U, p and rank-biserial r against SciPy; its mean difference and CI against scipy.stats.bootstrap."""
    mw = row["mann_whitney"]
    ties = len(set(x + y)) < len(x + y)
    ref = stats.mannwhitneyu(x, y, alternative="two-sided",
                             method="exact" if not ties and min(len(x), len(y)) <= 8 else "asymptotic")
    assert mw["details"]["U"] == pytest.approx(ref.statistic) and mw["details"]["p_value"] == pytest.approx(ref.pvalue)
    assert mw["value"] == pytest.approx(2 * ref.statistic / (len(x) * len(y)) - 1)
    diff = row["mean_difference"]
    assert diff["value"] == pytest.approx(np.mean(x) - np.mean(y))
    if min(len(x), len(y)) < MIN_BOOTSTRAP_UNITS:   # fewer units than the minimum: no interval, never a guess
        assert diff["ci_low"] is None and diff["ci_undefined_reason"].startswith("n too small")
        return
    boot = stats.bootstrap((np.array(x), np.array(y)), lambda a, b, axis: a.mean(axis) - b.mean(axis), vectorized=True,
                           n_resamples=9999, method="BCa", rng=np.random.default_rng(0))
    assert (diff["ci_low"], diff["ci_high"]) == pytest.approx((boot.confidence_interval.low,
                                                               boot.confidence_interval.high))


@pytest.fixture(scope="module")
def doc():
    docs, cr = fixture()
    return docs, cr, summarise(docs, cr, CONDITIONS)


def rows(doc, family):
    return {r["comparison"]: r for r in doc[2]["comparisons"] if r["family"] == family}


def test_cr_is_compared_between_conditions(doc):
    docs, cr, _ = doc
    row = rows(doc, "plain")["CR: graph-20 − plain"]
    check(row, values(docs, cr, ["graph-20"], "CR"), values(docs, cr, ["plain"], "CR"))
    assert row["mean_difference"]["n"] == 10        # the repeated debate whose CR is undefined drops out


def test_node_levels_pool_their_conditions_and_read_plain_ba_at_the_size_compared(doc):
    docs, cr, _ = doc
    got = rows(doc, "nodes")
    assert {k.split(": ")[1] for k in got} == {"20 nodes − 0 nodes", "50 nodes − 0 nodes", "50 nodes − 20 nodes"}
    zero, twenty, fifty = ["plain", "qbaf"], ["graph-20", "latent-20"], ["graph-50"]
    check(got["BA: 50 nodes − 0 nodes"], values(docs, cr, fifty, "BA"), values(docs, cr, zero, "BA", size=50))
    check(got["BA: 20 nodes − 0 nodes"], values(docs, cr, twenty, "BA"), values(docs, cr, zero, "BA", size=20))
    check(got["CR: 50 nodes − 20 nodes"], values(docs, cr, fifty, "CR"), values(docs, cr, twenty, "CR"))
    check(got["dSD: 20 nodes − 0 nodes"], values(docs, cr, twenty, "dSD"), values(docs, cr, zero, "dSD"))
    # graph-50 − plain reads plain against the 50-node graph too
    check(rows(doc, "plain")["BA: graph-50 − plain"], values(docs, cr, ["graph-50"], "BA"),
          values(docs, cr, ["plain"], "BA", size=50))


def test_every_architecture_against_every_other(doc):
    docs, cr, _ = doc
    got = rows(doc, "architecture")
    pairs = {k.split(": ")[1] for k in got}
    assert pairs == {"graph − plain", "qbaf − plain", "latent − plain", "qbaf − graph", "latent − graph",
                     "latent − qbaf"}
    assert len(got) == 6 * 6                          # six metrics each
    check(got["ACC: latent − graph"], values(docs, cr, ["latent-20"], "ACC"), values(docs, cr, ["graph-20", "graph-50"], "ACC"))
    check(got["CG: qbaf − plain"], values(docs, cr, ["qbaf"], "CG"), values(docs, cr, ["plain"], "CG"))


def test_every_pair_of_divergence_levels(doc):
    docs, cr, _ = doc
    got = rows(doc, "divergence")
    assert {k.split(": ")[1] for k in got} == {"medium − low divergence", "high − low divergence",
                                               "high − medium divergence"}
    debates = list(NODES)
    for metric in ("ACC", "CR", "spread_trend"):
        check(got[f"{metric}: high − low divergence"], values(docs, cr, debates, metric, "high"),
              values(docs, cr, debates, metric, "low"))


def test_a_dropped_repeated_debate_is_counted_in_its_condition_cell(doc):
    docs, cr, summary = doc
    cell = summary["conditions"]["graph-20"]["CR"]
    assert cell["n"] == 5 and cell["dropped"]["count"] == 1 and cell["dropped"]["of"] == 6
    assert "planted undefined (1)" in cell["dropped"]["reasons"]
    from workbench.protocols.faultline.report import fmt

    assert fmt(cell).endswith("(n=5; 1 of 6 repeated debates undefined)")


def test_each_debate_condition_against_the_baselines_on_both_readings_of_self_consistency(doc):
    """The headline's reading (2 votes) first, the seed's five-vote majority beside it, then single."""
    docs, cr, summary = doc
    got = rows(doc, "baselines")
    debates = [c for c in CONDITIONS if c in NODES]
    assert list(got) == [label for c in debates for label in (
        f"ACC: {c} − self-consistency on 2 votes", f"ACC: {c} − self-consistency on 5 votes (seed 002)",
        f"ACC: {c} − single")]
    for c in ("plain", "graph-50"):
        check(got[f"ACC: {c} − self-consistency on 2 votes"], values(docs, cr, [c], "ACC"),
              values(docs, cr, ["self-consistency"], "ACC on 2 votes"))
        check(got[f"ACC: {c} − self-consistency on 5 votes (seed 002)"], values(docs, cr, [c], "ACC"),
              values(docs, cr, ["self-consistency"], "ACC"))
        check(got[f"ACC: {c} − single"], values(docs, cr, [c], "ACC"), values(docs, cr, ["single"], "ACC"))
    head = summary["headline"]
    check(head, values(docs, cr, debates, "ACC"), values(docs, cr, ["self-consistency"], "ACC on 2 votes"))
    check(head["five_votes"], values(docs, cr, debates, "ACC"), values(docs, cr, ["self-consistency"], "ACC"))
    assert summary["conditions"]["self-consistency"]["ACC_equal_votes"]["value"] == pytest.approx(
        np.mean(values(docs, cr, ["self-consistency"], "ACC on 2 votes")))


def _holm_reference(ps):
    """Holm written out: the i-th smallest p times (m − i), running maximum, capped at 1."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def test_every_family_is_holm_adjusted_with_the_uncorrected_p_beside_it(doc):
    """Issue 42 item 4: about 107 rows with uncorrected p; now each family carries Holm's p, and the report
    prints both and names the correction."""
    for family in ("baselines", "plain", "nodes", "architecture", "divergence"):
        fam = list(rows(doc, family).values())
        ps = [r["mann_whitney"]["details"]["p_value"] for r in fam]
        assert all(p is not None for p in ps)
        assert [r["p_holm"] for r in fam] == pytest.approx(_holm_reference(ps))
        assert {r["holm_m"] for r in fam} == {len(fam)}
    from workbench.protocols.faultline.report import comparison_tables

    text = comparison_tables(doc[2], {})
    assert "| p (uncorrected) | p (Holm) |" in text and "Holm over the family's 36 comparison(s)" in text
    row = rows(doc, "architecture")["ACC: latent − graph"]
    p, holm = row["mann_whitney"]["details"]["p_value"], row["p_holm"]
    assert f"| {p:.4g} | {holm:.4g} |" in text


def test_a_pooled_level_over_an_unbalanced_design_says_what_it_pools(doc):
    """"BA: 50 nodes − 20 nodes" was graph-50 against graph- and latent-20 without a word."""
    got = rows(doc, "nodes")
    assert got["BA: 50 nodes − 20 nodes"]["pooling"] == "unbalanced: pools architectures graph against graph, latent"
    assert got["BA: 20 nodes − 0 nodes"]["pooling"] == ("unbalanced: pools architectures graph, latent against "
                                                        "plain, qbaf")
    arch = rows(doc, "architecture")
    assert arch["CG: qbaf − plain"]["pooling"] is None                       # both 0 nodes: alike
    assert arch["CG: latent − graph"]["pooling"] == "unbalanced: pools node counts 20 against 20, 50"
    assert all(r["pooling"] is None for r in rows(doc, "divergence").values())   # every condition at every level
    from workbench.protocols.faultline.report import comparison_tables

    assert ("BA: 50 nodes − 20 nodes (unbalanced: pools architectures graph against graph, latent)"
            in comparison_tables(doc[2], {}))


def test_the_report_claims_of_sample_zero_only_what_the_call_keys_keep():
    """Issue 42 item 7: "sample 0 is the single answer's draw" was printed for every model; on `sim` the call keys
    of single and self-consistency sample 0 differ (the simulator keys by run and condition), on a real model
    they are one call. The report says which."""
    from workbench.gateway.api import CallRequest, ModelSettings
    from workbench.gateway.client import call_key
    from workbench.protocols.faultline.report import headline_rule_line

    def key(model: str, cond: str) -> str:
        return call_key(CallRequest([{"role": "user", "content": "Answer the question"}], ModelSettings(model=model),
                                    study_id="s", run_id=f"t1/{cond}/0", turn="answer", agent="model",
                                    metadata={"item": "t1", "condition": cond, "replicate": 0}))

    assert key("sim", "single") != key("sim", "self-consistency")
    assert key("openai/x", "single") == key("openai/x", "self-consistency")
    line = headline_rule_line({})
    assert "sample 0 is the single answer's draw" not in line
    assert "`sim` model draws each condition apart" in line and "the gateway serves once" in line
