"""The protocol registry: a study file's `protocol = "…"` → its `StudyProtocol`.

Protocols are found by name, like plug-ins: each entry is the package whose
`PROTOCOL` attribute is the instance. Shared code asks `get(name)` and never
imports a protocol package itself (import-linter holds that line); `register`
adds one at run time (the tests' toy protocol does).
"""

from __future__ import annotations

import importlib

from workbench.protocols.base import StudyProtocol

# name → package; the order is the seeds' (000 … 004). Seed 001's decision quality is part of hindsight:
# it is measured on the perspectives of any hindsight study's runs (B3, C1, C2).
KNOWN: dict[str, str] = {
    "hindsight": "workbench.protocols.hindsight",
    "faultline": "workbench.protocols.faultline",
    "m11": "workbench.protocols.m11",
    "calibration": "workbench.protocols.calibration",
}
_loaded: dict[str, StudyProtocol] = {}


class UnknownProtocol(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"'{self.name}' is not a protocol this version runs; use one of {', '.join(names())}"


def names() -> list[str]:
    """The protocols that can be run: every known package that imports, and every registered one."""
    out = []
    for name in KNOWN:
        try:
            get(name)
        except UnknownProtocol:
            continue
        out.append(name)
    return out + [n for n in _loaded if n not in KNOWN]


def get(name: str) -> StudyProtocol:
    if name in _loaded:
        return _loaded[name]
    package = KNOWN.get(name)
    if package is None:
        raise UnknownProtocol(name)
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name == package:  # a protocol whose package is not part of this installation
            raise UnknownProtocol(name) from None
        raise
    protocol = getattr(module, "PROTOCOL", None)
    if not isinstance(protocol, StudyProtocol):
        raise UnknownProtocol(name)
    _loaded[name] = protocol
    return protocol


def register(protocol: StudyProtocol) -> None:
    """Add a protocol at run time (a plug-in outside this package, or a test's toy protocol)."""
    if not protocol.name:
        raise ValueError("a protocol needs a name")
    _loaded[protocol.name] = protocol


def unregister(name: str) -> None:
    _loaded.pop(name, None)


def protocol_of(definition: dict) -> StudyProtocol:
    return get(definition.get("protocol") or "hindsight")
