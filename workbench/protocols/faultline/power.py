"""Faultline's power on its own pre-registered comparisons, simulated from its planted effects (seed 002).

The comparisons simulated are these of the report's (`comparisons.py`; its node, architecture, divergence
and CR families are not): the headline, ACC of all debate conditions − self-consistency read as the study's
`acc_headline` reads it (on 2 votes, as many as a persona pair, by default; on its 5 samples, the seed's
comparison, simulated beside it), ACC of each debate condition against each baseline (self-consistency on
both readings), and BA, ΔSD and CR (with repeats) of each debate condition against plain, each over the
report's independent units (a topic × pair's repeats averaged; CR one value per repeated debate). Each is
detected when the
Mann-Whitney U test the report prints (`workbench.metrics.effect_sizes.mann_whitney_u`: exact p without ties
and with min(n) ≤ 8, else the normal approximation with tie and continuity correction) gives p < 0.05,
two-sided, with the rank-biserial r on the planted side. Spread trend and CG are compared too, but nothing
plants them (they follow the embeddings), so no power is simulated for them and the document says so.

Every run's metric is drawn as the `sim` model's simulator (simulate.py) produces it, from the study's
`[simulation]` table (its defaults where a condition plants nothing):

- ACC: on each verifiable claim of the topic, each closing stance (a persona's, or a baseline sample's)
  is right with probability `accuracy[condition]`; the run's answer is the sign majority, a tie settled by
  a fair coin under the study's `acc_tie = "coin"`, earning half under "half" and nothing under "strict"
  (measures.vote_credit); ACC = credit / verifiable claims. Debates have the pair's two personas, `single`
  one answer, `self-consistency` five samples (two in its equal-votes reading).
- BA: each of a persona's 3 argument sentences per message (opening, each round, closing) restates a
  node of its belief graph with probability `adherence[condition]` when the condition shows a graph,
  never otherwise; a restatement is its node verbatim (cosine 1, grounded) and an off-graph sentence is
  taken as ungrounded, so BA = restating sentences / sentences, pooled over both personas.
- ΔSD: on each contested claim the personas open at +s_a and −s_b (s uniform on {1, 2}, per debate and
  claim, shared by its conditions and replicates); the closing gap is `simulate.closing_gap`; ΔSD = mean
  over claims of gap/2 − (s_a + s_b)/2.

The number of debates grows with the topics: the curve is power against the number of topics, each
with the study's persona pairs and replicates (topics beyond the study's repeat its claim counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.protocols.faultline.comparisons import ALL_DEBATES, SC_VOTES, sc_label, sc_readings
from workbench.protocols.faultline.conditions import PAIR_VOTES, SC_SAMPLES, SELF_CONSISTENCY, SINGLE, condition
from workbench.protocols.faultline.measures import (COIN, EQUAL_VOTES, HALF, STRICT, headline_rule,
                                                    tie_rule)
from workbench.protocols.faultline.simulate import DEFAULT_ACCURACY, DEFAULT_ADHERENCE, SENTENCES_PER_MESSAGE

ALPHA = 0.05
PLANTED = {"ACC": "accuracy", "BA": "adherence", "dSD": "stance_shift", "CR": "crux_recurrence"}
DEFAULTS = {"accuracy": DEFAULT_ACCURACY, "adherence": DEFAULT_ADHERENCE, "stance_shift": 0.0, "crux_recurrence": 1.0}
UNPLANTED = ("spread_trend", "CG")
METHOD = ("Mann-Whitney U over independent units as the report computes it (a debate condition's unit a topic × "
          "persona pair, its repeats averaged; a baseline's a topic), detected when p < 0.05 (two-sided) with the "
          "rank-biserial r on the planted side; each run's metric drawn from the planted [simulation] values "
          "as the `sim` model produces it; CR per repeated debate")


@dataclass(frozen=True)
class Layout:
    """What one simulated study holds: its topics' claim counts, persona pairs, replicates and rounds."""

    claims: tuple[tuple[int, int], ...]   # per topic: (contested, verifiable)
    pairs: int
    replicates: int
    rounds: int
    tie: str = COIN      # ACC's rule for a split vote (the study's acc_tie)
    headline: str = EQUAL_VOTES   # which self-consistency the verdict compares with (the study's acc_headline)
    min_cluster_size: int = 2     # CR's HDBSCAN minimum cluster size (the study's)

    def with_topics(self, n: int) -> "Layout":
        return Layout(tuple(self.claims[i % len(self.claims)] for i in range(n)), self.pairs, self.replicates,
                      self.rounds, self.tie, self.headline, self.min_cluster_size)

    def runs(self, cond: str) -> int:
        return self.units(cond) * self.replicates

    def units(self, cond: str) -> int:
        """Independent units: a debate condition's topic × pair items, a baseline's topics."""
        return len(self.claims) * (self.pairs if condition(cond).is_debate else 1)


def layout_of(definition: dict) -> tuple[Layout, str]:
    """The study's layout, and a note when its library could not be read here (claim counts assumed)."""
    section = definition["faultline"]
    note = ""
    from workbench.problems import CaseError
    from workbench.protocols.faultline.items import library_for

    try:
        topics = library_for(section).topics
        claims = tuple((len(topics[t]["contested"]), len(topics[t]["verifiable"])) for t in section["topics"])
    except (CaseError, OSError, KeyError) as exc:  # a stored study's relative library may not resolve from here: say so, go on
        claims = tuple((2, 2) for _ in section["topics"])
        note = f"the topic library could not be read ({exc}); assumed 2 contested and 2 verifiable claims a topic"
    return Layout(claims, len(section["pairs"]), int(definition.get("replicates") or 1),
                  int(section["rounds"]), tie_rule(section), headline_rule(section),
                  int(section.get("hdbscan_min_cluster_size") or 2)), note


def planted(params: dict, key: str, cond: str) -> tuple[float, bool]:
    """A condition's planted value of `key` and whether the study planted it (else the simulator's default)."""
    table = params.get(key) or {}
    return (float(table[cond]), True) if cond in table else (DEFAULTS[key], False)


# --- one metric of every run of one condition, `sims` times ------------------------------------------
def votes_of(cond: str, sc_votes: int = SC_SAMPLES) -> int:
    """The closing stances a run of `cond` votes with; self-consistency's as read (`sc_votes` of its samples)."""
    return PAIR_VOTES if condition(cond).is_debate else sc_votes if cond == SELF_CONSISTENCY else 1


def draw(rng, metric: str, cond: str, params: dict, layout: Layout, sims: int, openings=None,
         sc_votes: int = SC_SAMPLES):
    """(sims, runs) values of `metric` for `cond`'s runs. `openings`: (sims, topics, pairs, claims, 2) opening
    strengths shared by the conditions of one comparison (ΔSD); `sc_votes`: self-consistency's samples read."""
    import numpy as np

    c = condition(cond)
    topics, reps = len(layout.claims), layout.replicates
    if metric == "ACC":
        p, _ = planted(params, "accuracy", cond)
        samples = votes_of(cond, sc_votes)
        per_topic = layout.pairs if c.is_debate else 1
        k = np.array([v for _, v in layout.claims])
        right = rng.random((sims, topics, per_topic, reps, k.max(), samples)) < p
        votes = 2 * right.sum(axis=-1)
        tie = {HALF: 0.5, STRICT: 0.0}.get(layout.tie)
        split = rng.random(votes.shape) < 0.5 if tie is None else tie      # coin: a fair draw per tie
        correct = (votes > samples) + split * (votes == samples)
        mask = np.arange(k.max())[None, :] < k[:, None]                     # (topics, claims)
        acc = (correct * mask[None, :, None, None, :]).sum(axis=-1) / k[None, :, None, None]
        return acc.reshape(sims, -1)
    if metric == "BA":
        a, _ = planted(params, "adherence", cond)
        a = a if c.nodes > 0 else 0.0
        sentences = PAIR_VOTES * (layout.rounds + 2) * SENTENCES_PER_MESSAGE
        return rng.binomial(sentences, a, size=(sims, topics * layout.pairs * reps)) / sentences
    if metric == "dSD":
        shift, _ = planted(params, "stance_shift", cond)
        k = np.array([v for v, _ in layout.claims])
        sd_open = openings.sum(axis=-1) / 2.0                               # (sims, topics, pairs, claims)
        z = rng.standard_normal((sims, topics, layout.pairs, reps, k.max()))
        gap = np.clip(np.round(2 * (sd_open[:, :, :, None, :] + shift) + 0.5 * z), 0, 4)   # closing_gap
        per_claim = gap / 2 - sd_open[:, :, :, None, :]
        mask = (np.arange(k.max())[None, :] < k[:, None])[None, :, None, None, :]
        return ((per_claim * mask).sum(axis=-1) / k[None, :, None, None]).reshape(sims, -1)
    if metric == "CR":   # one value per repeated debate (topic × pair): simulate.crux_cards, as expected_cr
        from workbench.protocols.faultline.measures import CR_MIN_RUNS

        p, _ = planted(params, "crux_recurrence", cond)
        k_claims = np.array([min(v, 4) for v, _ in layout.claims])
        k = rng.binomial(reps, p, size=(sims, topics, layout.pairs, k_claims.max()))
        mask = (np.arange(k_claims.max())[None, :] < k_claims[:, None])[None, :, None, :]
        m = layout.min_cluster_size
        units = (np.where(k >= m, 1, k) + reps - k) * mask
        stable = (k >= max(m, CR_MIN_RUNS)) * mask
        with np.errstate(invalid="ignore", divide="ignore"):
            cr = stable.sum(axis=-1) / units.sum(axis=-1)
        return cr.reshape(sims, -1)
    raise ValueError(f"no planted model for {metric}")


def unit_values(values, metric: str, layout: Layout):
    """(sims, units): each independent unit's mean over its repeats, as the report compares them (a run array of
    `draw` holds the repeats of a unit together, last); CR is per repeated debate already."""
    sims = values.shape[0]
    return values if metric == "CR" else values.reshape(sims, -1, layout.replicates).mean(axis=2)


def expected_value(metric: str, cond: str, params: dict, tie: str = COIN, sc_votes: int = SC_SAMPLES) -> float:
    """What `metric` reads on average for `cond` under the plant, in closed form (the mean of `draw`)."""
    from scipy import stats

    c = condition(cond)
    if metric == "ACC":
        p, _ = planted(params, "accuracy", cond)
        samples = votes_of(cond, sc_votes)
        split = stats.binom.pmf(samples // 2, samples, p) if samples % 2 == 0 and tie != STRICT else 0.0
        return float(stats.binom.sf(samples // 2, samples, p) + 0.5 * split)   # a strict majority, half a tie
    if metric == "BA":
        return planted(params, "adherence", cond)[0] if c.nodes > 0 else 0.0
    if metric == "dSD":   # opening SD 1, 1.5, 2 with chance 1/4, 1/2, 1/4; the gap rounds 2(SD + shift) + N(0, 0.5²)
        shift, _ = planted(params, "stance_shift", cond)
        total = 0.0
        for sd, weight in ((1.0, 0.25), (1.5, 0.5), (2.0, 0.25)):
            centre = 2 * (sd + shift)
            for g in range(5):
                lo = 0.0 if g == 0 else stats.norm.cdf((g - 0.5 - centre) / 0.5)
                hi = 1.0 if g == 4 else stats.norm.cdf((g + 0.5 - centre) / 0.5)
                total += weight * (hi - lo) * (g / 2 - sd)
        return total
    raise ValueError(f"no planted model for {metric}")


def expected_cr(p: float, replicates: int, claims: int, min_cluster_size: int = 2) -> float:
    """CR's mean for one repeated debate under the `sim` model's plant (simulate.crux_cards): each of the
    topic's contested claims (at most 4) gets a card per run that asks the claim's own question with
    probability p, else a question of that run alone. A question asked in k runs is one cluster when k ≥
    min_cluster_size (stable when k ≥ 3), else k noise points; each one-off question is noise. Exact, over
    every k per claim (it assumes the topic's own questions are not the same crux as one another)."""
    from itertools import product

    import numpy as np
    from scipy import stats

    from workbench.protocols.faultline.measures import CR_MIN_RUNS

    claims = min(claims, 4)
    weights = stats.binom.pmf(range(replicates + 1), replicates, p)
    total = 0.0
    for ks in product(range(replicates + 1), repeat=claims):
        units = sum((1 if k >= min_cluster_size else k) + replicates - k for k in ks)
        stable = sum(1 for k in ks if k >= max(min_cluster_size, CR_MIN_RUNS))
        total += float(np.prod([weights[k] for k in ks])) * stable / units if units else 0.0
    return total


def openings_for(rng, layout: Layout, sims: int):
    k = max(v for v, _ in layout.claims)
    return 1 + rng.integers(0, 2, size=(sims, len(layout.claims), layout.pairs, k, 2))


def detected(x, y, direction: int, alpha: float = ALPHA):
    """Per simulated study (rows): the core's Mann-Whitney U rejects at `alpha` on the planted side."""
    import numpy as np
    from scipy import stats

    nx, ny = x.shape[1], y.shape[1]
    pooled = np.concatenate([x, y], axis=1)
    varies = np.ptp(pooled, axis=1) > 0                    # all identical: the core's estimate is undefined
    with np.errstate(invalid="ignore", divide="ignore"):
        res = stats.mannwhitneyu(x, y, axis=1, method="asymptotic")
    p, u = np.array(res.pvalue, dtype=float), np.array(res.statistic, dtype=float)
    if min(nx, ny) <= 8:
        ranked = np.sort(pooled, axis=1)
        exact = (np.diff(ranked, axis=1) != 0).all(axis=1)
        if exact.any():
            p[exact] = stats.mannwhitneyu(x[exact], y[exact], axis=1, method="exact").pvalue
    r = 2.0 * u / (nx * ny) - 1.0
    side = np.sign(r) == direction if direction else np.ones(len(r), dtype=bool)
    return varies & (np.nan_to_num(p, nan=1.0) < alpha) & side


# --- the comparisons ---------------------------------------------------------------------------------
def comparisons(conditions: list[str], headline: str = EQUAL_VOTES) -> list[tuple[str, str, list[str], str, int]]:
    """(label, metric, group A's conditions, B, self-consistency's votes) in analysis.summarise's order (its
    labels, too): the verdict's reading of self-consistency first, the other beside it."""
    debates = [c for c in conditions if condition(c).is_debate]
    readings = [(votes, SC_VOTES[votes]) for votes in sc_readings(headline)]
    out = []
    if SELF_CONSISTENCY in conditions and debates:
        out += [(sc_label(ALL_DEBATES, votes), "ACC", debates, SELF_CONSISTENCY, n) for votes, n in readings]
    for c in debates:
        if SELF_CONSISTENCY in conditions:
            out += [(sc_label(c, votes), "ACC", [c], SELF_CONSISTENCY, n) for votes, n in readings]
        if SINGLE in conditions:
            out.append((f"ACC: {c} − {SINGLE}", "ACC", [c], SINGLE, SC_SAMPLES))
        if c != "plain" and "plain" in conditions:
            for metric in ("BA", "dSD", "CR"):
                out.append((f"{metric}: {c} − plain", metric, [c], "plain", SC_SAMPLES))
    return out


def simulate(label: str, metric: str, group: list[str], base: str, params: dict, layout: Layout, sims: int,
             sc_votes: int = SC_SAMPLES):
    """(expected A, expected B, share of simulated studies that detect A − B) at `layout`."""
    import numpy as np

    from workbench.simulation.power import hash_label

    rng = np.random.default_rng([hash_label(label), len(layout.claims), int(params.get("seed") or 0) & 0xFFFF])
    openings = openings_for(rng, layout, sims) if metric == "dSD" else None
    # a pooled group averages its conditions on each unit (comparisons.values): one value per unit, not per run
    a = np.mean([unit_values(draw(rng, metric, c, params, layout, sims, openings), metric, layout) for c in group],
                axis=0)
    b = unit_values(draw(rng, metric, base, params, layout, sims, openings, sc_votes), metric, layout)
    mean_a, mean_b = float(np.nanmean(a)), float(np.nanmean(b))
    diff = mean_a - mean_b
    direction = 0 if abs(diff) < 1e-3 else (1 if diff > 0 else -1)
    return mean_a, mean_b, float(detected(a, b, direction).mean())


def source_of(params: dict, metric: str, conds: list[str], has_table: bool) -> str:
    """Where a comparison's planted values come from, in words."""
    key = PLANTED[metric]
    blind = [c for c in conds if metric == "BA" and condition(c).nodes == 0]
    conds = [c for c in conds if c not in blind]   # a condition that shows no graph restates none (BA 0)
    defaulted = [c for c in conds if not planted(params, key, c)[1]]
    if not has_table:
        text = f"simulator defaults ({key} {DEFAULTS[key]:g}; no [simulation] table)"
    elif len(defaulted) == len(conds):
        text = f"simulator default {key} {DEFAULTS[key]:g} (not planted)"
    else:
        text = f"[simulation] {key}" + (f" (default {DEFAULTS[key]:g} for {', '.join(defaulted)})" if defaulted else "")
    return text + (f"; {', '.join(blind)}: no belief graph shown, BA 0" if blind else "")


def power_document(definition: dict, effects: dict[str, float], sims: int, grid: tuple[int, ...]) -> dict:
    from workbench.simmodel.params import params_of

    if effects:
        raise ValueError("faultline's power simulates its planted parameters, not a Cohen's d: set the effects "
                         "in the study file's [simulation] table (accuracy, adherence, stance_shift per "
                         "condition) and run `power` on that file")
    params = params_of(definition)
    has_table = "simulation" in definition
    layout, note = layout_of(definition)
    rows = []
    for label, metric, group, base, votes in comparisons(list(definition.get("conditions") or []), layout.headline):
        if metric == "CR" and layout.replicates < 2:   # CR needs repeated debates: nothing to compare
            continue
        mean_a, mean_b, at_n = simulate(label, metric, group, base, params, layout, sims, votes)
        curve = {n: simulate(label, metric, group, base, params, layout.with_topics(n), sims, votes)[2] for n in grid}
        rows.append({"comparison": label, "metric": metric, "a": group, "b": base,
                     "expected": {"a": mean_a, "b": mean_b}, "effect": mean_a - mean_b,
                     "runs": [sum(layout.runs(c) for c in group), layout.runs(base)],
                     "units": [layout.units(group[0]), layout.units(base)],
                     "source": source_of(params, metric, [*group, base], has_table),
                     "power": at_n, "power_by_cases": curve})
    debates = [c for c in definition.get("conditions") or [] if condition(c).is_debate and c != "plain"]
    unplanted = ([f"{m}: {c} − plain" for c in debates for m in UNPLANTED]
                 if "plain" in (definition.get("conditions") or []) else [])
    topics = len(layout.claims)
    design = {"topics": topics, "pairs": layout.pairs, "debates": topics * layout.pairs,
              "replicates": layout.replicates, "rounds": layout.rounds, "raters": 0,
              "claims_per_topic": [list(c) for c in layout.claims]}
    design_text = (f"{topics} topic(s) x {layout.pairs} persona pair(s) = {design['debates']} debate(s), "
                   f"{layout.replicates} replicate(s), {layout.rounds} round(s); no raters: each run's metrics "
                   "are measured once by the protocol's pipeline")
    return {"design": design, "design_text": design_text, "size_text": f"{design['debates']} debate(s)",
            "unit": "topics", "effect_name": "Δ",
            "effect_meaning": "planted difference of the metric's means (metric units)",
            "method": METHOD, "sims": sims, "comparisons": rows, "case_grid": list(grid),
            "not_simulated": [f"{u}: nothing plants it (it follows the embeddings); no power simulated"
                              for u in unplanted],
            "notes": [note] if note else []}
