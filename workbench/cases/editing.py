"""Checking a case while it is being edited, before it is saved (used by the TUI case editor).

The rules are exactly those of `workbench --batch cases validate`: the case is
rendered to its file text and parsed and checked as a file would be. On top of
them come the checks about where it will be saved: an id or a file that
belongs to another case, a file that already exists, a renamed id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from workbench.cases.model import CRITERIA, PRESERVES, SECTIONS, Case
from workbench.cases.parse import parse_text
from workbench.problems import Problem
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
            if p.field == "body":  # the lines after such a heading: a consequence, already reported
                continue
            owner = [key for line, key in section_lines if line < p.line][-1]
            p = Problem(p.file, p.line, owner,
                        f"the line '## {p.field}' would start a new section of the case file; "
                        "reword it or drop the '## '", p.severity)
        out.append(p)
    # A heading that names a known section ("## Notes") parses without complaint but moves
    # the text after it into that section: compare what the file would give back.
    if parsed.case is not None:
        moved = [k for k in SECTIONS if getattr(parsed.case, k) != getattr(case, k).strip()]
        # Only the first: the sections after it differ as a consequence.
        if moved and not any(p.field == moved[0] for p in out):
            out.append(Problem(name, parsed.line_of(moved[0]), moved[0],
                               "a line starting with '## ' would split this text into another section "
                               "of the case file; reword it or drop the '## '"))
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
    if original_id and case.id == original_id and not mine and original_path and Path(original_path).exists():
        out.append(Problem(name, 0, "path", f"case '{case.id}' lives in {original_path}; a second file with the "
                                            "same id would clash on import, so give the copy a new id"))
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


def read_case_file(path: Path | None) -> Case | None:
    """The case a file holds now, or None when there is no readable, parsable case there."""
    from workbench.cases.parse import parse_file

    if path is None or not Path(path).is_file():
        return None
    return parse_file(path).case


def changed_outside(path: Path, opened: Case | None) -> Problem | None:
    """A problem if the file no longer holds what it held when the editor opened it.

    Probe records are left out of the comparison: a probe appends to the file
    by design, and the editor keeps whatever probes the store has at save time.
    """
    if opened is None:
        return None
    now = read_case_file(path)
    if now is None or replace(now, probes=[]) == replace(opened, probes=[]):
        return None
    return Problem(str(path), 0, "path", f"{path} was changed outside the editor since it was opened; "
                                        "save to another file, or leave without saving and import that file")


def with_stored_probes(db, case: Case, original_id: str | None) -> Case:
    """The case with the probe records the store holds now (probes run while it was being edited are kept)."""
    from workbench.cases.library import load_case

    stored = load_case(db, original_id) if original_id else None
    return replace(case, probes=list(stored.probes)) if stored else case
