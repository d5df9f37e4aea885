"""A study as the TUI's form edits it: form values to study-file text and back, without Textual.

The form never validates a study itself. It writes what the user typed into
a study file's TOML (`draft_text`) and hands that to `create_study`, the
function `workbench --batch study create` uses, so both refuse exactly the
same things with the same messages. A number that does not parse is written
as a string, so the core names its key ("replicates: must be an integer, not
a string") rather than the form guessing.

Keys the form does not show (a custom C2 roster, [blinding]) are carried over
from the definition being edited, so editing a study loaded from a file
never drops them.
"""

from __future__ import annotations

import re

import tomli_w

from workbench.protocols.hindsight.protocol import HindsightProtocol
from workbench.studies.definition import BLINDING_DEFAULTS, JUDGE_DEFAULTS, MODEL_DEFAULTS

DEFAULT_RUBRICS = HindsightProtocol.default_rubrics
THRESHOLD_DEFAULTS = HindsightProtocol.threshold_defaults

MODEL_KEYS = ("name", "api_base", "temperature", "seed", "max_tokens", "timeout")
JUDGE_KEYS = ("name", "model", "api_base", "temperature", "pipeline", "runs")
# The architecture options the form shows: (condition, key, default).
ARCH_FIELDS = (("C1", "respondents", 5), ("C2", "debate_rounds", 2), ("C3", "scenarios", 4))
_INT_KEYS = {"replicates", "model.seed", "model.max_tokens", "runs"} | {f"{c}.{k}" for c, k, _ in ARCH_FIELDS}


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    return str(value)


def blank_values(model=None, judge_model: str | None = None, rubric_ids: list[str] | tuple = ()) -> dict:
    """A new study's form: the settings' architecture model, one judge, the default rubrics that exist."""
    m = {k: _text(MODEL_DEFAULTS[k]) for k in MODEL_KEYS}
    if model is not None:  # a ModelSettings from the Settings section
        m.update(name=model.model, api_base=model.api_base or "", temperature=_text(model.temperature),
                 seed=_text(model.seed), max_tokens=_text(model.max_tokens), timeout=_text(model.timeout))
    judge = {k: _text(v) for k, v in JUDGE_DEFAULTS.items()}
    judge.update(name="judge-a", model=judge_model or JUDGE_DEFAULTS["model"])
    return {
        "name": "", "description": "", "protocol": "hindsight", "cases": [], "conditions": [],
        "replicates": "1", "raters": "", "cost_ceiling": "",
        "rubrics": [r for r in DEFAULT_RUBRICS if r in rubric_ids],
        "model": m, "judges": [judge],
        "thresholds": {k: _text(v) for k, v in THRESHOLD_DEFAULTS.items()},
        "arch": {f"{c}.{k}": str(d) for c, k, d in ARCH_FIELDS},
    }


def values_from_definition(d: dict) -> dict:
    """The form's values for a stored definition (every default filled, as the store keeps it)."""
    arch = d.get("architectures") or {}
    return {
        "name": d.get("name") or "", "description": d.get("description") or "",
        "protocol": d.get("protocol") or "hindsight", "cases": list(d.get("cases") or []),
        "conditions": list(d.get("conditions") or []), "replicates": _text(d.get("replicates")),
        "raters": ", ".join(d.get("raters") or []), "cost_ceiling": _text(d.get("cost_ceiling")),
        "rubrics": list(d.get("rubrics") or []),
        "model": {k: _text((d.get("model") or {}).get(k)) for k in MODEL_KEYS},
        "judges": [{k: _text(j.get(k)) for k in JUDGE_KEYS} for j in d.get("judges") or []],
        "thresholds": {k: _text((d.get("thresholds") or {}).get(k, v)) for k, v in THRESHOLD_DEFAULTS.items()},
        "arch": {f"{c}.{k}": _text((arch.get(c) or {}).get(k, dflt)) for c, k, dflt in ARCH_FIELDS},
    }


def _number(text: str, key: str):
    """The typed value: an int or float when it parses, else the raw text (the core names the key)."""
    text = text.strip()
    try:
        return int(text) if key in _INT_KEYS else float(text)
    except ValueError:
        return text


def draft_document(values: dict, base: dict | None = None) -> dict:
    """The study file's content as a dict; empty inputs are left out so the core's defaults apply."""
    doc: dict = {}
    for key in ("name", "description"):
        if values.get(key, "").strip():
            doc[key] = values[key].strip()
    doc["protocol"] = values.get("protocol") or "hindsight"
    doc["cases"] = list(values.get("cases") or [])
    doc["conditions"] = list(values.get("conditions") or [])
    if values.get("replicates", "").strip():
        doc["replicates"] = _number(values["replicates"], "replicates")
    # An empty list is written only when the user confirmed going without (values["without"]): left out,
    # the core refuses the study by name, as it refuses such a file in batch (issue 15).
    without = set(values.get("without") or ())
    raters = [r.strip() for r in re.split(r"[,\s]+", values.get("raters") or "") if r.strip()]
    if raters or "raters" in without:
        doc["raters"] = raters
    doc["rubrics"] = list(values.get("rubrics") or [])
    if values.get("cost_ceiling", "").strip():
        doc["cost_ceiling"] = _number(values["cost_ceiling"], "cost_ceiling")

    model = {}
    for key in MODEL_KEYS:
        raw = (values.get("model") or {}).get(key, "")
        if key in ("name", "api_base"):
            if key == "api_base" or raw.strip():
                model[key] = raw.strip()
        elif raw.strip():
            model[key] = _number(raw, f"model.{key}")
    doc["model"] = model

    judges = []
    for j in values.get("judges") or []:
        judge = {}
        for key in JUDGE_KEYS:
            raw = (j.get(key) or "").strip()
            if key in ("temperature", "runs"):
                if raw:
                    judge[key] = _number(raw, key)
            elif raw or key == "api_base":
                judge[key] = raw
        judges.append(judge)
    if judges or "judges" in without:
        doc["judges"] = judges

    doc["thresholds"] = {k: _number(v, k) for k, v in (values.get("thresholds") or {}).items() if v.strip()}

    arch = {c: dict(opts) for c, opts in ((base or {}).get("architectures") or {}).items()}
    for cond, key, _ in ARCH_FIELDS:
        raw = (values.get("arch") or {}).get(f"{cond}.{key}", "")
        if raw.strip():
            arch.setdefault(cond, {})[key] = _number(raw, f"{cond}.{key}")
    if arch:
        doc["architectures"] = arch
    if base and base.get("blinding"):
        blinding = {k: v for k, v in base["blinding"].items() if k in (*BLINDING_DEFAULTS, "seed")}
        if base.get("name") != doc.get("name"):
            blinding.pop("seed", None)  # a copy under a new name derives its own seed
        doc["blinding"] = blinding
    return doc


def draft_text(values: dict, base: dict | None = None) -> str:
    """The study file the form stands for, ready for `create_study(db, text=...)`."""
    header = "# written by the Studies form of the workbench TUI\n"
    return header + tomli_w.dumps(draft_document(values, base))


def missing_evaluators(values: dict) -> list[str]:
    """"raters" and/or "judges" when the form has none and the user has not confirmed going without."""
    without = set(values.get("without") or ())
    out = []
    if not any(re.split(r"[,\s]+", values.get("raters") or "")) and "raters" not in without:
        out.append("raters")
    if not values.get("judges") and "judges" not in without:
        out.append("judges")
    return out


def field_of(key: str) -> str:
    """The form field a problem's dotted key belongs to: name, model.temperature, judges, C1.respondents, ..."""
    if key.startswith("judges"):
        return "judges"
    if key.startswith("architectures."):
        parts = key.split(".")
        return f"{parts[1]}.{parts[2]}" if len(parts) > 2 else "architectures"
    if key.startswith("blinding"):
        return "blinding"
    return key.split("[", 1)[0]
