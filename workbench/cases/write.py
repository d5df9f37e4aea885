"""Writing a case back to its file in the canonical layout (front matter, then sections)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import tomli_w

from workbench.cases.model import SECTIONS, Case
from workbench.cases.parse import FENCE
from workbench.paths import ordinary_file_mode


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
    """Write atomically: a crash mid-save leaves the old file, never half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.chmod(tmp, ordinary_file_mode())  # a case file is shared like any other (mkstemp makes 0600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(case_to_text(case))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
