"""The study's faultline metrics: one document per debate, CR per repeated debate, condition
comparisons, and the headline verdict — one function the TUI, batch output and report all read.

Embeddings come through the shared Embedder with the store's cache; the model
is the study's `faultline.embedding_model` (the bundled MiniLM by default).
"""

from __future__ import annotations

from collections import defaultdict

import sqlite_utils

from workbench.protocols.faultline import measures
from workbench.protocols.faultline.conditions import PAIR_VOTES, SELF_CONSISTENCY, condition

CSV_COLUMNS = ["run_id", "item", "topic", "pair", "divergence", "condition", "replicate", "metric", "scope",
               "value", "n", "threshold", "meets", "undefined_reason", "flag"]


def _est(e) -> dict:
    return e.to_dict()


class Vectors:
    """Embeds texts in one batch per call through the cached Embedder. `progress` hears the model's loading;
    the few texts of each call are not worth a line each: `study_metrics` says how many runs are measured."""

    def __init__(self, db: sqlite_utils.Database, model: str, progress=None):
        from store.embeddings import StoreEmbeddingCache
        from workbench.metrics.embeddings import LOADING, Embedder

        def loading(step: str, done: int, total: int) -> None:
            if progress is not None and step == LOADING:
                progress(step, done, total)

        self.embedder = Embedder(model, StoreEmbeddingCache(db), progress=loading)

    def __call__(self, texts: list[str]):
        return self.embedder.embed(texts) if texts else None


def _ba(report: dict, graph_of, embed) -> tuple[dict, dict]:
    """BA per persona and pooled over the debate's personas, each measured against `graph_of(persona)`."""
    per, grounded, total = {}, 0, 0
    for pid in report["personas"]:
        graph = graph_of(pid)
        claims = [c for m in report["messages"] if m["persona"] == pid for c in (report["claims"].get(m["id"]) or [])]
        if graph is None:
            est = measures.undefined("the study built no belief graph for this persona", method="BA")
        else:
            est = measures.belief_adherence(embed(claims), embed([n["claim"] for n in graph["nodes"]]))
        per[pid] = _est(est)
        if est.defined:
            grounded += est.details["grounded"]
            total += est.details["claims"]
    reasons = sorted({b["undefined_reason"] for b in per.values() if b["undefined_reason"]})
    pooled = (measures.Estimate(grounded / total, n=total, method="BA pooled over personas") if total else
              measures.undefined("no persona's BA is defined: " + "; ".join(reasons), method="BA"))
    return per, _est(pooled)


def built_sizes(graphs: dict, persona: str) -> list[int]:
    return sorted(int(k.split(":")[1]) for k, g in graphs.items() if k.startswith(f"{persona}:") and g.get("nodes"))


def debate_metrics(report: dict, graphs: dict[str, dict], embed, tie: str = measures.COIN, key: str = "") -> dict:
    """BA, ΔSD, spread per round, CG and ACC of one debate (`report`: a debate run's output report).
    `graphs`: "persona:size" → graph. A 0-node condition's BA is measured against each size the study built
    (`BA_against`, the yardstick a comparison with that size uses) and, in `BA_pooled`, against the
    persona's smallest built graph (project's choice: the control BA that graph conditions must beat).
    `tie`: ACC's rule for a split vote (measures.vote_credit); `key` names the run, for its coin."""
    personas = report["personas"]
    by_id = {m["id"]: m for m in report["messages"]}
    out: dict = {"spread": [], "errors": len(report.get("errors", [])),
                 "unknown_claim_stances": unknown_claim_stances(report)}
    out["BA"], out["BA_pooled"] = _ba(report, lambda pid: _graph_for(graphs, pid, report["nodes"]), embed)
    if not report["nodes"]:
        sizes = sorted({s for pid in personas for s in built_sizes(graphs, pid)})
        out["BA_against"] = {str(size): _ba(report, lambda pid, size=size: _sized(graphs, pid, size), embed)[1]
                             for size in sizes}
    # ΔSD over the contested claims
    contested = [c["id"] for c in report.get("contested", [])] or report.get("contested_ids", [])
    st = report["stances"]
    out["dSD"] = _est(measures.delta_sd(st["opening"], st["closing"], contested))
    # spread per round
    rounds = sorted({m["round"] for m in report["messages"] if m["persona"] != "moderator"})
    per_round = []
    for r in rounds:
        msgs = [m for m in report["messages"] if m["round"] == r and m["persona"] != "moderator"]
        est = measures.spread(embed([m["text"] for m in msgs]), [m["persona"] for m in msgs])
        per_round.append(est)
        out["spread"].append({"round": r, **_est(est)})
    out["spread_trend"] = _est(measures.spread_trend(per_round))
    # CG
    cards = report.get("cruxes", [])
    card_vecs = embed([f"{c['question']} {c['diagnosis']}" for c in cards])
    sources = []
    for c in cards:
        texts = [by_id[i]["text"] for i in c["messages"] if i in by_id]
        sources.append(embed(texts))
    cg = measures.crux_grounding(card_vecs if card_vecs is not None else [], sources)
    if not cards:
        cg = measures.undefined("the debate produced no crux cards" + (" (the crux step failed to parse)" if any(
            e["step"] == "crux" for e in report.get("errors", [])) else ""), method="CG")
    out["CG"] = _est(cg)
    # ACC: the personas' closing stances on each verifiable claim, as a vote
    closing = [s for s in st["closing"].values() if s is not None]
    out["ACC"], out["majority"] = _acc(closing, report.get("verifiable", []), tie, key)
    return out


def _acc(voters: list[dict], verifiable: list[dict], tie: str, key: str = "") -> tuple[dict, dict]:
    """ACC over the voters whose stance extraction parsed, and the majority sign per claim (None: a tie).
    `key` names the run: a tie on claim c is settled by the coin of "key|c" (acc_tie "coin")."""
    truths = {c["id"]: c["truth"] for c in verifiable}
    credits = {c: (measures.vote_credit([s.get(c) for s in voters], t, tie, f"{key}|{c}") if voters else None)
               for c, t in truths.items()}
    return _est(measures.accuracy(credits, truths)), {c: measures.majority([s.get(c) for s in voters]) for c in truths}


def unknown_claim_stances(report: dict) -> int:
    """Stance replies of a run that named claim ids not on the table (read as no claim's stance)."""
    return sum(1 for n in report.get("notes", []) if n.get("kind") == "unknown_claim_ids")


def baseline_metrics(report: dict, verifiable: list[dict], tie: str = measures.COIN, key: str = "") -> dict:
    """ACC of a baseline run: its samples' stances as the vote (one sample for `single`; self-consistency's
    five, the seed's majority). Self-consistency also reads ACC over its first two samples alone
    (`ACC_equal_votes`: as many votes as a debate's pair, what the project's headline compares with;
    on a real model sample 0 is the single answer's request served once, on `sim` a draw of its own). `key` names the run, for its coin."""
    acc, _ = _acc([s for s in report["stances"] if s is not None], verifiable, tie, key)
    out = {"ACC": acc, "errors": len(report["errors"]), "unknown_claim_stances": unknown_claim_stances(report)}
    if len(report["stances"]) > PAIR_VOTES:
        out["ACC_equal_votes"], _ = _acc([s for s in report["stances"][:PAIR_VOTES] if s is not None], verifiable,
                                         tie, f"{key}|{PAIR_VOTES} votes")
    return out


def _sized(graphs: dict, persona: str, size: int) -> dict | None:
    g = graphs.get(f"{persona}:{size}")
    return g if g and g.get("nodes") else None


def _graph_for(graphs: dict, persona: str, nodes: int) -> dict | None:
    """The graph a condition's BA is measured against: its own size, or the smallest built for 0 nodes."""
    if nodes:
        g = graphs.get(f"{persona}:{nodes}")
        return g if g and g.get("nodes") else g
    sizes = built_sizes(graphs, persona)
    return graphs[f"{persona}:{sizes[0]}"] if sizes else None


def verdict(diff: dict) -> tuple[str, str]:
    """yes: the CI of mean ACC(debate) − ACC(self-consistency) lies above 0; no: it lies at or below 0;
    undecided: it straddles 0, or cannot be computed (the reason is given)."""
    if diff["value"] is None:
        return "undecided", diff["undefined_reason"]
    if diff["ci_low"] is None:
        return "undecided", diff["ci_undefined_reason"] or "no confidence interval"
    if diff["ci_low"] > 0:
        return "yes", "the whole CI is above 0"
    if diff["ci_high"] <= 0:
        return "no", "the whole CI is at or below 0"
    return "undecided", "the CI contains 0"


def coin_key(item: str, cond: str, replicate: int) -> str:
    """What names a run for the coin that settles its split votes (acc_tie "coin"): what it measured, not its
    row id, so the same debate settles the same way in every analysis of it."""
    return f"{item}|{cond}|{replicate}"


def rules(section: dict) -> dict:
    """The measurement choices a study's metrics follow, as its frozen section holds them. A study stored
    before `acc_tie` existed was measured with the strict rule and keeps it."""
    out = {"embedding_model": section["embedding_model"],
           "acc_tie": measures.tie_rule(section),
           "acc_headline": measures.headline_rule(section),
           "crux_similarity": section.get("crux_similarity", measures.SAME_CRUX),
           "hdbscan_min_cluster_size": section["hdbscan_min_cluster_size"]}
    if "crux_equivalence" in section:   # a study stored before crux equivalence keeps its HDBSCAN on one line
        out.update(crux_equivalence=section["crux_equivalence"], crux_model=section["crux_model"])
    return out


class CruxEquivalence:
    """Labels the crux questions of one repeated debate by the study's `crux_equivalence` (equivalence.py);
    None for a study stored before it existed (measures.crux_clusters then clusters as it did)."""

    def __init__(self, db: sqlite_utils.Database, study_id: str, definition: dict, rule: dict, progress=None):
        self.rule, self.ask, self.model_name = rule, None, "model"
        self.method = rule.get("crux_equivalence")
        self.embed = Vectors(db, rule["crux_model"], progress) if self.method else None
        if self.method == "model":
            from workbench.protocols.faultline.equivalence import gateway_asker
            from workbench.protocols.faultline.turns import model_settings

            extractor = definition["faultline"]["extractor"]
            self.model_name = extractor["name"]
            self.ask = gateway_asker(db, None, model_settings(extractor), study_id)

    def __call__(self, questions: list[str], runs: list[str] | None = None):
        from workbench.protocols.faultline import equivalence

        if not self.method or not questions:
            return None
        return equivalence.read(self.method, questions, self.embed(questions), runs or [],
                                line=self.rule["crux_similarity"], model=self.rule["crux_model"],
                                min_size=self.rule["hdbscan_min_cluster_size"], ask=self.ask,
                                checker=self.model_name)


def study_metrics(db: sqlite_utils.Database, study_id: str, definition: dict, progress=None) -> dict:
    """`progress(step, done, total)` (workbench.metrics.embeddings.progress_text words it) hears the embedding
    model's loading and each run measured: the first analysis embeds for a minute."""
    from store.outputs import get_output
    from workbench.metrics.embeddings import MEASURING
    from store.runs import list_runs
    from workbench.protocols.faultline.graphs import stored_graphs
    from workbench.protocols.faultline.items import DEBATE, TOPIC
    from store.items import list_items

    rule = rules(definition["faultline"])
    embed = Vectors(db, rule["embedding_model"], progress)
    tell = progress or (lambda step, done, total: None)
    graphs = stored_graphs(db, study_id)
    topics = {i["id"]: i["payload"]["topic"] for i in list_items(db, study_id, kind=TOPIC)}
    debates = {i["id"]: i["payload"] for i in list_items(db, study_id, kind=DEBATE)}
    docs, cr_groups = [], defaultdict(list)
    runs = list_runs(db, study_id)
    finished = [r for r in runs if r["status"] in ("done", "done_with_errors")]
    finished = without_undelivered(db, finished, definition)
    tell(MEASURING, 0, len(finished))
    for k, run in enumerate(finished, start=1):
        output = get_output(db, run["id"])
        if output is None:
            tell(MEASURING, k, len(finished))
            continue
        report = output["report"]
        cond = condition(run["condition"])
        coin = coin_key(run["case_id"], run["condition"], run["replicate"])
        base = {"run_id": run["id"], "item": run["case_id"], "condition": run["condition"],
                "replicate": run["replicate"], "architecture": cond.architecture, "nodes": cond.nodes}
        if cond.is_debate:
            topic = debates[run["case_id"]]["topic"]
            report = {**report, "contested": topic["contested"], "verifiable": topic["verifiable"]}
            m = debate_metrics(report, graphs, embed, rule["acc_tie"], coin)
            base.update(topic=topic["id"], pair=report["pair"], divergence=report["divergence"])
            for card in report.get("cruxes", []):
                cr_groups[(run["case_id"], run["condition"])].append((run["id"], card["question"]))
        else:
            topic = topics[run["case_id"]]
            m = baseline_metrics(report, topic["verifiable"], rule["acc_tie"], coin)
            base.update(topic=topic["id"], pair=None, divergence=None)
        notes = [n["note"] for n in report.get("notes", [])]   # read, but not as asked (unknown claim ids)
        docs.append({**base, "metrics": m, **({"notes": notes} if notes else {})})
        tell(MEASURING, k, len(finished))
    cr = []
    done_runs = defaultdict(int)
    for r in finished:
        if condition(r["condition"]).is_debate:
            done_runs[(r["case_id"], r["condition"])] += 1
    crux = CruxEquivalence(db, study_id, definition, rule, progress)
    for (item, cond_id), n in sorted(done_runs.items()):
        rows = cr_groups.get((item, cond_id), [])
        questions = [q for _, q in rows]
        same = crux(questions, [r for r, _ in rows])
        vecs = None if same else embed(questions)
        est = measures.crux_recurrence(vecs if vecs is not None else [], [r for r, _ in rows],
                                       min_cluster_size=rule["hdbscan_min_cluster_size"],
                                       same=rule["crux_similarity"], labels=same.labels if same else None,
                                       method=same.method if same else "")
        flag = {"flagged": same.flagged, "flag_reason": same.reason} if same else {}
        cr.append({"item": item, "condition": cond_id, "runs": n,
                   "divergence": debates[item]["pair"]["divergence"], **_est(est), **flag})
    from workbench.protocols.faultline.treatment import study_lost_treatments

    doc = summarise(docs, cr, [c for c in definition["conditions"]], rule)
    doc["lost_treatments"] = study_lost_treatments(db, study_id, definition)  # tables mark these conditions
    return doc


def without_undelivered(db: sqlite_utils.Database, finished: list[dict], definition: dict) -> list[dict]:
    """Under `on_missing_treatment = "exclude"` (issue 45) the debates that ran without their graphs or QBAF
    maps leave every table; otherwise every finished run stays (its condition is marked: lost_treatments)."""
    from workbench.fidelity.policy import policy_of
    from workbench.protocols.faultline.treatment import fidelity_readings

    if policy_of(definition) != "exclude":
        return finished
    kept = {r.run_id for r in fidelity_readings(db, finished) if r.delivered}
    return [r for r in finished if r["id"] in kept]


def _values(docs: list[dict], cond: str, metric: str) -> list[float]:
    from workbench.protocols.faultline.comparisons import values

    return values(docs, [], [cond], metric)


def _why_none(estimates: list[dict], what: str) -> str:
    """Why a mean over debates has no value: no debates, or the per-debate reasons with their counts."""
    if not estimates:
        return f"no finished {what}"
    return f"undefined in all {len(estimates)} {what}: " + _reasons(estimates)


def _reasons(estimates: list[dict]) -> str:
    reasons = defaultdict(int)
    for e in estimates:
        if e["value"] is None:
            reasons[e["undefined_reason"]] += 1
    return "; ".join(f"{r} ({n})" for r, n in reasons.items())


def mean_of(estimates: list[dict], what: str) -> dict:
    """The mean over debates (or runs, or repeated debates) with its bootstrap CI. Those whose value is
    undefined drop out of the mean and are counted in `dropped`, with their reasons, for every view to show."""
    from workbench.metrics.descriptive import mean_ci

    out = _est(mean_ci([e["value"] for e in estimates if e["value"] is not None]))
    dropped = sum(1 for e in estimates if e["value"] is None)
    if out["value"] is None:
        out["undefined_reason"] = _why_none(estimates, what)
    elif dropped:
        out["dropped"] = {"count": dropped, "of": len(estimates), "what": what, "reasons": _reasons(estimates)}
    return out


def unit_estimates(pairs: list[tuple[str, dict]]) -> list[dict]:
    """One estimate per independent unit (an item: a topic × persona pair, or a baseline's topic), the mean of
    its debates' defined values (its repeats); a unit none of whose values is defined keeps their reason."""
    per: dict[str, list[dict]] = defaultdict(list)
    for unit, est in pairs:
        per[unit].append(est)
    out = []
    for ests in per.values():
        got = [e["value"] for e in ests if e["value"] is not None]
        out.append({"value": sum(got) / len(got), "undefined_reason": None} if got else
                   {"value": None, "undefined_reason": "; ".join(sorted({e["undefined_reason"] or "undefined"
                                                                         for e in ests}))})
    return out


UNITS = "items (topic × pair)"


def _mean(docs: list[dict], cond: str | None, metric: str, what: str = UNITS) -> dict:
    """The mean over independent units (each item's mean over its debates), with its bootstrap CI over units."""
    from workbench.protocols.faultline.comparisons import key, unit_of

    return mean_of(unit_estimates([(unit_of(d, n), d["metrics"][key(metric)]) for n, d in enumerate(docs)
                                   if (cond is None or d["condition"] == cond) and key(metric) in d["metrics"]]),
                   what)


def spread_by_round(docs: list[dict]) -> dict[str, list[dict]]:
    """condition → per round (0 = openings, last = closings) the mean spread over its items (each item's mean
    over its debates), with its CI over items."""
    from workbench.metrics.descriptive import mean_ci
    from workbench.protocols.faultline.comparisons import unit_means, unit_of

    per: dict[str, dict[int, list[tuple[str, float]]]] = {}
    for n, d in enumerate(docs):
        for r in d["metrics"].get("spread", []):
            if r["value"] is not None:
                per.setdefault(d["condition"], {}).setdefault(r["round"], []).append((unit_of(d, n), r["value"]))
    return {c: [{"round": rnd, **_est(mean_ci(unit_means(v)))} for rnd, v in sorted(rounds.items())]
            for c, rounds in per.items()}


QUESTIONS = {measures.EQUAL_VOTES: "Debate beats self-consistency on equal votes (ACC)",
             measures.FIVE_VOTES: "Debate beats self-consistency on ACC"}


def headline(docs: list[dict], conditions: list[str], basis: str) -> dict:
    """The verdict (seed 002: "Run this comparison first") on the study's `acc_headline`: the ACC of every
    debate against self-consistency read over as many votes as a persona pair (`equal-votes`, the project's
    default: like with like) or over its five samples (`five-votes`, the seed's). Both comparisons are in
    the document (`equal_votes`, `five_votes`); the one that is not the verdict is printed beside it."""
    from workbench.protocols.faultline.comparisons import ALL_DEBATES, ROW_KEYS, SC_READINGS, compare, sc_label, values

    debate_conds = [c for c in conditions if condition(c).is_debate]
    debate_acc = values(docs, [], debate_conds, "ACC")   # one value per item: a repeat is not a new unit
    rows = {votes: compare(debate_acc, _values(docs, SELF_CONSISTENCY, metric), sc_label(ALL_DEBATES, votes))
            for votes, metric in SC_READINGS.items()}
    sc_acc = _values(docs, SELF_CONSISTENCY, SC_READINGS[basis])
    answer, why = verdict(rows[basis]["mean_difference"])
    if not debate_acc or not sc_acc:
        why = "no defined ACC for " + " or ".join(w for w, v in (("a debate", debate_acc),
                                                                    ("self-consistency", sc_acc)) if not v) + (
            " (" + _why_none([d["metrics"]["ACC"] for d in docs if d["condition"] in debate_conds + [SELF_CONSISTENCY]],
                             "runs") + ")")
    if SELF_CONSISTENCY not in conditions:
        answer, why = "undecided", "the study has no self-consistency condition"
    return {"question": QUESTIONS[basis], "basis": basis,
            "answer": answer, "why": why, **rows[basis], **{ROW_KEYS[votes]: row for votes, row in rows.items()}}


def summarise(docs: list[dict], cr: list[dict], conditions: list[str], rule: dict | None = None) -> dict:
    """The study's document from its per-run metrics and CR groups; `rule`: `rules(section)`, for the report."""
    from workbench.protocols.faultline.comparisons import study_comparisons

    per_condition = {}
    for c in conditions:
        metrics = ("BA", "dSD", "spread_trend", "CG", "ACC") if condition(c).is_debate else ("ACC",)
        row = {}
        for metric in metrics:
            row[metric] = {**_mean(docs, c, metric, UNITS if condition(c).is_debate else "topics"),
                           "threshold": measures.THRESHOLDS.get(metric, ("",))[0]}
            row[metric]["meets"] = measures.meets(metric, row[metric]["value"])
        if condition(c).is_debate:
            row["CR"] = {**mean_of([g for g in cr if g["condition"] == c], "repeated debates"),
                         "threshold": measures.THRESHOLDS["CR"][0]}
            row["CR"]["meets"] = measures.meets("CR", row["CR"]["value"])
        if c == SELF_CONSISTENCY:   # its first two samples: what the equal-votes headline compares with
            row["ACC_equal_votes"] = _mean(docs, c, "ACC_equal_votes", "topics")
        per_condition[c] = row
    head = headline(docs, conditions, (rule or {}).get("acc_headline", measures.EQUAL_VOTES))  # no rule: a new study's
    by_divergence = {}
    for level in ("low", "medium", "high"):
        sub = [d for d in docs if d.get("divergence") == level]
        if sub:
            by_divergence[level] = {m: _mean(sub, None, m) for m in ("BA", "dSD", "spread_trend", "CG", "ACC")}
            by_divergence[level]["CR"] = mean_of([g for g in cr if g.get("divergence") == level], "repeated debates")
    return {"headline": head,
            "rules": rule or {}, "conditions": per_condition,
            "comparisons": study_comparisons(docs, cr, conditions, head["basis"]),
            "by_divergence": by_divergence, "spread_by_round": spread_by_round(docs),
            "crux_recurrence": cr, "debates": docs,
            "errors": {"runs_with_errors": sum(1 for d in docs if d["metrics"].get("errors")),
                       "extraction_errors": sum(d["metrics"].get("errors", 0) for d in docs),
                       "unknown_claim_stances": sum(d["metrics"].get("unknown_claim_stances", 0) for d in docs),
                       "runs_with_unknown_claims": sum(1 for d in docs if d["metrics"].get("unknown_claim_stances")),
                       "unknown_claim_notes": [f"{d.get('run_id', '')}: {n}" for d in docs
                                               for n in d.get("notes", [])]}}


def csv_rows(doc: dict) -> list[dict]:
    """The long format: one row per run × metric × scope (persona, round)."""
    rows = []

    def add(d, metric, scope, est, flag=""):
        rows.append({"run_id": d.get("run_id", ""), "item": d.get("item", ""), "topic": d.get("topic", ""),
                     "pair": d.get("pair") or "", "divergence": d.get("divergence") or "",
                     "condition": d.get("condition", ""), "replicate": d.get("replicate", ""), "metric": metric,
                     "scope": scope, "value": est["value"], "n": est["n"],
                     "threshold": measures.THRESHOLDS.get(metric, ("",))[0],
                     "meets": measures.meets(metric, est["value"]), "undefined_reason": est["undefined_reason"] or "",
                     "flag": flag})

    for d in doc["debates"]:
        m = d["metrics"]
        if "BA" in m:
            for pid, est in m["BA"].items():
                add(d, "BA", pid, est)
            add(d, "BA", "pooled", m["BA_pooled"])
            add(d, "dSD", "debate", m["dSD"])
            for r in m["spread"]:
                add(d, "spread", f"round {r['round']}", r)
            add(d, "spread_trend", "debate", m["spread_trend"])
            add(d, "CG", "debate", m["CG"])
        add(d, "ACC", "debate" if "BA" in m else "baseline", m["ACC"])
        if "ACC_equal_votes" in m:
            add(d, "ACC_equal_votes", "baseline", m["ACC_equal_votes"])
    for g in doc["crux_recurrence"]:
        add({"item": g["item"], "condition": g["condition"], "divergence": g.get("divergence")}, "CR",
            f"{g['runs']} runs", g, (g.get("flag_reason") or "flagged") if g.get("flagged") else "")
    return rows
