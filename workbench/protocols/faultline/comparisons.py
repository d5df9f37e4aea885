"""Seed 002's comparisons ("Compare conditions with Mann-Whitney U + bootstrap CIs") over a study's
per-debate metrics, in families the report prints as tables:

- `baselines`: ACC of each debate condition − self-consistency on 2 votes (its first two samples, as many as
  a persona pair: the project's headline) and on 5 votes (the seed's majority), and − single ("Run this
  comparison first");
- `plain`: each debate condition − plain on BA, ΔSD, spread trend, CG and CR;
- `nodes`: belief-graph nodes per persona (seed: 0 / 20 / 50, "does belief complexity improve BA, ΔSD,
  CR?"), every pair of levels the study has, each level pooling its debate conditions;
- `architecture`: every architecture against every other ("which MAD variant wins?"), each pooling its
  node counts;
- `divergence`: every pair of initial divergence levels ("does divergence improve quality or cause
  breakdown?"), each pooling every debate condition.

Each row: mean difference A − B with a seeded bootstrap CI, and Mann-Whitney U (rank-biserial r, p),
from `workbench.metrics`, over independent units (issue 42): a debate's unit is its item, a topic × persona
pair, and a baseline's its topic; the repeats of one item (and, in a pooled level, its several conditions)
are averaged into one value, never counted as more units. Each family's p-values are Holm-adjusted
(`workbench.metrics.corrections`), the uncorrected p beside them. A pooled row names what it pools and says
when its levels do not pool alike (`pooling`): "50 nodes − 20 nodes" over graph-50 against graph-, qbaf- and
latent-20 compares architectures as much as node counts.

BA of a 0-node condition (nothing shown, so a control) is measured against the graph of the size it is
compared with: `graph-50 − plain` and `50 nodes − 0 nodes` read plain's claims against the 50-node graph.
Where no one size applies (architecture and divergence pools), against the persona's smallest built graph,
as in the table (README, project's choice 6).
"""

from __future__ import annotations

from itertools import combinations

from workbench.protocols.faultline.conditions import (CONDITIONS, PAIR_VOTES, SC_SAMPLES, SELF_CONSISTENCY, SINGLE,
                                                      condition)
from workbench.protocols.faultline.measures import EQUAL_VOTES, FIVE_VOTES

METRICS = ("BA", "dSD", "spread_trend", "CG", "CR", "ACC")
LEVELS = ("low", "medium", "high")
ALL_DEBATES = "all debate conditions"
SC_READINGS = {EQUAL_VOTES: "ACC_equal_votes", FIVE_VOTES: "ACC"}   # self-consistency's ACC on each headline
ROW_KEYS = {EQUAL_VOTES: "equal_votes", FIVE_VOTES: "five_votes"}    # the headline document's two comparisons
SC_VOTES = {EQUAL_VOTES: PAIR_VOTES, FIVE_VOTES: SC_SAMPLES}         # self-consistency's samples each reads


def sc_label(group: str, votes: str) -> str:
    """An ACC comparison of `group` with self-consistency read on `votes` (EQUAL_VOTES or FIVE_VOTES)."""
    seeds = " (seed 002)" if votes == FIVE_VOTES else ""
    return f"ACC: {group} − self-consistency on {SC_VOTES[votes]} votes{seeds}"


def sc_readings(headline: str) -> list[str]:
    """Self-consistency's two readings, the study's headline first."""
    return sorted(SC_READINGS, key=lambda votes: votes != headline)


def key(metric: str) -> str:
    return {"BA": "BA_pooled"}.get(metric, metric)


def unit_of(doc: dict, n: int) -> str:
    """A run document's independent unit: its item (a debate's topic × pair, a baseline's topic); a document
    without one is a unit of its own."""
    return doc.get("item") or f"#{n}"


def unit_means(pairs: list[tuple[str, float]]) -> list[float]:
    """One value per independent unit, the mean of its values, in the order units first appear."""
    per: dict[str, list[float]] = {}
    for unit, v in pairs:
        per.setdefault(unit, []).append(v)
    return [sum(v) / len(v) for v in per.values()]


def compare(x: list, y: list, label: str) -> dict:
    from workbench.metrics.descriptive import mean_difference_ci
    from workbench.metrics.effect_sizes import mann_whitney_u

    return {"comparison": label, "mean_difference": mean_difference_ci(x, y).to_dict(),
            "mann_whitney": mann_whitney_u(x, y).to_dict()}


def values(docs: list[dict], cr: list[dict], conds: list[str], metric: str, *, yardstick: int | None = None,
           divergence: str | None = None) -> list[float]:
    """The defined values of `metric` for the debates (CR: the repeated debates) of `conds`, one per independent
    unit (item); `yardstick`: the graph size a 0-node condition's BA is read against."""
    if metric == "CR":
        return unit_means([(g["item"], g["value"]) for g in cr if g["condition"] in conds and g["value"] is not None
                           and (divergence is None or g.get("divergence") == divergence)])
    out = []
    for n, d in enumerate(docs):
        if d["condition"] not in conds or (divergence is not None and d.get("divergence") != divergence):
            continue
        m = d["metrics"]
        est = m.get(key(metric))
        if metric == "BA" and yardstick and "BA_against" in m:
            est = m["BA_against"].get(str(yardstick))
        if est and est.get("value") is not None:
            out.append((unit_of(d, n), est["value"]))
    return unit_means(out)


def _row(family: str, metric: str, label: str, a: list[str], b: list[str], x: list, y: list) -> dict:
    return {"family": family, "metric": metric, **compare(x, y, label), "groups": {"a": a, "b": b}}


def _unbalanced(family: str, a: list[str], b: list[str], docs: list[dict], levels: tuple[str, str] = ("", "")
                ) -> str | None:
    """Why two pooled levels do not pool alike, or None: node levels over different architectures, architectures
    over different node counts, divergence levels over different conditions."""
    if family == "nodes":
        got = [sorted({condition(c).architecture for c in g}) for g in (a, b)]
        what = "architectures"
    elif family == "architecture":
        got = [sorted({str(condition(c).nodes) for c in g}) for g in (a, b)]
        what = "node counts"
    else:
        got = [sorted({d["condition"] for d in docs if d.get("divergence") == lv and condition(d["condition"]).is_debate})
               for lv in levels]
        what = "conditions"
    if got[0] == got[1]:
        return None
    return f"unbalanced: pools {what} {', '.join(got[0]) or 'none'} against {', '.join(got[1]) or 'none'}"


def holm_by_family(rows: list[dict]) -> None:
    """Each row's Mann-Whitney p Holm-adjusted within its family (`p_holm`, with the family's size `holm_m`)."""
    from workbench.metrics.corrections import holm_adjusted

    for family in dict.fromkeys(r["family"] for r in rows):
        fam = [r for r in rows if r["family"] == family]
        ps = [r["mann_whitney"]["details"].get("p_value") for r in fam]
        m = sum(1 for p in ps if p is not None)
        for r, adjusted in zip(fam, holm_adjusted(ps)):
            r["p_holm"], r["holm_m"] = adjusted, m


def baseline_comparisons(docs: list[dict], conditions: list[str], headline: str = EQUAL_VOTES) -> list[dict]:
    """ACC of each debate condition − self-consistency (the headline's reading first, then the other) and
    − single: the `baselines` family."""
    rows = []
    for c in (c for c in conditions if condition(c).is_debate):
        if SELF_CONSISTENCY in conditions:
            for votes in sc_readings(headline):
                sc = values(docs, [], [SELF_CONSISTENCY], SC_READINGS[votes])
                rows.append(_row("baselines", "ACC", sc_label(c, votes), [c], [SELF_CONSISTENCY],
                                 values(docs, [], [c], "ACC"), sc))
        if SINGLE in conditions:
            rows.append(_row("baselines", "ACC", f"ACC: {c} − {SINGLE}", [c], [SINGLE],
                             values(docs, [], [c], "ACC"), values(docs, [], [SINGLE], "ACC")))
    return rows


def study_comparisons(docs: list[dict], cr: list[dict], conditions: list[str], headline: str = EQUAL_VOTES
                      ) -> list[dict]:
    """`headline`: the study's `acc_headline`; its self-consistency reading comes first in each debate's rows."""
    debates = [c for c in conditions if condition(c).is_debate]
    rows = baseline_comparisons(docs, conditions, headline)
    if "plain" in conditions:
        for c in debates:
            if c == "plain":
                continue
            size = condition(c).nodes or None
            for metric in ("BA", "dSD", "spread_trend", "CG", "CR"):
                rows.append(_row("plain", metric, f"{metric}: {c} − plain", [c], ["plain"],
                                 values(docs, cr, [c], metric), values(docs, cr, ["plain"], metric, yardstick=size)))
    by_nodes: dict[int, list[str]] = {}
    for c in debates:
        by_nodes.setdefault(condition(c).nodes, []).append(c)
    for lo, hi in combinations(sorted(by_nodes), 2):
        for metric in METRICS:
            rows.append({**_row("nodes", metric, f"{metric}: {hi} nodes − {lo} nodes", by_nodes[hi], by_nodes[lo],
                                values(docs, cr, by_nodes[hi], metric),
                                values(docs, cr, by_nodes[lo], metric, yardstick=hi if lo == 0 else None)),
                         "pooling": _unbalanced("nodes", by_nodes[hi], by_nodes[lo], docs)})
    by_arch: dict[str, list[str]] = {}
    for c in sorted(debates, key=list(CONDITIONS).index):
        by_arch.setdefault(condition(c).architecture, []).append(c)
    for first, later in combinations(list(by_arch), 2):
        for metric in METRICS:
            rows.append({**_row("architecture", metric, f"{metric}: {later} − {first}", by_arch[later],
                                by_arch[first], values(docs, cr, by_arch[later], metric),
                                values(docs, cr, by_arch[first], metric)),
                         "pooling": _unbalanced("architecture", by_arch[later], by_arch[first], docs)})
    present = [lv for lv in LEVELS if any(d.get("divergence") == lv for d in docs)]
    for lower, higher in combinations(present, 2):
        for metric in METRICS:
            rows.append({**_row("divergence", metric, f"{metric}: {higher} − {lower} divergence", [higher], [lower],
                                values(docs, cr, debates, metric, divergence=higher),
                                values(docs, cr, debates, metric, divergence=lower)),
                         "pooling": _unbalanced("divergence", [], [], docs, (higher, lower))})
    holm_by_family(rows)
    return rows
