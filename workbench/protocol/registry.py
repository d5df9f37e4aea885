"""The protocol registry: a study file's `protocol = "…"` → its `StudyProtocol`. Shared code's one door.

Protocols are plug-ins found through the `workbench.protocols` entry-point group: an entry
`name = "package.module:PROTOCOL"` names the instance. The four built-in protocols are declared in
pyproject.toml the same way, and are also always known here (BUILT_IN), so that they run even when the
installed metadata is stale or another checkout's (an editable install made from a different tree):
entry points add protocols to the built-ins, and an entry point of a built-in's name takes its place.
`register` adds one at run time (the tests' toy protocol). Shared code asks `get(name)` and never
imports a protocol package itself (import-linter holds that line).
"""

from __future__ import annotations

import importlib
from importlib import metadata

from workbench.protocol.base import StudyProtocol

GROUP = "workbench.protocols"

# name → "module:attribute"; the order is the seeds' (000 … 004). Seed 001's decision quality is part of
# hindsight: it is measured on the perspectives of any hindsight study's runs (B3, C1, C2).
BUILT_IN: dict[str, str] = {
    "hindsight": "workbench.protocols.hindsight:PROTOCOL",
    "faultline": "workbench.protocols.faultline:PROTOCOL",
    "m11": "workbench.protocols.m11:PROTOCOL",
    "calibration": "workbench.protocols.calibration:PROTOCOL",
}
_loaded: dict[str, StudyProtocol] = {}


class UnknownProtocol(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"'{self.name}' is not a protocol this version runs; use one of {', '.join(names())}"


class ProtocolLoadError(ImportError):
    """An installed protocol's entry point does not give a protocol: named, with the reason."""

    def __init__(self, name: str, target: str, reason: str):
        super().__init__(f"protocol '{name}': entry point '{name} = {target}' (group {GROUP}) failed to load: "
                         f"{reason}")
        self.protocol = name
        self.target = target


def entry_points() -> dict[str, str]:
    """name → "module:attribute" of every installed distribution's `workbench.protocols` entry point."""
    return {ep.name: ep.value for ep in metadata.entry_points(group=GROUP)}


def _targets() -> dict[str, str]:
    return {**BUILT_IN, **entry_points()}


def names() -> list[str]:
    """The protocols that can be run: built-ins and installed entry points that load, and registered ones."""
    out = []
    for name in _targets():
        try:
            get(name)
        except (UnknownProtocol, ProtocolLoadError):
            continue
        out.append(name)
    return out + [n for n in _loaded if n not in out]


def get(name: str) -> StudyProtocol:
    if name in _loaded:
        return _loaded[name]
    target = _targets().get(name)
    if target is None:
        raise UnknownProtocol(name)
    protocol = _load(name, target)
    _loaded[name] = protocol
    return protocol


def _load(name: str, target: str) -> StudyProtocol:
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if name in BUILT_IN and exc.name == module_name and target == BUILT_IN[name]:
            raise UnknownProtocol(name) from None  # a built-in not part of this installation
        raise ProtocolLoadError(name, target, f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # a plug-in's own bug: say which entry point, not a bare traceback
        raise ProtocolLoadError(name, target, f"{type(exc).__name__}: {exc}") from exc
    protocol = getattr(module, attribute or "PROTOCOL", None)
    if not isinstance(protocol, StudyProtocol):
        raise ProtocolLoadError(name, target, f"'{attribute or 'PROTOCOL'}' is not a StudyProtocol instance")
    if protocol.name != name:
        raise ProtocolLoadError(name, target, f"its protocol is named '{protocol.name}', not '{name}'")
    return protocol


def register(protocol: StudyProtocol) -> None:
    """Add a protocol at run time (a test's toy protocol)."""
    if not protocol.name:
        raise ValueError("a protocol needs a name")
    _loaded[protocol.name] = protocol


def unregister(name: str) -> None:
    _loaded.pop(name, None)


def protocol_of(definition: dict) -> StudyProtocol:
    return get(definition.get("protocol") or "hindsight")
