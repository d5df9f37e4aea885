"""Which model a contamination probe can use (issue 15).

The offline models (`mock`, `sim`) answer with placeholder or simulated text: such an answer can neither
recognize a case nor be classified, so a probe on one measures nothing. When the probe model comes from
Settings (no model named for this probe) and is offline, the probe dialog and `workbench --batch probe`
say so and offer the real models configured in Settings instead of making placeholder calls. Naming an
offline model explicitly still runs the placeholder probe (a dry run of the plumbing; nothing stored).
"""

from __future__ import annotations

from dataclasses import replace

from workbench.gateway.api import OFFLINE_MODELS, ModelSettings
from workbench.gateway.settings import ROLES, load_settings

# the probe's own role first: the model the user most likely meant to probe with
ROLE_ORDER = ("probe", "classifier", "judge", "architecture")


def is_offline(model: str) -> bool:
    return model in OFFLINE_MODELS


def probe_model_choices(db) -> list[ModelSettings]:
    """The real models configured in Settings, each once (with its server), as probe settings."""
    settings = load_settings(db)
    probe = settings.role("probe")
    seen, out = set(), []
    for role in (r for r in ROLE_ORDER if r in ROLES):
        s = settings.role(role)
        key = (s.model, s.api_base or "")
        if not s.model or is_offline(s.model) or key in seen:
            continue
        seen.add(key)
        out.append(replace(probe, model=s.model, api_base=s.api_base, api_key_env=s.api_key_env))
    return out


def offline_probe_message(model: str, choices: list[ModelSettings], *, command: str = "") -> str:
    """Why a probe on `model` cannot classify, and what to probe with instead. `command` (a batch command
    line with CASE) makes the offers copyable."""
    lines = [f"The probe model is '{model}', an offline model: it answers with placeholder text, which cannot "
             "recognize a case and cannot be classified, so the probe would record nothing."]
    if choices:
        lines.append("Models configured in Settings that can probe:")
        for c in choices:
            server = f" --api-base {c.api_base}" if c.api_base else ""
            lines.append(f"  {command} --model {c.model}{server}" if command else
                         f"  {c.model}{' at ' + c.api_base if c.api_base else ''}")
    else:
        lines.append("No real model is configured yet: set the probe model in Settings (6), or name one with "
                     "--model (e.g. openai/gpt-4o-mini; a local server: ollama/llama3 --api-base "
                     "http://localhost:11434).")
    lines.append(f"To run the placeholder probe anyway (plumbing only, nothing stored): --model {model}.")
    return "\n".join(lines)


# --- the classifier (issue 25) -----------------------------------------------------------------------
# A probed model that classifies its own answer can confirm itself: it restated the scenario, then accepted
# the restatement as the real event. So the classifier is another model unless nothing else is configured.
CLASSIFIER_TEMPERATURE = 0.0
CLASSIFIER_MAX_TOKENS = 300


def _same_model(a: ModelSettings, b: ModelSettings) -> bool:
    return a.model == b.model and (a.api_base or "") == (b.api_base or "")


def choose_classifier(db, probe: ModelSettings,
                      explicit: ModelSettings | None = None) -> tuple[ModelSettings, str | None]:
    """(the classifier's settings, a warning or None). In order: `explicit` (--classifier), Settings'
    classifier, Settings' judge model if it is a real model other than the probed one, and last the probed
    model itself, with a warning. A classifier that is the probed model is always warned about."""
    settings = load_settings(db)
    chosen = explicit or settings.classifier
    if chosen is None:
        judge = settings.role("judge")
        if judge.model and not is_offline(judge.model) and not _same_model(judge, probe):
            chosen = replace(judge, temperature=CLASSIFIER_TEMPERATURE, max_tokens=CLASSIFIER_MAX_TOKENS)
    if chosen is None:
        chosen = replace(probe, temperature=CLASSIFIER_TEMPERATURE, max_tokens=CLASSIFIER_MAX_TOKENS)
    warning = None
    if _same_model(chosen, probe):
        warning = (f"the classifier is the probed model itself ({probe.model}): a model that restates the case "
                   "can confirm itself. Set another classifier (Settings' classifier or judge model, or "
                   "--classifier).")
    return chosen, warning
