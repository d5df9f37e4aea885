"""Every instrument by name: the shared ones, then each registered protocol's (asked of the protocol registry)."""

from __future__ import annotations

import importlib

from workbench.instruments.base import Instrument
from workbench.protocol import registry as protocols

# Shared instruments: "module" whose INSTRUMENTS lists them (the cue audit reads any protocol's prompts).
SHARED: tuple[str, ...] = (
    "workbench.instruments.judge_quote",
    "workbench.cue_audit.instrument",
)


def _from(module: str) -> list[Instrument]:
    return list(importlib.import_module(module).INSTRUMENTS)


def all_instruments() -> dict[str, Instrument]:
    """name → instrument, shared first, then protocols in the registry's order. A name given twice is a bug."""
    found: dict[str, Instrument] = {}
    modules = [*SHARED, *(m for name in protocols.names() for m in protocols.get(name).instruments)]
    for module in modules:
        for instrument in _from(module):
            if instrument.name in found:
                raise ValueError(f"instrument '{instrument.name}' is defined twice ({module})")
            found[instrument.name] = instrument
    return found


def get(name: str) -> Instrument:
    found = all_instruments()
    if name not in found:
        raise KeyError(f"'{name}' is not an instrument; use one of {', '.join(found)}")
    return found[name]
