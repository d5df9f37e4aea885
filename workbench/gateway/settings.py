"""Model settings per role and the gateway's limits, stored in the store's settings table.

A study names its own architecture model and judges; these settings are the
defaults for everything else (probes, the probe classifier) and for new
studies, plus the limits every gateway applies. Keys never live here: only the
NAME of an environment variable may be given per model (`api_key_env`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

import sqlite_utils

from store.settings import get_setting, set_setting
from workbench.gateway.api import CONNECTION_KEYS, MOCK_MODEL, ModelSettings
from workbench.gateway.connection_keys import check_connection_keys
from workbench.gateway.limits import ModelLimits

SETTINGS_KEY = "model_settings"

ROLES = {
    "architecture": "default model for the architectures (a study's [model] overrides it)",
    "judge": "default model for LLM judges (a study's [[judges]] override it)",
    "probe": "model asked the contamination probe (`probe --model` overrides it)",
    "classifier": ("model that classifies a probe answer (empty: the judge model when it is another real model, "
                   "else the probed model itself, with a warning; at temperature 0)"),
}

DEFAULT_ROLE_SETTINGS = {
    "architecture": ModelSettings(model=MOCK_MODEL, temperature=0.7),
    "judge": ModelSettings(model=MOCK_MODEL, temperature=0.0),
    "probe": ModelSettings(model=MOCK_MODEL, temperature=0.0, max_tokens=600),
}


# The classifier's sampling when it has no model of its own, and the defaults of the fields a new classifier
# leaves empty: it reads an answer and returns a short verdict, the same way every time.
CLASSIFIER_SAMPLING = {"temperature": 0.0, "max_tokens": 300}


class SettingsError(ValueError):
    """A settings value that cannot be used; the message names the field."""


@dataclass
class GatewaySettings:
    roles: dict[str, ModelSettings] = field(default_factory=lambda: dict(DEFAULT_ROLE_SETTINGS))
    """The model and sampling settings for the architecture, judge and probe roles."""
    classifier: ModelSettings | None = None
    """The probe classifier's model; None: the judge model, else the probe's own (workbench/cases/probe_models.py)."""
    concurrency: int = 8
    """At most this many model calls in flight at once, across all models."""
    limits: dict[str, ModelLimits] = field(default_factory=dict)
    """Requests and tokens per minute per litellm model string (absent: unlimited)."""
    cost_ceiling_default: float | None = None
    """USD a study may spend when its own file names no cost_ceiling; None: no ceiling."""
    stall_timeout: float = 60.0
    """Seconds without a stream chunk after which an attempt is abandoned and retried."""
    max_attempts: int = 6
    """Attempts per call, the first included, before a retryable failure is final."""
    max_retry_time: float = 300.0
    """Seconds from a call's first attempt after which no retry is started."""

    def role(self, name: str) -> ModelSettings:
        """A role's settings; the classifier falls back to the probe role's model at temperature 0."""
        if name not in ROLES:
            raise SettingsError(f"unknown role '{name}' (roles: {', '.join(ROLES)})")
        if name == "classifier":
            if self.classifier is not None:
                return self.classifier
            return replace(self.role("probe"), **CLASSIFIER_SAMPLING)
        return self.roles.get(name, DEFAULT_ROLE_SETTINGS[name])

    def to_dict(self) -> dict[str, Any]:
        return {
            "roles": {k: v.to_dict() for k, v in self.roles.items()},
            "classifier": self.classifier.to_dict() if self.classifier else None,
            "concurrency": self.concurrency,
            "limits": {m: {"rpm": lim.rpm, "tpm": lim.tpm} for m, lim in self.limits.items()},
            "cost_ceiling_default": self.cost_ceiling_default,
            "stall_timeout": self.stall_timeout,
            "max_attempts": self.max_attempts,
            "max_retry_time": self.max_retry_time,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GatewaySettings":
        out = cls()
        roles = dict(DEFAULT_ROLE_SETTINGS)
        for name, value in (data.get("roles") or {}).items():
            if name in DEFAULT_ROLE_SETTINGS and isinstance(value, dict):
                roles[name] = ModelSettings.from_dict(value)
        out.roles = roles
        if isinstance(data.get("classifier"), dict):
            out.classifier = ModelSettings.from_dict(data["classifier"])
        out.limits = {m: ModelLimits(rpm=v.get("rpm"), tpm=v.get("tpm"))
                      for m, v in (data.get("limits") or {}).items() if isinstance(v, dict)}
        for f in fields(cls):
            if f.name not in ("roles", "limits", "classifier") and f.name in data:
                setattr(out, f.name, data[f.name])
        return out

    def validate(self) -> "GatewaySettings":
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise SettingsError(f"concurrency: must be a whole number of at least 1, got {self.concurrency!r}")
        if self.cost_ceiling_default is not None and not (
                isinstance(self.cost_ceiling_default, (int, float)) and self.cost_ceiling_default > 0):
            raise SettingsError(f"cost_ceiling_default: must be a positive number of USD or empty, "
                                f"got {self.cost_ceiling_default!r}")
        for name in ("stall_timeout", "max_retry_time"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value <= 0:
                raise SettingsError(f"{name}: must be a positive number of seconds, got {value!r}")
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise SettingsError(f"max_attempts: must be a whole number of at least 1, got {self.max_attempts!r}")
        for model, lim in self.limits.items():
            for which in ("rpm", "tpm"):
                value = getattr(lim, which)
                if value is not None and (not isinstance(value, int) or value < 1):
                    raise SettingsError(f"limits.{model}.{which}: must be a whole number of at least 1 or "
                                        f"empty, got {value!r}")
        for role, ms in self.roles.items():
            validate_model_settings(ms, f"roles.{role}")
        if self.classifier is not None:
            validate_model_settings(self.classifier, "classifier")
        return self

    def gateway_config(self):
        from workbench.gateway.client import GatewayConfig
        from workbench.gateway.retry import RetryPolicy

        return GatewayConfig(concurrency=self.concurrency, limits=dict(self.limits),
                             retry=RetryPolicy(max_attempts=self.max_attempts, max_total=self.max_retry_time),
                             stall_timeout=self.stall_timeout, cost_ceiling_default=self.cost_ceiling_default)


def validate_model_settings(ms: ModelSettings, where: str) -> ModelSettings:
    if not isinstance(ms.model, str) or not ms.model.strip():
        raise SettingsError(f"{where}.model: a litellm model string is required (e.g. 'mock', 'openai/gpt-4o-mini')")
    if not isinstance(ms.temperature, (int, float)) or not 0 <= ms.temperature <= 2:
        raise SettingsError(f"{where}.temperature: must be between 0 and 2, got {ms.temperature!r}")
    if not isinstance(ms.max_tokens, int) or ms.max_tokens < 1:
        raise SettingsError(f"{where}.max_tokens: must be a whole number of at least 1, got {ms.max_tokens!r}")
    if not isinstance(ms.timeout, (int, float)) or ms.timeout <= 0:
        raise SettingsError(f"{where}.timeout: must be a positive number of seconds, got {ms.timeout!r}")
    if ms.seed is not None and not isinstance(ms.seed, int):
        raise SettingsError(f"{where}.seed: must be a whole number or empty, got {ms.seed!r}")
    problems: list[tuple[str, str]] = []
    check_connection_keys({k: getattr(ms, k) for k in CONNECTION_KEYS if getattr(ms, k) is not None}, where,
                          lambda key, why: problems.append((key, why)))
    if problems:
        raise SettingsError(f"{problems[0][0]}: {problems[0][1]}")
    return ms


def load_settings(db: sqlite_utils.Database) -> GatewaySettings:
    return GatewaySettings.from_dict(get_setting(db, SETTINGS_KEY, {}) or {})


def save_settings(db: sqlite_utils.Database, settings: GatewaySettings) -> None:
    set_setting(db, SETTINGS_KEY, settings.validate().to_dict())


def role_settings(db: sqlite_utils.Database, role: str) -> ModelSettings:
    return load_settings(db).role(role)


# One line of help per field, for the Settings screen's tooltips and labels.
MODEL_FIELD_HELP = {
    "model": "litellm model string, e.g. mock, openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3",
    "api_base": "the server's URL for a local or proxied model (empty: the provider's default)",
    "temperature": "sampling temperature, 0-2 (recorded with every call and part of its replay key)",
    "max_tokens": "the most tokens one reply may have",
    "seed": "sampling seed where the provider supports it (empty: none)",
    "timeout": "seconds one attempt may take, first byte to last chunk",
    "api_key_env": ("NAME of the environment variable holding this model's key (empty: the provider's usual one; "
                    "none: a keyless local server)"),
    "max_connections": ("calls in flight to this model's server at most (empty: --max-connections, else the "
                        "global concurrency; 1: one slot)"),
    "first_token_timeout": "seconds to the first token, queueing at the server included (empty: the timeout)",
    "stall_timeout": "seconds without a token once the reply has begun (empty: the gateway's stall timeout)",
    "structured": ("how a step that needs JSON sends its schema: json_schema, json_object (llama.cpp) or none "
                   "(empty: decided per model)"),
}
GATEWAY_FIELD_HELP = {
    "concurrency": "model calls in flight at once, across the models with no max_connections of their own: a "
                   "default that --max-connections or a model's max_connections replaces",
    "cost_ceiling_default": "USD a study may spend when its file names no cost_ceiling (empty: no ceiling)",
    "stall_timeout": "seconds without a stream chunk after which an attempt is abandoned and retried",
    "max_attempts": "attempts per call, the first included, before a retryable failure is final",
    "max_retry_time": "seconds from a call's first attempt after which no retry starts",
}


MODEL_FIELDS = ("model", "api_base", "temperature", "max_tokens", "seed", "timeout", *CONNECTION_KEYS)
GATEWAY_FIELDS = ("concurrency", "cost_ceiling_default", "stall_timeout", "max_attempts", "max_retry_time")
_INT_FIELDS = {"max_tokens", "seed", "concurrency", "max_attempts", "rpm", "tpm", "max_connections"}
_OPTIONAL = {"api_base", "seed", "cost_ceiling_default", "rpm", "tpm", *CONNECTION_KEYS}
_TEXT = {"model", "api_base", "api_key_env", "structured"}


def _field_value(where: str, name: str, raw: str) -> Any:
    raw = (raw or "").strip()
    if not raw:
        if name in _OPTIONAL:
            return None
        raise SettingsError(f"{where}: is required")
    if name in _TEXT:
        return raw
    try:
        return int(raw) if name in _INT_FIELDS else float(raw)
    except ValueError:
        kind = "a whole number" if name in _INT_FIELDS else "a number"
        raise SettingsError(f"{where}: '{raw}' is not {kind}") from None


def model_settings_from_form(values: dict[str, str], where: str) -> ModelSettings:
    parsed = {name: _field_value(f"{where}.{name}", name, values.get(name, "")) for name in MODEL_FIELDS}
    return validate_model_settings(ModelSettings(**parsed), where)


def form_values(ms: ModelSettings | None) -> dict[str, str]:
    """A model's settings as the strings a form shows (empty for None)."""
    if ms is None:
        return {name: "" for name in MODEL_FIELDS}
    out = {}
    for name in MODEL_FIELDS:
        value = getattr(ms, name)
        out[name] = "" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
    return out


def classifier_from_form(values: dict[str, str]) -> ModelSettings | None:
    """The classifier's own model, or None (the probed model classifies). A field it leaves empty that a model
    needs takes the classifier's default; a field set without a model is refused: it would be dropped."""
    if not values.get("model", "").strip():
        stray = [name for name, value in values.items() if name != "model" and value.strip()]
        if stray:
            raise SettingsError(f"classifier.{stray[0]}: set without a classifier model: give classifier.model, or "
                                "clear the classifier's fields to let the probed model classify")
        return None
    defaults = form_values(ModelSettings(**CLASSIFIER_SAMPLING))
    filled = {name: value if value.strip() or name in _OPTIONAL else defaults[name] for name, value in values.items()}
    return model_settings_from_form(filled, "classifier")


def settings_from_form(roles: dict[str, dict[str, str]], gateway: dict[str, str],
                       limits: dict[str, tuple[str, str]]) -> GatewaySettings:
    """Build and validate settings from form strings; a SettingsError names the first bad field.

    An empty classifier model means "the probed model classifies its own answer".
    """
    out = GatewaySettings()
    for role in DEFAULT_ROLE_SETTINGS:
        out.roles[role] = model_settings_from_form(roles.get(role, {}), role)
    out.classifier = classifier_from_form(roles.get("classifier", {}))
    for name in GATEWAY_FIELDS:
        setattr(out, name, _field_value(name, name, gateway.get(name, "")))
    out.limits = {}
    for model, (rpm, tpm) in limits.items():
        model = model.strip()
        if not model:
            raise SettingsError("limits: a rate limit needs a model")
        lim = ModelLimits(rpm=_field_value(f"limits.{model}.rpm", "rpm", rpm),
                          tpm=_field_value(f"limits.{model}.tpm", "tpm", tpm))
        if lim.rpm or lim.tpm:
            out.limits[model] = lim
    return out.validate()
