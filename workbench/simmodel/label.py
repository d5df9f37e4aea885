"""What makes a study simulated, the label it carries everywhere, and the rule against mixing.

A study is simulated when any model it names — the architecture model or any
judge — is `sim`. It is then simulated for good: the label is derived from the
frozen definition, so it cannot be switched off, and a study that mixes `sim`
with a real model (or that already holds calls of another model) is refused.
"""

from __future__ import annotations

from workbench.simmodel.params import SIM_MODEL

LABEL = "SIMULATED"
# Every simulated reply starts with this. The model string itself ("sim") is scrubbed from blind texts
# as a model name, so the banner avoids it.
REPLY_BANNER = "[SIMULATED TEXT: written by the offline simulator with planted effects, not by a language model]"
BANNER = ("Every response, score and number in this study comes from the offline `sim` model "
          "and simulated raters with planted effects; none of it is a model's answer or a person's judgement.")


def models_of(definition: dict) -> list[str]:
    """Every model a study definition names: its [model] and each judge's."""
    names = [(definition.get("model") or {}).get("name") or ""]
    names += [j.get("model") or "" for j in definition.get("judges") or []]
    return [n for n in names if n]


def is_simulated(definition: dict | None) -> bool:
    return bool(definition) and SIM_MODEL in models_of(definition)


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
