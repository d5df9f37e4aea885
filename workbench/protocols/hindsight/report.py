"""The markdown report of a study (`workbench --batch report STUDY --out FILE.md`).

Sections: status (blinded / unblinded / forced), the study's settings and
freeze hash, Tables 1-4 with the Glenda/Crock predictions (or the condition-free
overall table while blinded), one block per evaluator, then their agreement,
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
from workbench.metrics.render import base_id, to_markdown
from workbench.protocols.hindsight.metrics.render import analysis_tables

DEFINITIONS = """\
- **Evaluator**: the study's `evaluator` (frozen with it): the human raters (an item's score is the mean over
  them) or one LLM judge (its verdict; judge_error verdicts are left out, never scored as 0); with both, every
  table is computed once per evaluator, one block each, followed by their agreement.
- **Unit of analysis (Tables 1, 3, 4)**: the (case, condition) pair, valued as the mean over that case's items
  under the condition (one item per replicate) of the evaluator's item score. A cell is the mean over cases with
  a 95% bootstrap CI (SciPy BCa, 9999 resamples, seed 0; percentile when BCa is not finite); N counts cases.
- **Bootstrap CIs**: none under MIN_UNITS units per sample (the project's choice): the cell prints "n too small"
  with the values instead (a 95% bootstrap interval over two cases is their range, covering about half the time).
- **Composites**: Glenda/Crock = sum of 3 binary criteria (0-3); Blast Radius = sum of 3 criteria 0-2 (0-6);
  an evaluator's composite needs every criterion.
- **Effect sizes (Table 4)**: Cohen's d = (mean A - mean B) / pooled SD over the two conditions' case units as
  independent groups, with a BCa bootstrap CI (SciPy; percentile where BCa is not finite; each condition's cases resampled on their own, 9999
  resamples, seed 0); Cohen's words on |d| (< 0.2 negligible, < 0.5 small, < 0.8 medium, else large) only when
  the CI excludes 0. Beside it, d_z = mean(A - B) / sd(A - B) over the cases that have both conditions (at
  least 2), with a paired bootstrap CI; it is on another scale and carries no words.
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
    "evaluator": "Evaluator",
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
    evaluator = analysis.settings.get("evaluator") or ""
    parts.append(f"- {evaluator[:1].upper()}{evaluator[1:]}")
    parts.append(f"- Generated: {generated_at}")
    if d.forced:
        parts.append(f"- **{FORCED_LABEL}.** Every table below is marked.")
    parts += [f"- Note: {n}" for n in analysis.notes]
    parts += ["", "## Settings", "", _settings_block(analysis)]
    if fidelity:
        parts += ["## Fidelity to the seed", "", fidelity]
    tables = analysis_tables(analysis)
    results = ["overall", "table1", "table2", "table3", "table4", "predictions"]
    agreement = ["agreement", "judges", "panel", "judge_errors", "audit"]
    if len(analysis.blocks) > 1:  # the evaluators' agreement follows their blocks
        results, agreement = results + ["judges"], [i for i in agreement if i != "judges"]
    sections = [
        ("Results", results),
        ("Contamination probes", ["probes"]),  # beside the tables (seed 000 §XIII.3)
        ("Agreement", agreement),
        ("Decision quality", ["dq", "dq_spread", "dq_baseline"]),
        ("Calibration of judge scores", ["calibration", "reliability"]),
        ("Counts", ["counts"]),
    ]
    for heading, ids in sections:
        present = [t for t in tables if base_id(t.id) in ids]
        if not present:
            continue
        parts += [f"## {heading}", ""]
        for t in present:
            parts += [_table_markdown(t)]
        if heading == "Results" and d.blinded:
            shown = {t.id for t in tables}
            parts += [f"### {title}\n\n{HIDDEN_NOTE}\n" for table_id, title in HIDDEN_TABLES if table_id not in shown]
        if heading == "Results" and adjudication:
            parts += ["### Raw and adjudicated results", "", adjudication]
    if not d.blinded and topology:
        parts += ["## Topology by case and condition", "", topology]
    from workbench.metrics.descriptive import MIN_BOOTSTRAP_UNITS

    definitions = DEFINITIONS.replace("MIN_UNITS", str(MIN_BOOTSTRAP_UNITS))
    parts += ["## Definitions", "", definitions + ("" if d.blinded else P1_DEFINITION)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(parts)).rstrip() + "\n"  # one blank line between blocks

