"""The markdown report of a study (`workbench --batch report STUDY --out FILE.md`).

Sections: status (blinded / unblinded / forced), the study's settings and
freeze hash, Tables 1-4 (or the condition-free overall table while blinded),
agreement (inter-rater vs the pre-registered targets, human vs judge, judge
panel, judge errors, blindness audit), decision quality, calibration of judge
scores when there are data for it, contamination probes, counts, and the
definitions used. Every table is rendered by `metrics/render.py`, the
same cells the CLI prints and the Metrics screen shows.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from workbench.protocols.hindsight.metrics.tables import BLINDED_LABEL, FORCED_LABEL
from workbench.metrics.render import to_markdown
from workbench.protocols.hindsight.metrics.render import analysis_tables

DEFINITIONS = """\
- **Unit of analysis (Tables 1, 3, 4)**: the (case, condition) pair, valued as the mean over that case's items
  under the condition (one item per replicate) of the mean over human raters. A cell is the mean over cases with
  a 95% bootstrap CI (SciPy BCa, 9999 resamples, seed 0; percentile when BCa is not finite); N counts cases.
- **Composites**: Glenda/Crock = sum of 3 binary criteria (0-3); Blast Radius = sum of 3 criteria 0-2 (0-6);
  a rater's composite needs every criterion.
- **Effect sizes**: paired d_z over cases both conditions share (at least 2), else the independent d with
  pooled SD; CI by noncentral-t inversion; |d| < 0.2 negligible, < 0.5 small, < 0.8 medium, else large.
- **Inter-rater agreement**: Cohen's kappa (two raters; Light's mean pairwise kappa for more), unweighted and
  quadratic-weighted, on the rubric's full scale; the pre-registered target is checked against the unweighted
  kappa; Krippendorff's alpha (ordinal).
- **Human vs judge**: the human mean rounded half up vs the judge's score (kappa), and Spearman rho on the
  unrounded mean. judge_error verdicts are excluded, never scored as 0.
- **Decision quality**: seed 001 DQ-1 (cosine similarity of MiniLM embeddings < 0.65, expected perspectives by
  complexity low 3 / medium 5 / high 8), DQ-2 (1 - |r(order, similarity to first)|; parallel = 1.0), DQ-3
  (concern coverage 1 / 0.5 / 0 by a model or a rater; an unassessed concern leaves DQ-3 undefined), weighted
  0.35 / 0.30 / 0.35.
- **Missing data**: undefined statistics are printed as "undefined" with the reason; nothing missing is counted
  as zero.
"""
# Names conditions, so a blinded report leaves it out.
P1_DEFINITION = ("- **P1**: three C2 runs per case; shown apart from the B1-C3 rows (mean of its replicates per "
                 "case) and in Table 2.\n")


SETTING_LABELS = {  # key -> the label a reader of the appendix sees
    "name": "Name", "protocol": "Protocol", "description": "Description", "cases": "Cases",
    "conditions": "Conditions", "replicates": "Replicates", "model": "Architecture model", "judges": "LLM judge",
    "raters": "Human raters", "rubrics": "Rubrics", "rubric_versions": "Rubric version", "thresholds": "Threshold",
    "blinding": "Blinding", "cost_ceiling": "Cost ceiling", "custom_concerns": "Custom concerns (DQ-3)",
    "architectures": "Architecture", "hindsight": "Hindsight option",
}
# Tables 1-4 compare conditions; while blinded each keeps its heading, its body waits (names no condition)
HIDDEN_TABLES = (("table1", "Table 1 - Condition x metric scores"), ("table2", "Table 2 - Topology map"),
                 ("table3", "Table 3 - Specialized test scores"), ("table4", "Table 4 - Effect sizes"))
HIDDEN_NOTE = "_Hidden until unblinding: this table compares conditions._"


def _plain(value) -> str:
    """A setting's value in words: lists joined, tables as "key value" pairs, booleans as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {_plain(v)}" for k, v in sorted(value.items()))
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) or "-"
    return str(value)


def _setting_rows(key: str, value) -> list[tuple[str, str]]:
    """One row per setting; a table of named parts (thresholds, rubric versions, architectures, judges) gets
    one row per part, so nothing reads as raw JSON."""
    label = SETTING_LABELS.get(key, key)
    if key == "model" and isinstance(value, dict):
        rest = {k: v for k, v in value.items() if k != "name" and v not in (None, "")}
        return [(label, f"{value.get('name', '-')}" + (f" ({_plain(rest)})" if rest else ""))]
    if key == "rubric_versions" and isinstance(value, dict):
        return [(f"{label}: {name}", f"`{digest}`") for name, digest in sorted(value.items())]
    if key == "judges" and isinstance(value, list):
        rows = []
        for judge in value:
            rest = {k: v for k, v in judge.items() if k not in ("name", "model")} if isinstance(judge, dict) else {}
            name = judge.get("name", "-") if isinstance(judge, dict) else str(judge)
            model = judge.get("model", "-") if isinstance(judge, dict) else ""
            rows.append((f"{label}: {name}", f"{model}" + (f" ({_plain(rest)})" if rest else "")))
        return rows
    if isinstance(value, dict) and value and key != "blinding":
        return [(f"{label}: {k}", _plain(v)) for k, v in sorted(value.items())]
    return [(label, _plain(value))]


def _settings_block(analysis) -> str:
    s = analysis.settings
    lines = ["| Setting | Value |", "|---|---|"]
    for key in SETTING_LABELS:
        value = s.get(key)
        if value in (None, "", [], {}):
            continue
        for label, text in _setting_rows(key, value):
            lines.append(f"| {label} | {text.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _table_markdown(table) -> str:
    """A table with its notes as one compact paragraph under it, as a paper's appendix prints them."""
    from dataclasses import replace

    body = to_markdown(replace(table, notes=[])).rstrip("\n")
    if not table.notes:
        return body + "\n"
    notes = " ".join(n if n.rstrip().endswith((".", ")", ":")) else n + "." for n in table.notes)
    return f"{body}\n\n*Note.* {notes}\n"


def build_report(analysis, *, generated_at: str | None = None, fidelity: str = "", topology: str = "",
                 adjudication: str = "") -> str:
    """`fidelity`: the "Fidelity to the seed" section (fidelity.py), printed after the settings;
    `topology`: topology by case and condition with its reviews (unblinded studies only)."""
    d = analysis.data
    generated_at = generated_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
    title = f"# Study report: {d.name}"
    if d.blinded:
        title += f" ({BLINDED_LABEL})"
    elif d.forced:
        title += " [FORCED UNBLINDING]"
    from workbench.simulation.marks import title_mark  # a study on `sim` says so before anything else

    parts = [title + title_mark(d.definition, bool(d.frozen_at)), ""]
    parts.append(f"- Study id: `{d.study_id}`; protocol: {d.protocol}")
    parts.append(f"- Frozen: {d.frozen_at or 'not frozen'}; freeze hash: `{d.freeze_hash or '-'}`")
    parts.append(f"- Status: {analysis.status_line()}")
    parts.append(f"- Generated: {generated_at}")
    if d.forced:
        parts.append(f"- **{FORCED_LABEL}.** Every table below is marked.")
    parts += [f"- Note: {n}" for n in analysis.notes]
    parts += ["", "## Settings", "", _settings_block(analysis)]
    if fidelity:
        parts += ["## Fidelity to the seed", "", fidelity]
    tables = {t.id: t for t in analysis_tables(analysis)}
    sections = [
        ("Results", ["overall", "table1", "table2", "table3", "table4"]),
        ("Contamination probes", ["probes"]),  # beside the tables (seed 000 §XIII.3)
        ("Agreement", ["agreement", "judges", "panel", "judge_errors", "audit"]),
        ("Decision quality", ["dq", "dq_spread", "dq_baseline"]),
        ("Calibration of judge scores", ["calibration", "reliability"]),
        ("Counts", ["counts"]),
    ]
    for heading, ids in sections:
        present = [tables[i] for i in ids if i in tables]
        if not present:
            continue
        parts += [f"## {heading}", ""]
        for t in present:
            parts += [_table_markdown(t)]
        if heading == "Results" and d.blinded:
            parts += [f"### {title}\n\n{HIDDEN_NOTE}\n" for table_id, title in HIDDEN_TABLES if table_id not in tables]
        if heading == "Results" and adjudication:
            parts += ["### Raw and adjudicated results", "", adjudication]
    if not d.blinded:
        parts += _predictions(analysis)
        if topology:
            parts += ["## Topology by case and condition", "", topology]
    parts += ["## Definitions", "", DEFINITIONS + ("" if d.blinded else P1_DEFINITION)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(parts)).rstrip() + "\n"  # one blank line between blocks


def _predictions(analysis) -> list[str]:
    """Seed 000 §VIII's pre-registered Glenda/Crock ranges beside the observed Table 3 means."""
    from workbench.protocols.hindsight.metrics.tables import glenda_crock_predictions
    from workbench.metrics.render import fmt_est

    rows = glenda_crock_predictions(analysis.table3)
    if not rows:
        return []
    out = ["## Glenda/Crock: predicted (seed 000 §VIII) vs observed", "",
           "| Condition | Predicted (0-3) | Observed mean [95% CI] | Observed vs prediction |", "|---|---|---|---|"]
    for r in rows:
        lo, hi = r["predicted"]
        out.append(f"| {r['condition']} | {lo}-{hi} | {fmt_est(r['observed'])} | {r['verdict']} |")
    contradicted = [r["condition"] for r in rows if r["verdict"] in ("below", "above")]
    out += ["", "The predictions were stated in the seed before any run. "
            + (f"Results contradict them for {', '.join(contradicted)}; reported as observed." if contradicted
               else "No defined result falls outside its predicted range.") + "", ""]
    return out
