"""The faultline report sections: the self-consistency verdict first (seed 002: "Run this comparison
first"), then each condition's six metrics beside the seed's thresholds, comparisons, divergence,
crux recurrence and errors. Text only; every number comes from analysis.study_metrics."""

from __future__ import annotations

from workbench.protocol.base import ReportSection
from workbench.protocols.faultline.comparisons import ROW_KEYS
from workbench.protocols.faultline.equivalence import BAND, CANDIDATE, CLOSE, CR_SHIFT, HIGH, LOW
from workbench.protocols.faultline.measures import EQUAL_VOTES, FIVE_VOTES, GROUNDING, HALF, STRICT, THRESHOLDS
from workbench.protocols.faultline.treatment import label, mark


def fmt(est: dict | None, digits: int = 3) -> str:
    if not est:
        return "—"
    if est.get("value") is None:
        reason = est.get("undefined_reason") or ""
        return reason if reason.startswith("undefined") else f"undefined ({reason})"
    text = f"{est['value']:.{digits}f}"
    if est.get("ci_low") is not None:
        text += f" [{est['ci_low']:.{digits}f}, {est['ci_high']:.{digits}f}]"
    dropped = est.get("dropped")
    return text + f" (n={est['n']}" + (f"; {dropped_text(dropped)}" if dropped else "") + ")"


def dropped_text(dropped: dict) -> str:
    """'1 of 4 repeated debates undefined': those left out of a mean, never averaged away unseen."""
    return f"{dropped['count']} of {dropped['of']} {dropped['what']} undefined"


def headline_line(doc: dict) -> str:
    h = doc["headline"]
    diff = h["mean_difference"]
    shown = fmt(diff) if diff["value"] is not None else "undefined"
    return f"{h['question']}: **{h['answer']}** — {h['comparison']}: mean difference {shown}; {h['why']}."


# Issue 42 item 7: the report said "sample 0 is the single answer's draw"; on `sim` it never is.
SAMPLE_ZERO = ("a real model is sent the single answer's very request, which the gateway serves once, while the "
               "`sim` model draws each condition apart, so there they are two draws")


def headline_rule_line(rules: dict) -> str:
    """Which self-consistency the verdict compares with, as the study froze it (acc_headline)."""
    if rules.get("acc_headline") == FIVE_VOTES:
        return ("Headline (acc_headline = \"five-votes\", seed 002's comparison; a study stored before the key "
                "existed keeps it): self-consistency is the majority of its five samples. With the same per-agent "
                "accuracy p > 0.5, five votes beat a persona pair's two (P(Bin(5, p) ≥ 3) > p), so equal per-agent "
                "accuracy reads \"no\" here; the equal-votes line below is the like-with-like comparison.")
    return ("Headline (acc_headline = \"equal-votes\", the project's choice): self-consistency is read over its "
            "first two samples, as many votes as a debate's persona pair, under the same split rule (whether sample 0 "
            f"repeats the single answer depends on the model: {SAMPLE_ZERO}), so the verdict asks whether two agents debating beat two independent answers "
            "voting; with the same per-agent accuracy both read the same distribution, so the verdict is "
            "\"undecided\" (no difference) but for chance. Seed 002 compares with the majority of five samples: that comparison "
            "follows, labelled as the seed's. With equal per-agent accuracy p > 0.5 it favours self-consistency "
            "(P(Bin(5, p) ≥ 3) > p): that is what three more votes add, not what debate loses.")


def beside(h: dict) -> tuple[str, dict] | None:
    """The self-consistency comparison that is not the study's verdict, and its label."""
    other = FIVE_VOTES if h["basis"] == EQUAL_VOTES else EQUAL_VOTES
    row = h.get(ROW_KEYS[other])
    if not row:
        return None
    return ("Seed 002's comparison (five-vote majority; not the verdict)" if other == FIVE_VOTES else
            "On equal votes (the project's like-with-like comparison; not this study's verdict)"), row


def beside_line(h: dict) -> str:
    if not (found := beside(h)):
        return ""
    tag, row = found
    p = row["mann_whitney"]["details"].get("p_value")
    return (f"{tag}: {row['comparison']}: mean difference {fmt(row['mean_difference'])}, Mann-Whitney r "
            f"{fmt(row['mann_whitney'])}" + (f", p = {p:.4g}" if p is not None else "") + ".")


def acc_rule_line(rules: dict) -> str:
    """ACC's rule for a split vote, as the study froze it (acc_tie)."""
    common = ("Self-consistency's five samples read the majority of five, P(Bin(5, p) ≥ 3). A claim no voter took "
              "a stance on earns 0; a claim whose stance extraction failed for every voter is left out of the "
              "denominator and counted.")
    if rules.get("acc_tie") == STRICT:
        return ("ACC rule (acc_tie = \"strict\", a study option): a vote whose top stance signs tie earns nothing, so a "
                "persona pair that splits is wrong: with per-agent accuracy p a debate reads p² in expectation, a "
                "single answer p. " + common)
    if rules.get("acc_tie") == HALF:
        return ("ACC rule (acc_tie = \"half\", a study option): a vote whose top stance signs tie earns 1/k when the "
                "true sign is one of the k tied (a fair coin's expectation), so a persona pair that splits earns 0.5 "
                "and a debate with per-agent accuracy p reads p in expectation, as a single answer does, with a "
                "narrower spread, which Mann-Whitney U can read as a difference from the single answer. " + common)
    return ("ACC rule (acc_tie = \"coin\", the project's default): a vote whose top stance signs tie is settled by a "
            "fair coin among the tied signs, drawn reproducibly from the run and the claim (SHA-256 of their names), "
            "so every vote earns 0 or 1 and a persona pair that splits is right half the time: with per-agent "
            "accuracy p a debate's pair is right with chance p² + p(1 − p) = p, and a debate, a single answer and "
            "two self-consistency samples read the same distribution, which Mann-Whitney U compares (half credit "
            "has the same mean but a narrower spread). " + common)


def embedding_line(rules: dict) -> str:
    """The embedding model beside every threshold it moves (seed 002 names BGE-large)."""
    model = rules.get("embedding_model") or "—"
    return (f"Embedding model: **{model}** (seed 002 names BGE-large; no offline BGE ships as a package, see the "
            f"protocol README). Every cosine threshold is read in this model's space and moves with it: BA's "
            f"claim–node grounding at ≥ {GROUNDING} ({model}), CG's {THRESHOLDS['CG'][0]} ({model}), CR's "
            f"same-crux similarity ≥ {rules.get('crux_similarity', '—')} ({rules.get('crux_model') or model}); semantic spread "
            "is measured in it too. How CR finds one crux in other words: the crux recurrence section.")


FAMILIES = (("baselines", "ACC against the baselines"), ("plain", "Each debate condition against plain"),
            ("nodes", "Belief-graph nodes per persona (0 / 20 / 50; each level pools its conditions)"),
            ("architecture", "Architecture against architecture (each pools its node counts)"),
            ("divergence", "Initial divergence level against level (each pools every debate condition)"))


def comparison_tables(doc: dict, lost: dict) -> str:
    parts = []
    for family, title in FAMILIES:
        rows = [c for c in doc["comparisons"] if c.get("family") == family]
        if not rows:
            continue
        m = max((c.get("holm_m") or 0) for c in rows)
        table = [f"**{title}** (Holm over the family's {m} comparison(s) with a p)", "",
                 "| comparison | mean difference (95% bootstrap CI) | Mann-Whitney r | U | p (uncorrected) | p (Holm) |",
                 "|---|---|---|---|---|---|"]
        for c in rows:
            det = c["mann_whitney"]["details"]
            p, u, holm = det.get("p_value"), det.get("U"), c.get("p_holm")
            pooled = [label(g, lost) for g in c["groups"]["a"] + c["groups"]["b"] if g in lost and g not in c["comparison"]]
            name = mark(c["comparison"], lost) + (f" (pools {', '.join(pooled)})" if pooled else "")
            if c.get("pooling"):
                name += f" ({c['pooling']})"
            if c.get("metric") == "CR":
                groups = c["groups"]["a"] + c["groups"]["b"]
                name += (cr_flag_mark(doc["crux_recurrence"], levels=groups) if family == "divergence"
                         else cr_flag_mark(doc["crux_recurrence"], conditions=groups))
            table.append(f"| {name} | {fmt(c['mean_difference'])} | {fmt(c['mann_whitney'])} | "
                         f"{'—' if u is None else f'{u:g}'} | {'—' if p is None else f'{p:.4g}'} | "
                         f"{'—' if holm is None else f'{holm:.4g}'} |")
        parts.append("\n".join(table))
    return ("A − B over independent units: a debate condition's unit is an item (a topic × persona pair; its "
            "repeats, and in a pooled level its conditions, averaged into one value), a baseline's its topic. "
            "Mann-Whitney U two-sided (rank-biserial r > 0: A tends higher); p uncorrected, and beside it "
            "Holm-adjusted within each table (family), which controls the family-wise error rate. A pooled row "
            "whose levels do not pool alike says so (\"unbalanced\": it compares what it pools as much as the "
            "levels). BA of a 0-node condition is read against the graph size it is compared with.\n\n"
            + "\n\n".join(parts) + cr_flag_note(doc))


def spread_table(doc: dict, lost: dict) -> str:
    series = doc.get("spread_by_round") or {}
    rounds = sorted({r["round"] for rows in series.values() for r in rows})
    if not rounds:
        return "No spread measured."
    head = ["| condition | " + " | ".join(f"round {r}" for r in rounds) + " |", "|---" * (len(rounds) + 1) + "|"]
    for cond, rows in series.items():
        by = {r["round"]: r for r in rows}
        head.append(f"| {label(cond, lost)} | " + " | ".join(fmt(by.get(r), 2) if r in by else "—" for r in rounds) + " |")
    return ("Mean semantic spread per round over each condition's debates (round 0 = openings, the last = "
            "closings), 95% bootstrap CIs.\n\n" + "\n".join(head))


# Seed 002's design: "Pick 10 topics, 3 persona pairs ... (= 30 debates per condition)": 30 topic × pair units
# per debate condition, 10 topics per baseline.
SEED_UNITS = {"debate": 30, "baseline": 10}


def scored_units_line(doc: dict) -> str:
    """Each condition's sample size counted on what was measured (its units with a defined metric), against the
    seed's design: a warning below it, undefined at none."""
    from workbench.protocols.faultline.conditions import condition

    parts, short, none = [], [], []
    for cond, m in doc["conditions"].items():
        n = max([v.get("n") or 0 for v in m.values() if isinstance(v, dict) and v.get("value") is not None] or [0])
        seed = SEED_UNITS["debate" if condition(cond).is_debate else "baseline"]
        parts.append(f"{cond} {n}")
        if not n:
            none.append(cond)
        elif n < seed:
            short.append(f"{cond} ({n} of {seed})")
    line = ("Units measured (topic × pair for a debate, topic for a baseline; those with a defined value): "
            + ", ".join(parts) + ".")
    if short:
        line += (" **Below seed 002's design** (10 topics × 3 pairs = 30 per debate condition, 10 topics per "
                 "baseline): " + ", ".join(short) + ".")
    if none:
        line += " Undefined (nothing measured): " + ", ".join(none) + "."
    return line


def sections(doc: dict) -> list[ReportSection]:
    lost = doc.get("lost_treatments") or {}
    rules = doc.get("rules") or {}
    out = [ReportSection("Faultline: does debate beat self-consistency?", "\n\n".join([
        headline_line(doc),
        f"Mann-Whitney U (rank-biserial r): {fmt(doc['headline']['mann_whitney'])}"
        + (f", p = {doc['headline']['mann_whitney']['details'].get('p_value'):.4g}"
           if doc['headline']['mann_whitney']['details'].get('p_value') is not None else ""),
        *([f"The debate conditions include {', '.join(label(c, lost) for c in lost)}: without their "
           "treatment."] if lost else []),
        "Verdict rule (the project's choice): yes when the 95% bootstrap CI of the headline's mean ACC(debate) − "
        "ACC(self-consistency) lies above 0, no when it lies at or below 0, undecided otherwise.",
        headline_rule_line(rules),
        *filter(None, [beside_line(doc["headline"])]),
        acc_rule_line(rules),
    ]))]
    model = rules.get("embedding_model") or "—"
    seed = {k: v[0] for k, v in THRESHOLDS.items()}
    rows = [f"| condition | BA ({seed['BA']}; grounded at cos ≥ {GROUNDING}, {model}) | ΔSD ({seed['dSD']}) | "
            f"spread trend ({model}) | CG ({seed['CG']}, {model}) | CR ({seed['CR']}; same crux at cos ≥ "
            f"{rules.get('crux_similarity', '—')}, {rules.get('crux_model') or model}) | ACC |", "|---|---|---|---|---|---|---|"]
    dropped = []
    for cond, m in doc["conditions"].items():
        def cell(k):
            if k not in m:
                return "—"
            mark = {True: " ✓", False: " ✗", None: ""}[m[k].get("meets")]
            return fmt(m[k]) + mark + (cr_flag_mark(doc["crux_recurrence"], conditions=[cond]) if k == "CR" else "")
        rows.append(f"| {label(cond, lost)} | {cell('BA')} | {cell('dSD')} | {cell('spread_trend')} | {cell('CG')} | "
                    f"{cell('CR')} | {cell('ACC')} |")
        dropped += [f"- {label(cond, lost)}, {k}: {dropped_text(v['dropped'])}: {v['dropped']['reasons']}"
                    for k, v in m.items() if v.get("dropped")]
    if lost:
        out.append(ReportSection("Faultline conditions without their treatment", "\n".join(
            f"- {label(c, lost)}: its persona read \"(no beliefs recorded)\", so it ran as plain under its own "
            "name (run with --allow-missing-graphs); every comparison with it is marked." for c in lost)))
    out.append(ReportSection("Faultline metrics by condition", embedding_line(rules) + "\n\nMeans with 95% bootstrap "
                             "CIs over debates (CR: over repeated debates); ✓/✗ against seed 002's thresholds. "
                             "A debate whose metric is undefined drops out of its mean and is counted. "
                             + scored_units_line(doc) + "\n\n" + "\n".join(rows) + cr_flag_note(doc)
                             + sc_equal_votes_line(doc)
                             + ("\n\nLeft out of the means:\n" + "\n".join(dropped) if dropped else "")))
    out.append(ReportSection("Faultline condition comparisons", comparison_tables(doc, lost)))
    out.append(ReportSection("Faultline semantic spread per round", spread_table(doc, lost)))
    if doc["by_divergence"]:
        div = ["| divergence | BA | ΔSD | spread trend | CG | CR | ACC |", "|---|---|---|---|---|---|---|"]
        for level, m in doc["by_divergence"].items():
            flag = {"CR": cr_flag_mark(doc["crux_recurrence"], levels=[level])}
            div.append(f"| {level} | " + " | ".join(fmt(m.get(k)) + flag.get(k, "")
                                                   for k in ("BA", "dSD", "spread_trend", "CG", "CR", "ACC")) + " |")
        out.append(ReportSection("Faultline metrics by initial divergence", "\n".join(div) + cr_flag_note(doc)))
    out.append(ReportSection("Faultline crux recurrence", crux_section(doc, rules, lost)))
    e = doc["errors"]
    unknown = ""
    if e.get("unknown_claim_stances"):
        unknown = unknown_claims_line(e) + "\n\n" + "\n".join(f"- {n}" for n in e["unknown_claim_notes"]) + "\n\n"
    out.append(ReportSection("Faultline extraction errors and the project's choices", (
        f"{e['extraction_errors']} structured replies could not be parsed after one retry, in "
        f"{e['runs_with_errors']} runs; their values are missing, never filled in.\n\n" + unknown +
        "Choices seed 002 does not make are the project's own and are listed in "
        "workbench/protocols/faultline/README.md: the prompts, the latent reading, population SD for ΔSD, "
        "card-source centroid for CG, CR's HDBSCAN settings (min_cluster_size, the same-crux similarity, noise "
        "points as one-run clusters), ACC's split rule and denominator, the headline's self-consistency on as many "
        "votes as a persona pair, BA of 0-node conditions against the "
        "persona's smallest built graph (or the size compared with), the verdict rule, the comparison families, "
        "the embedding model, and the reply schemas' constraints.")))
    return out


def crux_method(rules: dict) -> str:
    """How CR decides that two crux questions are one crux, and what that method cannot separate."""
    size, same = rules.get("hdbscan_min_cluster_size", "—"), rules.get("crux_similarity", "—")
    if "crux_equivalence" not in rules:   # a study stored before crux equivalence
        return (f"Crux equivalence: scikit-learn HDBSCAN (min_cluster_size {size}) over {rules.get('embedding_model')} "
                f"questions at cosine ≥ {same}, the study's stored rule. It finds a crux asked in other words only "
                "when the wording stays close.")
    if rules["crux_equivalence"] == "model":
        return ("Crux equivalence (crux_equivalence = \"model\"): every pair of crux questions of different runs at "
                f"{rules['crux_model']} cosine ≥ {CANDIDATE} is put to the study's extractor model, which answers SAME "
                "or DIFFERENT seeing only the two questions (no run, condition or model name; each pair asked once and "
                f"replayed from the call log after); clusters are average-linkage over its answers, cut at 0.5, of at "
                f"least {size} questions. Pairs below the cosine line are taken as different without asking. A debate whose "
                f"check reads CR more than {CR_SHIFT} from the offline default's, where that default is not flagged, "
                f"or would move CR by more than {CR_SHIFT} if two questions it calls different but the default "
                f"matches at cosine ≥ {CLOSE} were one, is flagged below (a small model may call free rewordings "
                "different; the project's rule).")
    if rules["crux_equivalence"] == "matching":
        return (f"Crux equivalence (crux_equivalence = \"matching\", the offline default): {rules['crux_model']} "
                "vectors read with the repeats' structure (a debate asks a crux once): between every two runs a "
                "question and its nearest question in the other run are one crux when each is the other's nearest, "
                f"at cosine ≥ {same}; matches join from the closest down, never two questions of one run, into cruxes "
                f"of at least {size} questions. Questions that differ only in direction (\"raise rates\" against "
                "\"cut rates\", at cosine ~0.9) are kept apart by the project's direction stage, a lexicon of "
                "opposites (raise/cut, rise/fall, more/fewer, above/below, before/after, allow/ban, impose/repeal; an "
                "object's antonym by prefix, unemployment/employment, turns the level round; hold is a third "
                "question; negation never parts). It cannot decide questions at cosine "
                f"{LOW}–{HIGH} (a free rewording and a different question on one subject both sit there), nor "
                "direction words the stage leaves unclear: a debate whose CR moves by more "
                f"than {CR_SHIFT} on such a question, or whose recurring crux joins unclear directions, is flagged "
                "below; crux_equivalence = \"model\" has the extractor check them.")
    return (f"Crux equivalence (crux_equivalence = \"embedding\", session 11's offline default): {rules['crux_model']} "
            f"vectors, average-linkage clusters whose questions have a mean cosine ≥ {same}, of at least {size} "
            "questions. It finds a crux reworded across repeats; it cannot separate questions that differ only in "
            "direction (\"raise rates\" against \"cut rates\" sit at cosine ~0.9): a cluster that joins opposite "
            "directions is flagged below, and crux_equivalence = \"model\" has the extractor check such pairs. Nor "
            f"can it decide questions at cosine {BAND}–{same}: a free rewording and two questions on one subject both "
            f"sit there, so a debate whose CR moves by more than {CR_SHIFT} at any line from {BAND} to {same} is "
            "flagged below too.")


CR_FLAG = "⚑"


def cr_flags(cr: list[dict], conditions: list[str] | None = None, levels: list[str] | None = None) -> tuple[int, int]:
    """(flagged, of): the repeated debates of these conditions (or divergence levels) whose crux equivalence
    the method could not settle (equivalence.Equivalence.flagged), of all of them."""
    rows = [g for g in cr if (conditions is None or g["condition"] in conditions)
            and (levels is None or g.get("divergence") in levels)]
    return sum(1 for g in rows if g.get("flagged")), len(rows)


def cr_flag_mark(cr: list[dict], **where) -> str:
    """A CR cell's mark: how many of the repeated debates behind it are flagged (none: no mark)."""
    flagged, of = cr_flags(cr, **where)
    return f" {CR_FLAG} {flagged} of {of} flagged" if flagged else ""


def cr_flag_note(doc: dict) -> str:
    """The line under every table with a CR cell, when a repeated debate's crux equivalence is flagged."""
    flagged, of = cr_flags(doc["crux_recurrence"])
    if not flagged:
        return ""
    return (f"\n\n{CR_FLAG} {flagged} of {of} repeated debate(s) have a flagged CR: the crux equivalence method could "
            "not settle whether some of their cruxes ask the same question (each is named in the crux recurrence "
            "section). Their CR stays in the means and comparisons, marked where it enters.")


def crux_section(doc: dict, rules: dict, lost: dict) -> str:
    """CR per repeated debate: the clusters it counted (not debates: the condition table's n counts those)."""
    rows = []
    for g in doc["crux_recurrence"]:
        head = f"- {g['item']} × {label(g['condition'], lost)} ({g['runs']} runs): CR "
        if g.get("value") is None:
            rows.append(head + fmt(g))
            continue
        d = g["details"]
        rows.append(head + f"{g['value']:.3f}: {d['stable']} stable of {d['clusters']} cluster(s) + {d['noise']} "
                           f"question(s) asked once, from {d['questions']} questions"
                    + (f". FLAGGED: {g['flag_reason']}" if g.get("flagged") else ""))
    flagged = sum(1 for g in doc["crux_recurrence"] if g.get("flagged"))
    return (crux_method(rules) + " A crux is stable when its cluster spans at least 3 runs (seed 002); a question "
            "no other repeat restates counts as a cluster of one run."
            + (f" {flagged} repeated debate(s) flagged." if flagged else "") + "\n\n"
            + ("\n".join(rows) or "No repeated debates."))


def sc_equal_votes_line(doc: dict) -> str:
    """Self-consistency's ACC over its first two samples, the reading the equal-votes headline compares with."""
    est = (doc["conditions"].get("self-consistency") or {}).get("ACC_equal_votes")
    if not est:
        return ""
    return ("\n\nThe self-consistency row's ACC is the majority of its five samples (seed 002); over its first two "
            f"samples alone (the equal-votes reading, split rule as above) it reads {fmt(est)}.")


def unknown_claims_line(errors: dict) -> str:
    """The one sentence `metrics` and the report print for stance replies that named unknown claim ids."""
    n, runs = errors["unknown_claim_stances"], errors["runs_with_unknown_claims"]
    return (f"{n} stance repl{'y' if n == 1 else 'ies'} in {runs} run(s) named claim ids not on the table: those "
            "entries were read as no claim's stance (the claims they may have meant stay without one)")


def text(doc: dict) -> str:
    """The batch `metrics` text: the same sections, verdict first."""
    return "\n\n".join(f"## {s.title}\n\n{s.body}" for s in sections(doc))
