"""What makes a study simulated, the label it carries everywhere, and the rule against mixing.

A study is simulated when any model it names — the architecture model or any
judge — is `sim`. It is then simulated for good: the label is derived from the
frozen definition, so it cannot be switched off, and a study that mixes `sim`
with a real model (or that already holds calls of another model) is refused.
"""

from __future__ import annotations

SIM_MODEL = "sim"
LABEL = "SIMULATED"
# Every simulated reply starts with this. The model string itself ("sim") is scrubbed from blind texts
# as a model name, so the banner avoids it.
REPLY_BANNER = "[SIMULATED TEXT: written by the offline simulator with planted effects, not by a language model]"
BANNER = ("SIMULATED: every response, score and number in this study comes from the offline `sim` model "
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
