"""Checking a case while it is being edited, before it is saved (used by the TUI case editor).

The rules are exactly those of `workbench --batch cases validate`: the case is
rendered to its file text and parsed and checked as a file would be. On top of
them come the checks about where it will be saved: an id or a file that
belongs to another case, a file that already exists, a renamed id.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.cases.model import CRITERIA, PRESERVES, SECTIONS, Case
from workbench.cases.parse import parse_text
from workbench.cases.problems import Problem
from workbench.cases.validate import CASE_SUFFIX, check
from workbench.cases.write import case_to_text

# The order fields appear in the editor, so problems read top to bottom.
FIELD_ORDER = [
    "path", "id", "title", "type", "domain", "status", "strategies", "decision_date", "complexity",
    "concern_domain", "rubric", "source",
    *(f"criteria.{k}" for k in CRITERIA),
    "transposition.original", "transposition.mapping", "transposition.verifiers",
    *(f"transposition.preserves.{k}" for k in PRESERVES),
    "probes",
    *SECTIONS,
]


def field_rank(field: str) -> int:
    """Where a problem's field sits in the editor; unknown fields go last."""
    candidates = [field]
    while "." in field or "[" in field:
        field = field.rsplit(".", 1)[0] if "." in field else field.split("[", 1)[0]
        candidates.append(field)
    for name in candidates:
        if name in FIELD_ORDER:
            return FIELD_ORDER.index(name)
    return len(FIELD_ORDER)


def case_problems(case: Case, known_rubrics: Iterable[str] | None, name: str = "<case>") -> list[Problem]:
    """The batch validator's verdict on this case as it would be written to its file."""
    parsed = parse_text(case_to_text(case), name)
    problems = check(parsed, known_rubrics)
    # A '## Heading' line typed inside a prose field would start a new section in
    # the file; report it against the prose field the user typed it in.
    section_lines = sorted((line, key) for key, line in parsed.lines.items() if key in SECTIONS)
    out = []
    for p in problems:
        if p.field not in FIELD_ORDER and section_lines and p.line > section_lines[0][0]:
            owner = [key for line, key in section_lines if line < p.line][-1]
            p = Problem(p.file, p.line, owner,
                        f"the line '## {p.field}' would start a new section of the case file; "
                        "reword it or drop the '## '", p.severity)
        out.append(p)
    return out


def default_case_path(case_id: str, cases_dir: Path) -> Path:
    return Path(cases_dir) / f"{case_id or 'untitled'}{CASE_SUFFIX}"


def target_problems(case: Case, path: Path, *, original_id: str | None, original_path: Path | None,
                    stored: Iterable[dict]) -> list[Problem]:
    """Problems with saving `case` to `path`, given the store's cases (dicts with id and source_path).

    `original_id`/`original_path` are the case's id and file when the editor opened
    it (None for a new case). Nothing here overwrites another case's file.
    """
    name = str(path)
    out: list[Problem] = []
    resolved = Path(path).expanduser().resolve()
    if Path(path).suffix != CASE_SUFFIX:
        out.append(Problem(name, 0, "path", f"a case file name ends in '{CASE_SUFFIX}'"))
    for row in stored:
        row_path = Path(row["source_path"]).resolve() if row.get("source_path") else None
        if row["id"] == case.id and row["id"] != original_id:
            where = row.get("source_path") or "the store"
            out.append(Problem(name, 0, "id", f"duplicate id '{case.id}', already used by {where}"))
        elif row["id"] != case.id and row_path == resolved:
            out.append(Problem(name, 0, "path", f"{path} is the file of case '{row['id']}'; "
                                                "a case with another id needs its own file"))
    mine = original_path is not None and Path(original_path).resolve() == resolved
    if resolved.exists() and not mine and not any(p.field == "path" for p in out):
        out.append(Problem(name, 0, "path", f"{path} already exists; choose another file name"))
    if original_id and case.id != original_id:
        out.append(Problem(name, 0, "id", f"saving under a new id creates a new case file; "
                                          f"case '{original_id}' stays as it is", "warning"))
    return out


def editor_problems(case: Case, path: Path, *, known_rubrics: Iterable[str] | None, original_id: str | None,
                    original_path: Path | None, stored: Iterable[dict]) -> list[Problem]:
    """Every problem the editor shows, in form order; errors block saving, warnings do not."""
    problems = case_problems(case, known_rubrics, str(path)) + target_problems(
        case, path, original_id=original_id, original_path=original_path, stored=stored)
    return sorted(problems, key=lambda p: (field_rank(p.field), p.severity != "error"))


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)
