"""The report's M11 sections and the batch `metrics` text, both rendered from `study_metrics`' document
(seed 003 §10's dashboard parts: overview, Likert profile, distribution, samples, confidence; plus
validation points, human agreement and cost)."""

from __future__ import annotations

from workbench.protocol.base import ReportSection
from workbench.protocols.m11.scoring import CRITERIA, score_text


def num(v, digits: int = 2) -> str:
    """A number as the report and the dashboard print it ("-" when missing)."""
    return "-" if v is None else f"{v:.{digits}f}"


def pct(v) -> str:
    """A share as a percentage with one decimal ("-" when missing)."""
    return "-" if v is None else f"{100 * v:.1f}%"


def _est(e: dict) -> str:
    if e["value"] is None:
        return f"undefined ({e['undefined_reason']})"
    ci = f" [{e['ci_low']:.3f}, {e['ci_high']:.3f}]" if e["ci_low"] is not None else ""
    return f"{e['value']:.3f}{ci} (n={e['n']})"


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def overview(doc: dict) -> str:
    f = doc["input_filter"] or {}
    b, bands = doc["binary"], doc["bands"]
    lines = [f"Module {doc['module']}: which product attributes are hard constraints. {len(doc['samples'])} "
             f"sample(s), {doc['runs']} pipeline run(s) each; conditions {', '.join(doc['conditions'])}.",
             f"InputFilter: {f.get('loaded', '-')} record(s) loaded, {f.get('excluded', '-')} excluded "
             f"of {f.get('records', '-')} in {f.get('file', '-')}."]
    for p in (f.get("problems") or [])[:20]:
        lines.append(f"- excluded: {p['file']}:{p['line']}: {p['field']}: {p['message']}")
    lines.append(f"Pass rate (Likert, Strong PASS or PASS): {pct(bands['pass_rate'])} of {bands['n']} scored "
                 f"sample(s); {bands['unscored']} without a score." if bands["n"] else
                 f"Pass rate (Likert, Strong PASS or PASS): undefined: no sample was scored "
                 f"({bands['unscored']} without a score).")
    lines.append(f"Binary judge: pass rate {pct(b['binary_pass_rate'])}; agreement with the Likert bands "
                 f"{_est(b['agreement'])}, Cohen's kappa {_est(b['kappa'])}; without Borderline "
                 f"{_est(b['agreement_without_borderline'])}.")
    return "\n".join(lines)


def bands_section(doc: dict) -> str:
    rows = [[r["band"], r["likert"], r["count"], "-" if r["percent"] is None else f"{r['percent']:.1f}%",
             f"{r['expected_percent'][0]}-{r['expected_percent'][1]}%"] for r in doc["bands"]["rows"]]
    cross = doc["binary"]["cross_table"]
    crow = [[v, *[cross[v][r["band"]] for r in doc["bands"]["rows"]]] for v in ("PASS", "FAIL")]
    return ("Bands read from the overall score (mean of the five criteria) as shown, to a tenth, beside the "
            "distribution seed 003 §7 expects for each band's Likert range.\n\n" +
            _table(["band", "Likert range", "samples", "observed", "expected"], rows) +
            "\n\nBinary verdict against the band:\n\n" +
            _table(["binary", *[r["band"] for r in doc["bands"]["rows"]]], crow))


def profile_section(doc: dict) -> str:
    prof = doc["profile"]
    rows = [[c, num(prof[c]), "#" * int(round((prof[c] or 0) * 4))] for c in CRITERIA]
    hist = [[f"{h['lo']:.1f}-{h['hi']:.1f}", h["count"], "#" * h["count"]] for h in doc["histogram"]]
    return ("Mean per criterion (0-5):\n\n" + _table(["criterion", "mean", "profile"], rows) +
            "\n\nOverall score histogram:\n\n" + _table(["overall", "samples", ""], hist) +
            "\n\n" + trend_section(doc["trend"]))


def trend_scope(t: dict) -> str:
    """What the trend lists and what it leaves out, in one sentence (the report and the dashboard)."""
    kinds = f"{t['kind']} studies" if t["scope"] == "same" else "studies of every kind (each labelled)"
    left = ", ".join(f"{n} {why}" for why, n in t["left_out"].items())
    return (f"Trend over the {kinds} of module {t['module']} that ran, created no later than this one"
            + (f"; left out: {left}" if left else "") + "."
            + (f" As of {t['as_of']}, when the report's first writing (or its last `--update`) took it: writing "
               "it again reproduces it (`report --update` takes the store as it is now)." if t.get("as_of") else ""))


def _minute(stamp: str) -> str:
    """A stored ISO time to the minute (two studies of one day are told apart)."""
    return stamp[:16].replace("T", " ")


def trend_section(t: dict | None) -> str:
    if t is None:
        return ""
    rows = [[r["study"] + (" (this study)" if r["this_study"] else ""), r["kind"], _minute(r["created_at"]),
             _minute(r["last_run_at"]), r["samples"], pct(r["pass_rate"]), num(r["mean_overall"])] for r in t["rows"]]
    return trend_scope(t) + "\n\n" + _table(["study", "kind", "created", "last run", "samples", "pass rate",
                                              "mean overall"], rows)


def samples_section(doc: dict) -> str:
    rows = []
    for s in doc["samples"]:
        rows.append([s["id"], score_text(s["overall"]), s["band"] or "-", s["confidence"] or "-",
                     s["binary"] or "-", len(s["errors"]), "; ".join(v["constraint"] for v in s["never_violations"])
                     or "-"])
    # short headers, named in full below, so that every column fits the Metrics tab at 80 columns
    return (_table(["sample", "overall", "band", "conf.", "binary", "errors", "NEVER"], rows) +
            "\n\nconf.: confidence (spread of the overall across runs; - for one run); NEVER: the listed hard "
            "constraints in a NEVER category that the sample's expected answer does not name (violations).")


def validation_section(doc: dict) -> str:
    v = doc["validation"]
    lines = [f"Seed 003 §8 key validation points: {v['met']} of {v['checked']} checked point(s) met."]
    if v["missed"]:
        lines += ["", _table(["sample", "point", "rule", "observed"],
                             [[m["item"], m["point"], m["rule"], num(m["observed"])] for m in v["missed"]])]
    return "\n".join(lines)


SEED_HUMAN_SAMPLE = 20   # seed 003 §8: "Sample 20 M11 outputs"


def scored_line(n: int) -> str:
    """The human-agreement sample counted on the samples both a human and the pipeline scored."""
    if not n:
        return ("Human scores on 0 samples with a pipeline score: the agreement is undefined until a rater "
                "scores a sample.")
    warn = (f" **Below seed 003 §8's {SEED_HUMAN_SAMPLE}**: the agreement is not the seed's validation."
            if n < SEED_HUMAN_SAMPLE else "")
    return f"Human scores on {n} sample(s) with a pipeline score.{warn}"


def human_section(doc: dict) -> str:
    h = doc["human"]
    verdict = {True: "met", False: "not met", None: "not decidable yet"}[h["passed"]]
    return (f"Sample for human raters: {len(h['sample'])} of the requested {h['sample_size']} (seed {h['seed']}, "
            f"stratified by band): {', '.join(h['sample']) or '-'}.\n\n"
            f"{scored_line(h['n'])} Pearson r {_est(h['pearson'])}; Spearman rho {_est(h['spearman'])}. "
            f"Pre-registered target r > {h['target_r']}: {verdict}"
            + ("" if h["ci_above_target"] is None else
               f" (CI lower bound {'above' if h['ci_above_target'] else 'not above'} the target)") + ".")


def confidence_section(doc: dict) -> str:
    c, r = doc["confidence"], doc["retries"]
    counts = ", ".join(f"{k} {v}" for k, v in c["counts"].items())
    var = ", ".join(f"{k} {num(v, 3)}" for k, v in c["variance_by_criterion"].items())
    retries = ", ".join(f"{k} {v}" for k, v in sorted(r["retries"].items())) or "none"
    errors = ", ".join(f"{k} {v}" for k, v in sorted(r["counted_errors"].items())) or "none"
    return (f"Confidence (spread of the overall across runs; HIGH <= 0.4 within one band, MEDIUM <= 1.0, else "
            f"LOW): {counts}.\nRun-to-run variance by criterion (mean over {c['samples_with_spread']} sample(s)): "
            f"{var}; overall {num(c['variance_overall'], 3)}.\nRetries: {retries} ({r['runs_retried']} of "
            f"{r['runs']} run(s) retried). Counted errors (excluded from scores): {errors}. Sycophancy flags "
            f"left unresolved: {r['sycophancy_unresolved']}.")


def cost_section(doc: dict) -> str:
    e, a = doc["cost"]["estimate"], doc["cost"]["actual"]
    est = (f"${e['cost']:.4f} (${e['cost_per_sample']:.5f} per sample)" if e["cost"] is not None
           else f"undefined ({e['undefined_reason']})")
    return (f"Estimate before the run ({e['model']}): {e['calls']} call(s), ~{e['input_tokens']} input and "
            f"~{e['output_tokens']} output tokens, {est}. Seed 003 §9 for reference: ~18000 tokens and ~$0.009 per "
            f"sample with three runs on GPT-4o-mini.\nActual: " + _actual(a) + ".")


def _actual(a: dict) -> str:
    from workbench.studies.costs import cost_text

    if a["cost_unknown"] and not a["total"]:
        return "unknown (no call had a known price)"
    return (f"{cost_text(a['total'], a['cost_unknown'])} in total, ${num(a['mean_per_sample'], 5)} per sample"
            + (f" ({a['note']})" if a["note"] else ""))


def sections(doc: dict) -> list[ReportSection]:
    return [ReportSection("M11 overview", overview(doc)), ReportSection("Bands and binary comparison", bands_section(doc)),
            ReportSection("Likert profile, histogram and trend", profile_section(doc)),
            ReportSection("Samples", samples_section(doc)), ReportSection("Key validation points", validation_section(doc)),
            ReportSection("Human validation", human_section(doc)),
            ReportSection("Confidence and retries", confidence_section(doc)), ReportSection("Cost", cost_section(doc))]


def text(doc: dict) -> str:
    return "\n\n".join(f"## {s.title}\n\n{s.body}" for s in sections(doc))
