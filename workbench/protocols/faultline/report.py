"""The faultline report sections: the self-consistency verdict first (seed 002: "Run this comparison
first"), then each condition's six metrics beside the seed's thresholds, comparisons, divergence,
crux recurrence and errors. Text only; every number comes from analysis.study_metrics."""

from __future__ import annotations

from workbench.protocol.base import ReportSection
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
    return text + f" (n={est['n']})"


def headline_line(doc: dict) -> str:
    h = doc["headline"]
    diff = h["mean_difference"]
    shown = fmt(diff) if diff["value"] is not None else "undefined"
    return f"Debate beats self-consistency on ACC: **{h['answer']}** — mean difference {shown}; {h['why']}."


def sections(doc: dict) -> list[ReportSection]:
    lost = doc.get("lost_treatments") or {}
    out = [ReportSection("Faultline: does debate beat self-consistency?", "\n\n".join([
        headline_line(doc),
        f"Mann-Whitney U (rank-biserial r): {fmt(doc['headline']['mann_whitney'])}"
        + (f", p = {doc['headline']['mann_whitney']['details'].get('p_value'):.4g}"
           if doc['headline']['mann_whitney']['details'].get('p_value') is not None else ""),
        *([f"The debate conditions include {', '.join(label(c, lost) for c in lost)}: without their "
           "treatment."] if lost else []),
        "Verdict rule (the project's choice): yes when the 95% bootstrap CI of mean ACC(debate) − "
        "ACC(self-consistency) lies above 0, no when it lies at or below 0, undecided otherwise.",
    ]))]
    rows = ["| condition | BA (> 0.6) | ΔSD (≥ 0) | spread trend | CG (> 0.55) | CR (> 0.4) | ACC |",
            "|---|---|---|---|---|---|---|"]
    for cond, m in doc["conditions"].items():
        def cell(k):
            if k not in m:
                return "—"
            mark = {True: " ✓", False: " ✗", None: ""}[m[k].get("meets")]
            return fmt(m[k]) + mark
        rows.append(f"| {label(cond, lost)} | {cell('BA')} | {cell('dSD')} | {cell('spread_trend')} | {cell('CG')} | "
                    f"{cell('CR')} | {cell('ACC')} |")
    if lost:
        out.append(ReportSection("Faultline conditions without their treatment", "\n".join(
            f"- {label(c, lost)}: its persona read \"(no beliefs recorded)\", so it ran as plain under its own "
            "name (run with --allow-missing-graphs); every comparison with it is marked." for c in lost)))
    out.append(ReportSection("Faultline metrics by condition", "Means with 95% bootstrap CIs over debates "
                             "(CR: over repeated debates); ✓/✗ against seed 002's thresholds.\n\n" + "\n".join(rows)))
    comp = ["| comparison | mean difference | Mann-Whitney r | p |", "|---|---|---|---|"]
    for c in doc["comparisons"]:
        p = c["mann_whitney"]["details"].get("p_value")
        comp.append(f"| {mark(c['comparison'], lost)} | {fmt(c['mean_difference'])} | {fmt(c['mann_whitney'])} | "
                    f"{'—' if p is None else f'{p:.4g}'} |")
    out.append(ReportSection("Faultline condition comparisons", "\n".join(comp)))
    if doc["by_divergence"]:
        div = ["| divergence | BA | ΔSD | spread trend | CG | ACC |", "|---|---|---|---|---|---|"]
        for level, m in doc["by_divergence"].items():
            div.append(f"| {level} | " + " | ".join(fmt(m[k]) for k in ("BA", "dSD", "spread_trend", "CG", "ACC"))
                       + " |")
        out.append(ReportSection("Faultline metrics by initial divergence", "\n".join(div)))
    cr = [f"- {g['item']} × {label(g['condition'], lost)} ({g['runs']} runs): {fmt(g)}" for g in doc["crux_recurrence"]]
    out.append(ReportSection("Faultline crux recurrence", "\n".join(cr) or "No repeated debates."))
    e = doc["errors"]
    unknown = ""
    if e.get("unknown_claim_stances"):
        unknown = unknown_claims_line(e) + "\n\n" + "\n".join(f"- {n}" for n in e["unknown_claim_notes"]) + "\n\n"
    out.append(ReportSection("Faultline extraction errors and the project's choices", (
        f"{e['extraction_errors']} structured replies could not be parsed after one retry, in "
        f"{e['runs_with_errors']} runs; their values are missing, never filled in.\n\n" + unknown +
        "Choices seed 002 does not make are the project's own and are listed in "
        "workbench/protocols/faultline/README.md: the prompts, the latent reading, population SD for ΔSD, "
        "card-source centroid for CG, HDBSCAN min_cluster_size, the sign-majority vote for ACC (ties are not "
        "correct), BA of 0-node conditions against the persona's smallest built graph, the verdict rule, and the reply "
        "schemas' constraints.")))
    return out


def unknown_claims_line(errors: dict) -> str:
    """The one sentence `metrics` and the report print for stance replies that named unknown claim ids."""
    n, runs = errors["unknown_claim_stances"], errors["runs_with_unknown_claims"]
    return (f"{n} stance repl{'y' if n == 1 else 'ies'} in {runs} run(s) named claim ids not on the table: those "
            "entries were read as no claim's stance (the claims they may have meant stay without one)")


def text(doc: dict) -> str:
    """The batch `metrics` text: the same sections, verdict first."""
    return "\n\n".join(f"## {s.title}\n\n{s.body}" for s in sections(doc))
