"""What makes a study simulated, the label it carries everywhere, and the rule against mixing.

A study is simulated when any model it names — the architecture model or any
judge — is `sim`. It is then simulated for good: the label is derived from the
frozen definition, so it cannot be switched off, and a study that mixes `sim`
with a real model (or that already holds calls of another model) is refused.
"""

from __future__ import annotations

from workbench.simulation.params import SIM_MODEL

LABEL = "SIMULATED"
# Every simulated reply starts with this. The model string itself ("sim") is scrubbed from blind texts
# as a model name, so the banner avoids it.
REPLY_BANNER = "[SIMULATED TEXT: written by the offline simulator with planted effects, not by a language model]"
BANNER = ("Every response, score and number in this study comes from the offline `sim` model "
          "and simulated raters with planted effects; none of it is a model's answer or a person's judgement.")

# A dry run on `mock` may be scored by simulated raters (`simulate raters`) so that it reaches the report.
PLACEHOLDER_NOTE = ("**Dry run.** Every response is the offline `mock` model's placeholder text, and any rater's "
                    "score in it comes from simulated raters (`workbench --batch simulate raters`): no number "
                    "here is a finding.")


def models_of(definition: dict) -> list[str]:
    """Every model a study definition names: its [model] and each judge's."""
    names = [(definition.get("model") or {}).get("name") or ""]
    names += [j.get("model") or "" for j in definition.get("judges") or []]
    return [n for n in names if n]


def is_simulated(definition: dict | None) -> bool:
    return bool(definition) and SIM_MODEL in models_of(definition)


def is_placeholder(definition: dict | None) -> bool:
    """Every model the study calls is the `mock` model: its texts are placeholders, it holds no real data."""
    from workbench.gateway import MOCK_MODEL

    names = run_models(definition) if definition else []
    return bool(names) and all(n == MOCK_MODEL for n in names)


def mixing_problem(definition: dict) -> str | None:
    """Why a definition mixes simulated and real models, or None."""
    names = models_of(definition)
    if SIM_MODEL in names and any(n != SIM_MODEL for n in names):
        real = sorted({n for n in names if n != SIM_MODEL})
        return (f"a study on the `sim` model cannot also use {', '.join(real)}: simulated and real data never "
                "share a study; make every model `sim`, or none")
    return None


def run_models(definition: dict) -> list[str]:
    """Every model a study's runs may call: its [model], its judges, and the model tables of its protocol's
    section (faultline's extractor and belief-graph builder)."""
    names = models_of(definition)
    section = definition.get(definition.get("protocol") or "")
    for sub in (section.values() if isinstance(section, dict) else ()):
        if isinstance(sub, dict) and isinstance(sub.get("name"), str) and sub["name"]:
            names.append(sub["name"])
    return names


def run_refusal(definition: dict, logged: set[str], using: list[str] | None = None) -> str | None:
    """Why running a study now would mix simulated and real data, or None. `logged`: the models its
    calls already went to (store.calls.study_models); `using`: the models this run would call (default:
    the definition's). A study on `sim` takes no other model's call, and a study with real calls takes
    no `sim` call, whatever the command line or the settings say."""
    study = definition.get("name") or "this study"
    using = list(using if using is not None else run_models(definition))
    if is_simulated(definition):
        real = sorted({m for m in [*using, *logged] if m and m != SIM_MODEL})
        if real:
            return (f"study '{study}' is a {LABEL} study (its definition is on the `sim` model): it cannot run "
                    f"on {', '.join(real)}; simulated and real data never share a study; create a new study "
                    "with real models instead")
    elif SIM_MODEL in using or SIM_MODEL in logged:
        return (f"study '{study}' has real model calls: the `sim` model cannot add simulated data to it; "
                "create a separate study on `sim` for a dry run")
    return None


def title_mark(definition: dict | None, frozen: bool = True) -> str:
    """What a report title carries: for a simulated study the label and the banner; for every frozen
    study the power it was designed with (printed as the title's continuation so every report opens
    with it; computed on the statistics core in well under a second, so it is always shown)."""
    if not is_simulated(definition):
        power = f"\n\n> Designed power: {designed_power(definition)}" if frozen and definition else ""
        return (f"\n\n> {PLACEHOLDER_NOTE}" if is_placeholder(definition) else "") + power
    lines = [f" ({LABEL})", "", f"> **{LABEL}.** {BANNER}"]
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
    # numbered, not named: a report is read before unblinding too, and the names are conditions
    # (`workbench --batch power STUDY` lists them in the same order)
    name = doc["effect_name"]
    return "; ".join(f"comparison {i} {name}={r['effect']:.2f}: " + ("-" if r["power"] is None else f"{r['power']:.2f}")
                     for i, r in enumerate(doc["comparisons"], start=1)) + (
        f" ({doc['size_text']}, {sims} simulations; the comparisons in the order of "
        "`workbench --batch power STUDY`)")


def mark_document(doc, definition: dict | None):
    """A metrics document of a simulated study: the label on the JSON, the text and every CSV row."""
    if not is_simulated(definition):
        return doc
    doc.document = {"simulated": True, **doc.document, "simulated_banner": f"{LABEL}: {BANNER}"}
    doc.text = f"{LABEL}: {BANNER}\n\n{doc.text}"
    doc.csv_columns = ["simulated", *[c for c in doc.csv_columns if c != "simulated"]]
    doc.csv_rows = [{**row, "simulated": LABEL} for row in doc.csv_rows]
    return doc
