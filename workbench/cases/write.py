"""Writing a case back to its file in the canonical layout (front matter, then sections)."""

from __future__ import annotations

from pathlib import Path

import tomli_w

from workbench.cases.model import SECTIONS, Case
from workbench.cases.parse import FENCE


def case_to_text(case: Case) -> str:
    front: dict = {
        "id": case.id,
        "title": case.title,
        "type": case.type,
        "domain": case.domain,
        "status": case.status,
        "strategies": list(case.strategies),
        "decision_date": case.decision_date,
        "complexity": case.complexity,
        "concern_domain": case.concern_domain,
        "rubric": case.rubric,
        "source": case.source,
        "criteria": dict(case.criteria),
    }
    tr = case.transposition
    if not tr.is_empty() or "B" in case.strategies:
        front["transposition"] = {
            "original": tr.original,
            "verifiers": list(tr.verifiers),
            "preserves": dict(tr.preserves),
            "mapping": [dict(m) for m in tr.mapping],
        }
    if case.probes:
        front["probes"] = [
            {k: v for k, v in vars(p).items() if v != ""} for p in case.probes
        ]
    parts = [FENCE, tomli_w.dumps(front, multiline_strings=True).rstrip(), FENCE, ""]
    for key, title in SECTIONS.items():
        body = getattr(case, key)
        if body or key in ("scenario", "outcome"):
            parts += [f"## {title}", "", body, ""]
    return "\n".join(parts).rstrip() + "\n"


def write_case(case: Case, path: str | Path) -> Path:
    """Write whole: a crash mid-save leaves the old file, never half a file."""
    from workbench.files import write_text

    return write_text(path, case_to_text(case))
