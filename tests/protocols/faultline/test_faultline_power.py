"""Faultline's power on its own pre-registered metrics, simulated from its planted effects (issue 24 item 2).

The simulated power is checked against references computed another way: exact enumeration of every outcome
of a small binary design, scored by the core's own Mann-Whitney test; the binomial and normal closed forms
of the planted metrics' means; and the simulator's own `closing_gap`. The batch command, the Studies
screen's panel and the report's designed-power line print the same numbers (one seeded computation)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from workbench.protocols.faultline import power as fp
from workbench.protocols.faultline.simulate import closing_gap
from workbench.studies.definition import parse_study_text

ROOT = Path(__file__).resolve().parents[3]
SIM_STUDY = ROOT / "studies" / "faultline-sim.toml"


def sim_definition() -> dict:
    return parse_study_text(SIM_STUDY.read_text(encoding="utf-8"), str(SIM_STUDY))


def majority_right(p: float, samples: int) -> float:
    """P(a strict majority of `samples` independent stances is right): the closed form of the sign majority."""
    return float(stats.binom.sf(samples // 2, samples, p))


def test_the_planted_metrics_have_their_closed_form_means():
    params = {"seed": 1, "accuracy": {"plain": 0.6, "single": 0.3, "self-consistency": 0.7},
              "adherence": {"graph-20": 0.8}, "stance_shift": {"plain": -0.6, "graph-20": 0.3}}
    layout = fp.Layout(((2, 3), (1, 2)), pairs=2, replicates=2, rounds=2)
    rng = np.random.default_rng(0)
    sims = 4000
    # ACC: a split pair is settled by a coin (acc_tie "coin", the default) or earns half ("half"), so a debate
    # reads the per-agent accuracy, p² + p(1 − p); under "strict" a debate is right only when both personas
    # are, p². Self-consistency on 2 votes (the equal-votes headline) reads p as well, on 5 the majority.
    strict = fp.Layout(layout.claims, pairs=2, replicates=2, rounds=2, tie="strict")
    half = fp.Layout(layout.claims, pairs=2, replicates=2, rounds=2, tie="half")
    for lay, cond, votes, want in ((layout, "plain", 5, 0.6), (layout, "single", 5, 0.3),
                                   (layout, "self-consistency", 5, majority_right(0.7, 5)),
                                   (layout, "self-consistency", 2, 0.7), (layout, "graph-20", 5, 0.7),
                                   (half, "plain", 5, 0.6), (half, "self-consistency", 2, 0.7),
                                   (strict, "plain", 5, 0.6 ** 2), (strict, "graph-20", 5, 0.7 ** 2),  # default 0.7
                                   (strict, "self-consistency", 5, majority_right(0.7, 5)),
                                   (strict, "self-consistency", 2, 0.7 ** 2)):
        got = fp.draw(rng, "ACC", cond, params, lay, sims, sc_votes=votes)
        assert got.shape == (sims, lay.runs(cond))
        assert got.mean() == pytest.approx(want, abs=0.01), (cond, lay.tie, votes)
        assert fp.expected_value("ACC", cond, params, lay.tie, votes) == pytest.approx(want), (cond, lay.tie)
    # the coin's credit is 0 or 1 a claim: a run of two claims reads 0, 0.5 or 1 only (half credit: quarters too)
    assert set(np.unique(fp.draw(rng, "ACC", "plain", params, fp.Layout(((1, 2),), 1, 1, 2), 500))) <= {0, 0.5, 1}
    assert 0.25 in set(np.unique(fp.draw(rng, "ACC", "plain", params, fp.Layout(((1, 2),), 1, 1, 2, "half"), 500)))
    assert majority_right(0.7, 5) == pytest.approx(0.83692, abs=1e-5)
    # BA: the planted adherence where a graph is shown; none where it is not
    assert fp.draw(rng, "BA", "graph-20", params, layout, sims).mean() == pytest.approx(0.8, abs=0.005)
    assert fp.draw(rng, "BA", "qbaf-20", params, layout, sims).mean() == pytest.approx(0.6, abs=0.005)
    assert fp.draw(rng, "BA", "plain", params, layout, sims).max() == 0.0
    # ΔSD: E[gap/2 - sd_open], the gap's distribution from the normal CDF at the rounding bounds
    for cond, shift in (("plain", -0.6), ("graph-20", 0.3)):
        want = 0.0
        for sd, w in ((1.0, 0.25), (1.5, 0.5), (2.0, 0.25)):
            centre = 2 * (sd + shift)
            for g in range(5):
                lo = -math.inf if g == 0 else (g - 0.5 - centre) / 0.5
                hi = math.inf if g == 4 else (g + 0.5 - centre) / 0.5
                want += w * (stats.norm.cdf(hi) - stats.norm.cdf(lo)) * (g / 2 - sd)
        got = fp.draw(rng, "dSD", cond, params, layout, sims, fp.openings_for(rng, layout, sims))
        assert got.mean() == pytest.approx(want, abs=0.01), cond


def test_the_vectorised_closing_gap_is_the_simulators():
    z = np.linspace(-4, 4, 161)
    for a in (1, 2):
        for b in (1, 2):
            for shift in (-2, -0.6, 0, 0.3, 1.5):
                openings = np.array([a, b]).reshape(1, 1, 1, 1, 2)
                vec = np.clip(np.round(2 * (openings.sum(-1) / 2 + shift) + 0.5 * z), 0, 4).ravel()
                assert list(vec) == [closing_gap(a, -b, shift, float(v)) for v in z]


def exact_power(n_a: int, q_a: float, n_b: int, q_b: float) -> float:
    """Every outcome of n_a and n_b binary runs, weighted by its binomial probability, tested with the core's
    `mann_whitney_u` (the function the report calls): the exact power of the rule, no simulation."""
    from workbench.metrics.effect_sizes import mann_whitney_u

    total = 0.0
    for k_a in range(n_a + 1):
        for k_b in range(n_b + 1):
            est = mann_whitney_u([1.0] * k_a + [0.0] * (n_a - k_a), [1.0] * k_b + [0.0] * (n_b - k_b))
            p = (est.details or {}).get("p_value")
            if est.value is not None and p is not None and p < 0.05 and est.value < 0:   # planted: A < B
                total += stats.binom.pmf(k_a, n_a, q_a) * stats.binom.pmf(k_b, n_b, q_b)
    return total


@pytest.mark.parametrize("topics", [6, 12])
def test_simulated_power_matches_the_exact_power_of_a_binary_design(topics):
    """single (p 0.3) against self-consistency (p 0.7 a sample, majority of 5), one verifiable claim a topic:
    each run's ACC is 0 or 1, so the exact power is a finite sum."""
    params = {"seed": 0, "accuracy": {"single": 0.3, "self-consistency": 0.7}}
    layout = fp.Layout(((1, 1),) * topics, pairs=1, replicates=1, rounds=2)
    sims = 3000
    mean_a, mean_b, got = fp.simulate("ACC: single − self-consistency", "ACC", ["single"], "self-consistency",
                                      params, layout, sims)
    want = exact_power(topics, 0.3, topics, majority_right(0.7, 5))
    assert 0.05 < want < 0.99
    assert abs(got - want) < 4 * math.sqrt(want * (1 - want) / sims), (got, want)
    assert mean_a == pytest.approx(0.3, abs=0.02) and mean_b == pytest.approx(0.837, abs=0.02)


def test_no_planted_difference_detects_at_most_the_test_size():
    params = {"seed": 0, "stance_shift": {"plain": 0.2, "graph-20": 0.2}}
    layout = fp.Layout(((2, 2),) * 20, pairs=1, replicates=1, rounds=2)
    _, _, share = fp.simulate("dSD: graph-20 − plain", "dSD", ["graph-20"], "plain", params, layout, 2000)
    assert share <= 0.05 + 4 * math.sqrt(0.05 * 0.95 / 2000)


def test_the_study_power_covers_its_preregistered_comparisons_with_their_planted_values():
    from workbench.simulation.power import DEFAULT_SIMS, power_document

    doc = power_document(sim_definition(), {}, 300, grid=(5, 20))
    labels = [r["comparison"] for r in doc["comparisons"]]
    # the headline as the study's acc_headline reads it (equal votes, the default), the seed's beside it
    assert labels[:2] == ["ACC: all debate conditions − self-consistency on 2 votes",
                          "ACC: all debate conditions − self-consistency on 5 votes (seed 002)"]
    assert labels[2:5] == ["ACC: plain − self-consistency on 2 votes",
                           "ACC: plain − self-consistency on 5 votes (seed 002)", "ACC: plain − single"]
    assert "BA: graph-20 − plain" in labels
    assert "dSD: graph-20 − plain" in labels and not any(lbl.startswith(("CG", "spread")) for lbl in labels)
    assert any(line.startswith("CG: graph-20 − plain: nothing plants it") for line in doc["not_simulated"])
    row = {r["comparison"]: r for r in doc["comparisons"]}
    # planted in studies/faultline-sim.toml: plain 0.6 and self-consistency 0.7; adherence graph-20 0.8
    acc = row["ACC: plain − self-consistency on 5 votes (seed 002)"]
    assert acc["expected"]["a"] == pytest.approx(0.6, abs=0.02)      # a split pair by a coin: p, not p²
    assert acc["expected"]["b"] == pytest.approx(majority_right(0.7, 5), abs=0.02)
    two = row["ACC: plain − self-consistency on 2 votes"]
    assert two["expected"]["b"] == pytest.approx(0.7, abs=0.02) and two["effect"] == pytest.approx(-0.1, abs=0.03)
    assert row["BA: graph-20 − plain"]["effect"] == pytest.approx(0.8, abs=0.01)
    assert row["dSD: graph-20 − plain"]["effect"] > 0.5 and row["dSD: qbaf-20 − plain"]["effect"] > 0
    # two debates a condition: the study cannot detect anything; with more topics it can
    assert acc["runs"] == [2, 2] and acc["power"] == 0.0
    # the seed's gap is 0.84 − 0.6 (under the strict rule it was 0.84 − 0.36); on equal votes only the planted
    # 0.7 − 0.6 is left, which 20 topics see less often. The coin's 0-or-1 credit is noisier than half credit,
    # so the seed's gap is seen less often than under "half" (it was > 0.75 at 20 topics)
    assert acc["power_by_cases"][20] > 0.5 and acc["power_by_cases"][20] > acc["power_by_cases"][5]
    assert two["power_by_cases"][20] < acc["power_by_cases"][20]
    assert doc["design"]["raters"] == 0 and "no raters" in doc["design_text"] and doc["unit"] == "topics"
    assert DEFAULT_SIMS == 2000


def test_batch_tui_and_report_print_the_same_faultline_power(tmp_path, capsys):
    from screens.studies import power_text
    from workbench.cli.main import main
    from workbench.simulation.marks import designed_power, title_mark
    from workbench.simulation.power import DEFAULT_SIMS, power_document

    definition = sim_definition()
    capsys.readouterr()
    assert main(["--batch", "--db", str(tmp_path / "w.db"), "--json", "power", str(SIM_STUDY)]) == 0
    batch = json.loads(capsys.readouterr().out)
    assert batch["sims"] == DEFAULT_SIMS
    tui = power_document(definition)
    assert json.loads(json.dumps(tui)) == {k: v for k, v in batch.items() if k != "protocol"}   # one computation
    shown = power_text(tui)
    line = designed_power(definition)
    assert line in title_mark(definition, frozen=True)                     # what the report's heading prints
    for i, row in enumerate(batch["comparisons"], start=1):
        at_n = f"{row['power']:.2f}"
        assert f"{row['comparison']} Δ={row['effect']:.2f}: {at_n}" in line   # named (issue 42)
        assert f"{i:>2} {row['effect']:>5.2f} {at_n:>6}  {row['comparison']}" in shown
        assert f"{i:>2} " + " ".join(f"{row['power_by_cases'][str(n)]:>4.2f}" for n in batch["case_grid"]) in shown
    assert "power against the number of topics" in shown and "2 debate(s)" in line
    capsys.readouterr()
    assert main(["--batch", "--db", str(tmp_path / "w.db"), "power", str(SIM_STUDY), "--sims", "200"]) == 0
    out = capsys.readouterr().out
    assert "no raters" in out and "Mann-Whitney U" in out and "ACC: plain − self-consistency" in out


def test_a_cohens_d_is_refused_for_faultline_with_the_reason(tmp_path, capsys):
    from workbench.cli.main import main

    code = main(["--batch", "--db", str(tmp_path / "w.db"), "power", str(SIM_STUDY), "--effect", "graph-20:plain=0.5"])
    assert code == 2
    assert "[simulation] table" in capsys.readouterr().err


def test_the_power_model_is_the_simulators_own_draws():
    """The metric-level model (`draw`) against the `sim` model's own World, called directly for many debates:
    the same ACC majority rate and the same mean ΔSD."""
    from workbench.protocols.faultline.simulate import World

    params = {"seed": 3, "accuracy": {"plain": 0.6, "self-consistency": 0.7}, "stance_shift": {"plain": -0.6}}

    def world(item: str, cond: str) -> World:
        w = World.__new__(World)
        w.params, w.seed, w.item_id, w.condition, w.replicate = params, 3, item, cond, 0
        w.personas = ["a", "b"]
        return w

    claim = {"id": "c1", "truth": True}
    n = 3000
    debates = [world(f"d{i}", "plain") for i in range(n)]
    right = [(w.verifiable(claim, "a") == 1) + (w.verifiable(claim, "b") == 1) for w in debates]
    both = sum(r == 2 for r in right) / n
    half = sum(1.0 if r == 2 else 0.5 if r == 1 else 0.0 for r in right) / n
    sc = sum(sum(world(f"d{i}", "self-consistency").verifiable(claim, "answer", k) == 1 for k in range(5)) >= 3
             for i in range(n)) / n
    shifts = []
    for w in debates:
        open_a, open_b = w.stance("a", "c1", "opening"), w.stance("b", "c1", "opening")
        close_a, close_b = w.stance("a", "c1", "closing"), w.stance("b", "c1", "closing")
        shifts.append(abs(close_a - close_b) / 2 - abs(open_a - open_b) / 2)
    layout = fp.Layout(((1, 1),), pairs=1, replicates=1, rounds=2)
    rng = np.random.default_rng(1)
    model_acc = fp.draw(rng, "ACC", "plain", params, layout, 20000).mean()
    strict = fp.Layout(((1, 1),), pairs=1, replicates=1, rounds=2, tie="strict")
    model_strict = fp.draw(rng, "ACC", "plain", params, strict, 20000).mean()
    model_sc = fp.draw(rng, "ACC", "self-consistency", params, layout, 20000).mean()
    model_dsd = fp.draw(rng, "dSD", "plain", params, layout, 20000, fp.openings_for(rng, layout, 20000)).mean()
    tol = 4 * math.sqrt(0.25 / n)
    assert abs(half - model_acc) < tol and abs(both - model_strict) < tol and abs(sc - model_sc) < tol
    assert abs(np.mean(shifts) - model_dsd) < 4 * np.std(shifts) / math.sqrt(n)
    assert fp.expected_value("dSD", "plain", params) == pytest.approx(model_dsd, abs=0.02)
    assert fp.expected_value("ACC", "plain", params) == pytest.approx(0.6)
    assert fp.expected_value("ACC", "plain", params, "strict") == pytest.approx(0.36)


@pytest.mark.parametrize("p", [0.6, 0.8])
def test_power_follows_the_headline_rule_equal_accuracy_detects_at_most_the_test_size(p):
    """The same per-agent accuracy everywhere: the equal-votes headline and every row against single or
    self-consistency on 2 votes detect at most the test's size; the seed's five-vote rows detect the
    majority's gain. A study frozen with acc_headline "five-votes" has the seed's row as its headline."""
    conditions = ["plain", "graph-20", "single", "self-consistency"]
    params = {"seed": 2, "accuracy": {c: p for c in conditions}}
    layout = fp.Layout(((2, 2),) * 10, pairs=3, replicates=3, rounds=2)
    sims = 2000
    tol = 4 * math.sqrt(0.05 * 0.95 / sims)
    for label, metric, group, base, votes in fp.comparisons(conditions):
        if metric != "ACC":
            continue
        mean_a, mean_b, share = fp.simulate(label, metric, group, base, params, layout, sims, votes)
        if "5 votes" in label:
            assert mean_b - mean_a == pytest.approx(majority_right(p, 5) - p, abs=0.02), label
            assert share > (0.5 if p == 0.8 else 0.05 + tol), label   # a gap of 0.14 at 0.8, 0.08 at 0.6
        else:
            assert mean_a == pytest.approx(mean_b, abs=0.02) and share <= 0.05 + tol, (label, share)
    five = fp.comparisons(conditions, "five-votes")
    assert five[0][0] == "ACC: all debate conditions − self-consistency on 5 votes (seed 002)" and five[0][4] == 5
