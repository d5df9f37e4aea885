"""The conditions: one module per architecture, found by its `CONDITION` attribute.

Adding a condition is adding one module in this package that defines
`CONDITION`, `TITLE`, `async def run(ctx)` and `expected_calls(options)` (see
base.py); `conditions()` lists them in the seed's order, then any others.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

SEED_ORDER = ("B1", "B2", "B3", "C1", "C2", "C3", "P1")
_registry: dict[str, ModuleType] | None = None


def registry() -> dict[str, ModuleType]:
    global _registry
    if _registry is None:
        found: dict[str, ModuleType] = {}
        for info in pkgutil.iter_modules(__path__):
            module = importlib.import_module(f"{__name__}.{info.name}")
            cond = getattr(module, "CONDITION", None)
            if isinstance(cond, str):
                if cond in found:
                    raise RuntimeError(f"condition {cond} is defined twice ({found[cond].__name__}, {module.__name__})")
                found[cond] = module
        ordered = [c for c in SEED_ORDER if c in found] + sorted(c for c in found if c not in SEED_ORDER)
        _registry = {c: found[c] for c in ordered}
    return _registry


def conditions() -> list[str]:
    return list(registry())


def architecture(condition: str) -> ModuleType:
    try:
        return registry()[condition]
    except KeyError:
        raise KeyError(f"unknown condition '{condition}'; known: {', '.join(registry())}") from None


def replicates_for(condition: str, study_replicates: int) -> list[int]:
    module = architecture(condition)
    fn = getattr(module, "replicates", None)
    return list(fn(study_replicates)) if fn else list(range(study_replicates))


def draw_for(condition: str, replicate: int) -> int:
    """The replicate index the gateway sees for a run (P1 offsets its draws; see p1.py)."""
    return getattr(architecture(condition), "DRAW_OFFSET", 0) + replicate


def prompt_templates() -> dict[str, str]:
    """Everything the freeze hashes as prompt text: every template, the report instruction and
    each named roster's briefs, plus any PROMPTS a condition module defines itself."""
    from workbench.protocols.hindsight.architectures import prompts, report, roster

    out = {f"prompts.{k}": v for k, v in prompts.templates().items()}
    out["report.REPORT_INSTRUCTION"] = report.REPORT_INSTRUCTION
    for name, (members, _mover) in roster.NAMED_ROSTERS.items():
        for m in members:
            out[f"roster.{name}.{m.id}"] = f"{m.name} (chair: {m.chair})\n{m.brief}"
    for cond, module in registry().items():
        for k, v in (getattr(module, "PROMPTS", None) or {}).items():
            out[f"{cond}.{k}"] = v
    return out


def condition_prompts(conditions_: list[str], options: dict) -> dict[str, list[tuple[str, str, str]]]:
    """What each condition sends under a study's options, for the cue audit: (name, text, origin)."""
    return {c: list(architecture(c).prompts(options)) for c in conditions_ if hasattr(architecture(c), "prompts")}


def seed_texts() -> dict[str, str]:
    """The seed's own description of each condition (seed 000 §V)."""
    return {c: getattr(m, "SEED_TEXT", "") for c, m in registry().items()}
