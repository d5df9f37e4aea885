"""The case and rubric library: validating files, importing them, and the first-launch bootstrap."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from store import cases as case_rows
from store import rubrics as rubric_rows
from store.settings import get_setting, set_setting
from workbench.cases import Case, CaseError, Problem
from workbench.cases.validate import validate_paths
from workbench.paths import shipped_cases_dir, shipped_rubrics_dir
from workbench.rubrics import Rubric, load_rubrics

BOOTSTRAP_KEY = "library.bootstrapped"


def known_rubric_ids(db: sqlite_utils.Database | None = None) -> set[str]:
    ids = set(shipped_rubrics().keys())
    if db is not None:
        ids |= {r["rubric_id"] for r in rubric_rows.rubric_versions(db)}
    return ids


def shipped_rubrics() -> dict[str, Rubric]:
    directory = shipped_rubrics_dir()
    return load_rubrics(directory) if directory.is_dir() else {}


def validate(paths: list[str | Path] | None = None, db: sqlite_utils.Database | None = None
             ) -> tuple[list[tuple[Path, Case]], list]:
    return validate_paths(paths or [shipped_cases_dir()], known_rubric_ids(db))


def import_cases(db: sqlite_utils.Database, paths: list[str | Path] | None = None) -> list[Case]:
    """Validate every file first; store all of them in one transaction, or none if any is invalid."""
    cases, problems = validate(paths, db)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise CaseError(errors)
    case_rows.upsert_cases(db, [(c.to_dict(), str(path.resolve()), c.content_hash) for path, c in cases])
    return [c for _, c in cases]


def save_case(db: sqlite_utils.Database, case: Case, path: str | Path) -> Path:
    """Write the case file, then the store row; the file is validated before either is touched."""
    from workbench.cases.validate import check
    from workbench.cases.parse import parse_text
    from workbench.cases.write import case_to_text, write_case

    path = Path(path)
    parsed = parse_text(case_to_text(case), str(path))
    errors = [p for p in check(parsed, known_rubric_ids(db)) if p.severity == "error"]
    for other in case_rows.list_cases(db):
        if other["id"] == case.id and other["source_path"] and Path(other["source_path"]) != path.resolve():
            errors.append(Problem(str(path), parsed.line_of("id"), "id",
                                  f"duplicate id '{case.id}', already used by {other['source_path']}"))
    if errors:
        raise CaseError(errors)
    write_case(case, path)
    case_rows.upsert_cases(db, [(case.to_dict(), str(path.resolve()), case.content_hash)])
    return path


def import_rubrics(db: sqlite_utils.Database, directory: str | Path | None = None) -> int:
    from workbench.rubrics.freeze import refuse_frozen_rubric_edits

    rubrics = list((load_rubrics(directory) if directory else shipped_rubrics()).values())
    refuse_frozen_rubric_edits(db, rubrics)  # a rubric a frozen study froze cannot be edited
    added = 0
    for rubric in rubrics:
        added += rubric_rows.add_rubric_version(
            db, hash=rubric.hash, rubric_id=rubric.id, name=rubric.name, text=rubric.text,
            definition=rubric.definition(), source_path=rubric.path)
    return added


def bootstrap(db: sqlite_utils.Database) -> bool:
    """On a store's first launch, load the shipped cases and rubrics. Returns True if it did."""
    if get_setting(db, BOOTSTRAP_KEY):
        return False
    import_rubrics(db)
    if shipped_cases_dir().is_dir():
        import_cases(db, [shipped_cases_dir()])
    set_setting(db, BOOTSTRAP_KEY, True)
    return True


def load_case(db: sqlite_utils.Database, case_id: str) -> Case | None:
    row = case_rows.get_case(db, case_id)
    return Case.from_dict(row["document"]) if row else None
