"""`workbench/metrics/` holds only statistics any protocol may use (issue 22): no module there names
hindsight, one of its condition codes (B1…B3, C1…C3, P1) or a case of the shipped library.

Hindsight's tables, study data, decision-quality study, analysis and rendering live in
`workbench/protocols/hindsight/metrics/`; pyproject.toml's import-linter contract keeps the package from
importing them back (tests/foundation/test_import_contracts.py runs it).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "workbench" / "metrics"
CONDITION_CODE = re.compile(r"\b(?:[BC][1-3]|P1)\b")   # case-sensitive: "p1_row" or "b1" are not codes
PROTOCOL_NAME = re.compile(r"hindsight", re.IGNORECASE)


def case_ids() -> list[str]:
    """The ids of the library's cases: the `id = "…"` of each case file's front matter in cases/."""
    ids = []
    for path in sorted((ROOT / "cases").glob("*.md")):
        found = re.search(r'^id\s*=\s*"([^"]+)"', path.read_text(encoding="utf-8"), re.MULTILINE)
        if found:
            ids.append(found.group(1))
    return ids


def named(text: str, ids: list[str]) -> list[str]:
    """What a module's text names that belongs to a protocol."""
    out = [m.group(0) for m in PROTOCOL_NAME.finditer(text)] + [m.group(0) for m in CONDITION_CODE.finditer(text)]
    lowered = text.lower()
    return out + [i for i in ids if i.lower() in lowered]


def test_the_library_has_cases_to_look_for():
    ids = case_ids()
    assert "glenda-crock" in ids and "blast-radius" in ids and len(ids) >= 6, ids


def test_the_check_finds_what_it_looks_for():
    ids = case_ids()
    assert named("CONDITION_ORDER = ('B1', 'C3')", ids) == ["B1", "C3"]
    assert named("P1 folds into C2", ids) == ["P1", "C2"]
    assert named("from workbench.protocols.hindsight import tables", ids) == ["hindsight"]
    assert named("the Glenda-Crock case", ids) == ["glenda-crock"]
    assert named("p1_row, B12, perspectives 2..n", ids) == []


def test_no_shared_metrics_module_names_a_protocol():
    ids = case_ids()
    modules = sorted(METRICS.rglob("*.py"))
    assert len(modules) >= 10, "workbench/metrics lost its statistics"
    offending = {str(p.relative_to(ROOT)): hits for p in modules if (hits := named(p.read_text(encoding="utf-8"), ids))}
    assert not offending, offending
