"""A study's model settings, as every run program and follow-up uses them."""

from __future__ import annotations

from workbench.gateway.api import ModelSettings, connection_options


def study_model_settings(definition: dict, table: str = "model") -> ModelSettings:
    """The settings of a `[model]`-shaped table of the definition (`model`, or e.g. `extractor`)."""
    m = definition[table]
    return ModelSettings(model=m["name"], api_base=m.get("api_base") or None, temperature=m["temperature"],
                         seed=m.get("seed"), max_tokens=m["max_tokens"], timeout=m.get("timeout", 120.0),
                         **connection_options(m))


def run_settings(protocol, definition: dict, plan) -> ModelSettings:
    """The settings a planned run uses: the protocol's (`settings_for`), or the study's [model] when it
    returns None (the interface's default, kept here because the interface imports no machinery)."""
    settings = protocol.settings_for(definition, plan)
    return study_model_settings(definition) if settings is None else settings
