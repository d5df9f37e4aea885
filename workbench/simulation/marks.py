"""What a report and a metrics document of a simulated (or dry-run) study carry.

The label itself, and what makes a study simulated, are the sim model's (`workbench.simmodel.label`);
here they meet the power analysis (every frozen study's report states its designed power) and the
`mock` model's dry run.
"""

from __future__ import annotations

from workbench.simmodel.label import BANNER, LABEL, is_simulated, run_models

# A dry run on `mock` may be scored by simulated raters (`simulate raters`) so that it reaches the report.
PLACEHOLDER_NOTE = ("**Dry run.** Every response is the offline `mock` model's placeholder text, and any rater's "
                    "score in it comes from simulated raters (`workbench --batch simulate raters`): no number "
                    "here is a finding.")


# A dry run without raters (issue 42 item 11: its banner named simulated raters it does not have).
PLACEHOLDER_NO_RATERS = ("**Dry run.** Every response is the offline `mock` model's placeholder text (the study has "
                         "no raters): no number here is a finding.")


def placeholder_note(definition: dict | None) -> str:
    return PLACEHOLDER_NOTE if (definition or {}).get("raters") else PLACEHOLDER_NO_RATERS


# A simulated study without raters (a judge-only study): its banner names no simulated rater it does not have.
NO_RATERS_BANNER = ("Every response, verdict and number in this study comes from the offline `sim` model with "
                    "planted effects, its judges simulated too (the study has no raters); none of it is a model's "
                    "answer or a person's judgement.")


def banner(definition: dict | None) -> str:
    """The SIMULATED banner this study's files carry: the sim model's, or without raters the judge-only one."""
    return BANNER if (definition or {}).get("raters") else NO_RATERS_BANNER


def is_placeholder(definition: dict | None) -> bool:
    """Every model the study calls is the `mock` model: its texts are placeholders, it holds no real data."""
    from workbench.gateway import MOCK_MODEL

    names = run_models(definition) if definition else []
    return bool(names) and all(n == MOCK_MODEL for n in names)


def title_mark(definition: dict | None, frozen: bool = True) -> str:
    """What a report title carries: for a simulated study the label and the banner; for every frozen
    study the power it was designed with (printed as the title's continuation so every report opens
    with it; computed on the statistics core in well under a second, so it is always shown)."""
    if not is_simulated(definition):
        power = f"\n\n> Designed power: {designed_power(definition)}" if frozen and definition else ""
        return (f"\n\n> {placeholder_note(definition)}" if is_placeholder(definition) else "") + power
    lines = [f" ({LABEL})", "", f"> **{LABEL}.** {banner(definition)}"]
    if frozen:
        lines.append(f"> Designed power: {designed_power(definition)}")
    return "\n".join(lines)


def designed_power(definition: dict, sims: int | None = None) -> str:
    """One line: the power of each pre-registered comparison at the study's design (workbench power)."""
    from workbench.simulation.power import DEFAULT_SIMS, power_document

    sims = sims or DEFAULT_SIMS  # the one simulation count `power` and the TUI use: one set of numbers
    doc = power_document(definition, {}, sims, grid=())   # the protocol's own computation, as `power`'s
    if not doc["comparisons"]:
        return "no pre-registered comparison"
    # numbered, not named, where the study has blind evaluators: a report is read before unblinding too, and the
    # names are conditions (`workbench --batch power STUDY` lists them in the same order). A study without
    # raters or judges blinds nothing (faultline's): its comparisons are named (issue 42).
    name = doc["effect_name"]
    named = not definition.get("raters") and not definition.get("judges")
    return "; ".join((r["comparison"] if named else f"comparison {i}") + f" {name}={r['effect']:.2f}: "
                     + ("-" if r["power"] is None else f"{r['power']:.2f}")
                     for i, r in enumerate(doc["comparisons"], start=1)) + (
        f" ({doc['size_text']}, {sims} simulations" + ("" if named else "; the comparisons in the order of "
                                                           "`workbench --batch power STUDY`") + ")")


def mark_document(doc, definition: dict | None):
    """A metrics document of a simulated study: the label on the JSON, the text and every CSV row."""
    if not is_simulated(definition):
        return doc
    doc.document = mark_json(doc.document, definition)
    doc.text = mark_text(doc.text, definition)
    doc.csv_columns, doc.csv_rows = mark_rows(doc.csv_columns, doc.csv_rows, definition)
    return doc


# The marks of every file a simulated study's export writes (the metrics document's above, a protocol's own
# exports): one shape per format, so that a reader checks one key, one column, one first line.

def mark_json(document: dict, definition: dict | None) -> dict:
    """A JSON document of a simulated study: `"simulated": true` first and the banner under
    `simulated_banner`; any other study's unchanged."""
    if not is_simulated(definition):
        return document
    return {"simulated": True, **document, "simulated_banner": f"{LABEL}: {banner(definition)}"}


def mark_rows(columns: list[str], rows: list[dict], definition: dict | None) -> tuple[list[str], list[dict]]:
    """CSV columns and rows of a simulated study: a first column `simulated` holding the label on every row."""
    if not is_simulated(definition):
        return columns, rows
    return ["simulated", *[c for c in columns if c != "simulated"]], [{**row, "simulated": LABEL} for row in rows]


def mark_text(text: str, definition: dict | None) -> str:
    """A text or Markdown file of a simulated study: the label and banner as its first line."""
    return f"{LABEL}: {banner(definition)}\n\n{text}" if is_simulated(definition) else text
