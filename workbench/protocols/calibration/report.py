"""The calibration study's report sections (Markdown) and its long-format metrics CSV rows.

The outcome comes first, as the seed's decision is what a reader needs; then
the pre-registration, Arms A, B and C, the four outcomes each marked, and the
choices the seed leaves open that this project made.
"""

from __future__ import annotations

from workbench.protocol.base import ReportSection
from workbench.protocols.calibration.outcomes import outcome_lines
from workbench.protocols.calibration.program import REASON_CHARS, REPLY_TOKENS
from workbench.protocols.calibration.sampling import edges_label

OWN_CHOICES = [
    "p = sigmoid(k · v_hat) is recomputed from each imported v_hat at the pre-registered `k` (default 1).",
    "Reliability bins are equal-width over [0, 1] (`n_bins`, default 6: one per value of the seed's grid, none "
    "on an edge); ECE is count-weighted.",
    "No metric is shown before the study is frozen: the pre-registration cannot change after its numbers were "
    "seen (a frozen study refuses a changed definition).",
    "The seed's minimums (≥ 500 interactions per bin, ≥ 1000 judged) are warnings beside the sizes counted from "
    "the data, not refusals.",
    "The k sweep's default grid is 0.25 to 4.0 in steps of 0.25.",
    "'Well calibrated' means ECE ≤ `ece_threshold` (default 0.05) at the pre-registered k.",
    "'Judges agree' in outcomes 2 and 4 means α ≥ `strong_alpha` (the seed's 0.7 from outcome 1); "
    "between 0.5 and 0.7 no outcome holds.",
    "'Proxy and judges disagree' means Spearman ρ between p and the judges' mean score < `proxy_judge_rho` "
    "(default 0.3).",
    "Arm B's sample gives each (scenario, p bin) stratum an equal share, water-filled past small strata; "
    "p bins for the sample and for disagreement-by-bin are `strata_bins` (default 6) equal-width bins.",
    "The judge rubric (rubrics/calibration-content-quality.toml) has five anchored levels placed at 0, 0.25, "
    "0.5, 0.75 and 1; the judge may answer any value in [0, 1] as JSON {score, reason}.",
    "An invalid reply is told why and asked again `judge_retries` times (default 1) before it counts as a "
    "judge_error.",
    "A reply cut at `judge_max_tokens` is counted as cut and asked again as the same prompt with twice the "
    f"max_tokens within the judge's window; `study create` warns below {REPLY_TOKENS} tokens (a score and a "
    f"reason of up to {REASON_CHARS} characters at about three characters a token).",
    "The prompt check looks for excluded values only when they are at least 3 characters long; names in any "
    "spelling are always refused.",
    "Arm A uses every imported interaction; Arm B samples accepted ones (`accepted`, default true).",
    "An imported field holds at most 100,000 characters, in CSV and JSONL alike; a longer one makes its record bad.",
    "A judge whose two or more scores are all one value is constant: α is still computed and shown, but it is "
    "undefined as a test of disagreement, so no outcome that rests on α is decided; its Spearman correlations "
    "are undefined and say why.",
    "Judges with the same model string and api_base are one model, whatever their names or temperatures: their "
    "agreement is not independent, and the report says so beside the outcome (the offline `mock` and `sim` "
    "are not counted: `sim` plants each judge apart).",
]


def _num(v, fmt: str = ".3f", why: str | None = None) -> str:
    """A number, or "—" with its reason (every "—" in these tables carries one, issue 25)."""
    if v is not None:
        return format(v, fmt)
    return f"— ({why})" if why else "—"


def estimate_text(e: dict, fmt: str = ".3f") -> str:
    """An estimate's value, or "—" with its undefined reason; a note on a defined value follows it. The one
    rendering the report, `metrics` and the TUI's results screen share."""
    text = _num(e.get("value"), fmt, e.get("undefined_reason") or "undefined")
    return f"{text} ({e['note']})" if e.get("value") is not None and e.get("note") else text


EMPTY_BIN = "no interactions in this bin"
NO_PAIR_IN_BIN = "no interaction in this bin has two judge scores"


def sections(doc: dict) -> list[ReportSection]:
    out = [ReportSection("Outcome", _outcome(doc)), ReportSection("Pre-registration", _prereg(doc)),
           ReportSection("Arm A — proxy fidelity", _arm_a(doc)), ReportSection("Arm B — judge anchor", _arm_b(doc)),
           ReportSection("Arm C — inter-rater agreement", _arm_c(doc)),
           ReportSection("The four outcomes", _four(doc)),
           ReportSection("Choices the seed leaves open (the project's own)", "\n".join(f"- {c}" for c in OWN_CHOICES)),
           ReportSection("The joined CSV", _joined(doc))]
    return out


def degenerate_lines(doc: dict) -> list[str]:
    """The degenerate judges, one line each with its consequence (Arm C's definition)."""
    return [f"- {d['statement']}: {d['consequence']}" for d in doc["arm_c"].get("degenerate", [])]


def _outcome(doc: dict) -> str:
    o = doc["outcome"]
    flagged = degenerate_lines(doc)
    return (f"**{o['summary']}**\n\n{o['facts']}."
            + ("\n\nDegenerate judges:\n\n" + "\n".join(flagged) if flagged else ""))


def _prereg(doc: dict) -> str:
    p, n = doc["preregistration"], doc["sample_sizes"]
    judges = ", ".join(f"{j['name']} ({j['model']})" for j in p["judges"])
    a, b = n["arm_a"], n["arm_b"]
    lines = [f"- p grid (the generator's): {p['p_grid']}, pre-registered {p['per_bin']} per grid value; "
             f"{p['n_bins']} reliability bins",
             f"- k = {p['k']:g}; k sweep {p['k_sweep'][0]:g} … {p['k_sweep'][-1]:g} ({len(p['k_sweep'])} values)",
             f"- Arm B sample: {p['sample_size']} pre-registered, seed {p['sample_seed']}, {p['strata_bins']} p bins",
             f"- judges: {judges}",
             f"- rubric: {p['rubric']} (sha256 {p['rubric_sha256'][:16]}…)",
             f"- excluded fields: {', '.join(p['excluded_fields']) or 'none'}",
             f"- α thresholds: escalate below {p['alpha_threshold']:g}, strong at ≥ {p['strong_alpha']:g}",
             f"- joined CSV schema v{p['schema_version']}: {', '.join(p['joined_schema'])}",
             "",
             "Sample sizes, counted from the data:",
             "",
             f"- Arm A: {_count(a['interactions'])} interaction(s); per reliability bin {a['per_bin']} "
             f"({a['non_empty_bins']} non-empty, smallest {a['smallest_bin']}; the seed asks ≥ "
             f"{a['seed_min_per_bin']} per bin)",
             f"- Arm B: {_count(b['judged'])} interaction(s) judged (scored by at least one judge) of "
             f"{b['sampled']} sampled and {b['accepted']} accepted (the seed asks ≥ {b['seed_min']})",
             f"- Arm C: {_count(n['arm_c']['items_scored_by_two_or_more'])} interaction(s) scored by two or more "
             "judges"]
    warnings = [f"- WARNING: {w}" for w in n["warnings"]] + [f"- FLAG: {f}" for f in p["flags"]]
    return "\n".join(lines + ([""] + warnings if warnings else []))


def _count(n: int) -> str:
    """A sample size; nothing counted makes the arm's statistics undefined, and the line says so."""
    return str(n) if n else "0 (undefined)"


def _arm_a(doc: dict) -> str:
    a = doc["arm_a"]
    cal = a["calibration"]
    rows = ["| p bin | n | mean p | frequency +1 | gap |", "|---|---:|---:|---:|---:|"]
    for k, b in enumerate(cal["bins"]):
        why = EMPTY_BIN if not b["count"] else None
        rows.append(f"| {edges_label(b['lower'], b['upper'], last=k == len(cal['bins']) - 1)} | {b['count']} | {_num(b['mean_predicted'], why=why)} | "
                    f"{_num(b['observed_frequency'], why=why)} | {_num(b['gap'], why=why)} |")
    sweep = a["k_sweep"]
    return (f"{a['n']} interactions at k = {a['k']:g}: ECE {estimate_text(cal['ece'])}, MCE {estimate_text(cal['mce'])}, "
            f"Brier {estimate_text(cal['brier'])}.\n\n" + "\n".join(rows) +
            f"\n\nk sweep: {sweep['note']} (ECE {estimate_text(sweep['best_ece'])}).")


def _arm_b(doc: dict) -> str:
    b = doc["arm_b"]
    rows = ["| judge | model | scored | judge errors | prompts refused |", "|---|---|---:|---:|---:|"]
    for name, j in b["per_judge"].items():
        rows.append(f"| {name} | {j['model']} | {j['scored']} | {j['judge_errors']} | {j['prompt_refused']} |")
    return (f"{b['sampled']} interactions sampled of {b['accepted_interactions']} accepted (pre-registered "
            f"{b['sample_size_preregistered']}); runs: "
            + ", ".join(f"{n} {k}" for k, n in b["runs"].items() if n) + ".\n\n" + "\n".join(rows))


def _arm_c(doc: dict) -> str:
    c = doc["arm_c"]
    alpha = c["alpha"]
    lines = [f"- Krippendorff's α (interval): {estimate_text(alpha)}"
             + (f" ({alpha['not_a_test']})" if alpha.get("not_a_test") else ""),
             f"- ICC(2,1): {estimate_text(c['icc_2_1'])}",
             f"- ρ(p, judges' mean): {estimate_text(c['proxy_vs_judges'])}",
             f"- decision rule: {c['decision']}"]
    for pair, est in c["pairwise_spearman"].items():
        lines.append(f"- Spearman {pair}: {estimate_text(est)}")
    flagged = degenerate_lines(doc)
    if flagged:
        lines = ["Degenerate judges:", "", *flagged, "", *lines]
    rows = ["| p bin | n | mean pairwise \\|Δ\\| | mean SD |", "|---|---:|---:|---:|"]
    for b in c["disagreement_by_p_bin"]:
        why = NO_PAIR_IN_BIN if not b["count"] else None
        rows.append(f"| {b['bin']} | {b['count']} | {_num(b['mean_abs_pairwise_difference'], why=why)} | "
                    f"{_num(b['mean_sd'], why=why)} |")
    return "\n".join(lines) + "\n\nDisagreement by p bin:\n\n" + "\n".join(rows)


def _four(doc: dict) -> str:
    return "\n".join(outcome_lines(doc["outcome"]))


def _joined(doc: dict) -> str:
    return ("`workbench --batch calibration export STUDY --out DIR` writes `joined.csv` (one row per accepted "
            "interaction, columns as pre-registered) and `joined.schema.json` beside it. A downstream study joins "
            "on `run_id` (and `interaction_id`), e.g. with pandas:\n\n"
            "```python\nimport pandas as pd\nanchor = pd.read_csv('joined.csv')\n"
            "adaptive = pd.read_csv('adaptive_runs.csv')\n"
            "merged = adaptive.merge(anchor, on=['run_id', 'interaction_id'], how='left')\n```")


def csv_rows(doc: dict) -> tuple[list[str], list[dict]]:
    """Long format: one row per statistic."""
    cols = ["arm", "statistic", "group", "value", "n"]
    rows = []
    a = doc["arm_a"]
    for stat in ("ece", "mce", "brier"):
        rows.append({"arm": "A", "statistic": stat, "group": f"k={a['k']:g}",
                     "value": a["calibration"][stat]["value"], "n": a["n"]})
    bins = a["calibration"]["bins"]
    for k, b in enumerate(bins):
        rows.append({"arm": "A", "statistic": "frequency_positive",
                     "group": edges_label(b["lower"], b["upper"], last=k == len(bins) - 1),
                     "value": b["observed_frequency"], "n": b["count"]})
    for pt in a["k_sweep"]["points"]:
        rows.append({"arm": "A", "statistic": "ece_k_sweep", "group": f"k={pt['k']:g}", "value": pt["ece"]["value"],
                     "n": pt["ece"]["n"]})
    for name, j in doc["arm_b"]["per_judge"].items():
        rows.append({"arm": "B", "statistic": "judge_errors", "group": name, "value": j["judge_errors"],
                     "n": j["finished"]})
    c = doc["arm_c"]
    rows.append({"arm": "C", "statistic": "krippendorff_alpha", "group": "panel", "value": c["alpha"]["value"],
                 "n": c["n_items"]})
    rows.append({"arm": "C", "statistic": "icc_2_1", "group": "panel", "value": c["icc_2_1"]["value"],
                 "n": c["icc_2_1"]["n"]})
    for pair, est in c["pairwise_spearman"].items():
        rows.append({"arm": "C", "statistic": "spearman", "group": pair, "value": est["value"], "n": est["n"]})
    for b in c["disagreement_by_p_bin"]:
        rows.append({"arm": "C", "statistic": "mean_abs_pairwise_difference", "group": b["bin"],
                     "value": b["mean_abs_pairwise_difference"], "n": b["count"]})
    return cols, rows


def text_summary(doc: dict) -> str:
    """The batch `metrics` text: the report's sections without the fixed list of choices."""
    parts = []
    for s in sections(doc):
        if s.title.startswith("Choices") or s.title == "The joined CSV":
            continue
        parts.append(f"{s.title}\n{'=' * len(s.title)}\n{s.body}")
    return "\n\n".join(parts)
