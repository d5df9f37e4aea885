"""The case and rubric library: validating files, importing them, and the first-launch bootstrap."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from store import cases as case_rows
from store import rubrics as rubric_rows
from store.settings import get_setting, set_setting
from workbench.cases import Case, CaseError, Problem
from workbench.cases.validate import validate_paths
from workbench.paths import shipped_cases_dir, shipped_rubrics_dir, user_cases_dir
from workbench.rubrics import Rubric, load_rubrics

BOOTSTRAP_KEY = "library.bootstrapped"
REFUSED_KEY = "library.refused"


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


def is_shipped(path: str | Path) -> bool:
    """Whether `path` lies in the shipped cases/ (and that is not also the user's library)."""
    shipped, user = shipped_cases_dir().resolve(), user_cases_dir().resolve()
    return shipped != user and Path(path).resolve().is_relative_to(shipped)


def writable_path(path: str | Path) -> Path:
    """Where a change to the case file at `path` is written: the file itself, unless it is a shipped case,
    whose changes go to the same name in the user's case library (which then takes precedence)."""
    path = Path(path)
    return user_cases_dir() / path.name if is_shipped(path) else path


def save_case(db: sqlite_utils.Database, case: Case, path: str | Path) -> Path:
    """Write the case file, then the store row; the file is validated before either is touched. A shipped
    case is written to the user's case library (`writable_path`); the returned path says where."""
    from workbench.cases.validate import check
    from workbench.cases.parse import parse_text
    from workbench.cases.write import case_to_text, write_case

    path = writable_path(path)
    parsed = parse_text(case_to_text(case), str(path))
    errors = [p for p in check(parsed, known_rubric_ids(db)) if p.severity == "error"]
    for other in case_rows.list_cases(db):
        if (other["id"] == case.id and other["source_path"] and Path(other["source_path"]) != path.resolve()
                and not is_shipped(other["source_path"])):  # the user's copy of a shipped case replaces it
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


def library_dirs() -> list[Path]:
    """Where the library's cases come from, the first taking precedence: the user's case library (what the
    user and the probes changed), then the shipped cases/ (read-only: never written at run time)."""
    dirs: list[Path] = []
    for d in (user_cases_dir(), shipped_cases_dir()):
        if d.is_dir() and all(d.resolve() != seen.resolve() for seen in dirs):
            dirs.append(d)
    return dirs


def load_library(db: sqlite_utils.Database) -> list[dict]:
    """Store every case of the library that passes the gates; never raises on a bad file.

    A case in the user's library hides the shipped case of the same id (refused or not: a contamination
    record there must not be undone by the shipped file). A file the gates refuse is not stored and is
    returned, and kept for `cases list` and `study create`, as {"id", "file", "line", "reason"}: only a
    study that names it is refused. The list is the one definition of what was refused."""
    known = known_rubric_ids(db)
    taken: set[str] = set()   # ids an earlier (user) directory gave, stored or refused
    accepted: list[tuple[Path, Case]] = []
    refused: list[dict] = []
    for directory in library_dirs():
        cases, problems = validate_paths([directory], known)
        accepted += [(path, case) for path, case in cases if case.id not in taken]
        here = {case.id for _, case in cases}
        errors = [p for p in problems if p.severity == "error"]
        for file in dict.fromkeys(p.file for p in errors):  # each refused file once, at its first problem
            case_id = _case_id_of(file)
            if case_id in taken:
                continue  # hidden by the user's copy of the case
            first = next(p for p in errors if p.file == file)
            refused.append({"id": case_id, "file": file, "line": first.line,
                            "reason": f"{first.field}: {first.message}",
                            "problems": sum(p.file == file for p in errors)})
            here.add(case_id)
        taken |= here
    case_rows.upsert_cases(db, [(c.to_dict(), str(path.resolve()), c.content_hash) for path, c in accepted])
    set_setting(db, REFUSED_KEY, refused)
    return refused


def _case_id_of(file: str) -> str:
    """A refused file's case id: the id its front matter gives when it can be read, else its name."""
    from workbench.cases.parse import parse_file
    from workbench.cases.validate import MAX_CASE_BYTES

    try:
        readable = Path(file).stat().st_size <= MAX_CASE_BYTES
    except OSError:
        readable = False
    case = parse_file(file).case if readable else None
    return case.id if case is not None and case.id else Path(file).stem


def refused_cases(db: sqlite_utils.Database) -> list[dict]:
    """The library's files the gates refused when the store loaded them (see `load_library`)."""
    return list(get_setting(db, REFUSED_KEY) or [])


def refusal_text(entry: dict) -> str:
    more = f" (and {entry['problems'] - 1} more problem(s))" if entry.get("problems", 1) > 1 else ""
    return f"{entry['file']}:{entry['line']}: {entry['reason']}{more}"


def refusal_of(db: sqlite_utils.Database, case_id: str) -> str | None:
    """Why the library refused case `case_id` (file:line: reason), or None if it did not."""
    entry = next((r for r in refused_cases(db) if r["id"] == case_id), None)
    return refusal_text(entry) if entry else None


def bootstrap(db: sqlite_utils.Database) -> bool:
    """On a store's first launch, load the shipped rubrics and the case library (the user's, then the
    shipped cases). Returns True if it did. Never raises on a bad case file: see `load_library`."""
    if get_setting(db, BOOTSTRAP_KEY):
        return False
    import_rubrics(db)
    load_library(db)
    set_setting(db, BOOTSTRAP_KEY, True)
    return True


def load_case(db: sqlite_utils.Database, case_id: str) -> Case | None:
    row = case_rows.get_case(db, case_id)
    return Case.from_dict(row["document"]) if row else None
