"""Creating a study from a study file (batch) or from text (the TUI's Studies screen)."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from store import studies as study_rows
from store.db import writer
from workbench.problems import Problem
from workbench.studies.definition import StudyError, check_against_library, parse_study_text


def read_study_file(path: str | Path) -> str:
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError([Problem(str(path), 1, "file", f"cannot read: {exc}")]) from None


def validate_study_text(db: sqlite_utils.Database, text: str, name: str = "<study>") -> dict:
    """The definition with defaults, checked on its own and against the store; raises StudyError."""
    definition = parse_study_text(text, name)
    problems = check_against_library(definition, db, name, text)
    if problems:
        raise StudyError(problems)
    return definition


def create_study(db: sqlite_utils.Database, path: str | Path | None = None, *, text: str | None = None,
                 name: str = "<study>", measure=None) -> dict:
    """Validate and store a study. Returns {"study_id", "action": created|replaced|unchanged, "definition"},
    and "warnings" (a program that may not fit its model's context window).

    `measure`: how the programs' prompts are measured for the context-window check (the callers pass
    `workbench.runs.dry_run.largest_prompts`, which this package cannot import: runs stand on studies);
    without it each item's text alone is checked (workbench/studies/context_check.py).

    A study that is not frozen yet may be re-created with a changed file (its
    definition is replaced). A frozen one accepts only the identical definition:
    anything else is refused with the keys that differ.
    """
    if text is None:
        if path is None:
            raise ValueError("create_study needs a path or text")
        text, name = read_study_file(path), str(path)
    definition = validate_study_text(db, text, name)
    study_id = definition["name"]
    existing = study_rows.get_study(db, study_id)
    if existing and existing["frozen_at"]:
        if existing["definition"] == definition:
            return {"study_id": study_id, "action": "unchanged", "definition": definition}
        from workbench.studies.freeze import diff_keys, frozen_definition

        keys = diff_keys(frozen_definition(existing["definition"]), frozen_definition(definition))
        if not keys:  # only an operational key (the cost ceiling) changed
            study_rows.update_operational(db, study_id, definition=definition,
                                          cost_ceiling=definition["cost_ceiling"])
            return {"study_id": study_id, "action": "updated", "definition": definition}
        raise StudyError([Problem(name, 1, "name", (
            f"study '{study_id}' is frozen (at {existing['frozen_at']}, hash {existing['freeze_hash'][:12]}) and "
            f"this file changes {', '.join(keys[:8])}; a frozen study cannot change: create a new study "
            "with a new name"))])
    if existing and existing["definition"] == definition and existing["source_text"] == text:
        return {"study_id": study_id, "action": "unchanged", "definition": definition}
    with writer(db):  # a study whose items cannot be loaded is not stored (nor is any of its items)
        study_rows.save_study(db, study_id=study_id, name=study_id, protocol=definition["protocol"],
                              definition=definition, source_text=text, cost_ceiling=definition["cost_ceiling"])
        loaded = load_items(db, study_id, definition, path)
        from workbench.studies.context_check import context_problems

        too_long, warnings = context_problems(db, study_id, definition, name, text, measure)
        if too_long:  # raised inside the transaction: nothing of the study is stored
            raise StudyError(too_long)
        from workbench.studies.lineage import replication_problem

        if why := replication_problem(db, study_id, definition):   # a declared replication on used data
            raise StudyError([Problem(name, 1, "replication_of", why)])
    from workbench.studies.lineage import lineage_lines, record_lineage

    from workbench.protocol.registry import protocol_of

    record_lineage(db, study_id, definition, None)
    warnings = [*warnings, *lineage_lines(db, study_id)]
    return {"study_id": study_id, "action": "replaced" if existing else "created", "definition": definition,
            "items": loaded, "budget": protocol_of(definition).budget_lines(definition), "warnings": warnings}


def load_items(db: sqlite_utils.Database, study_id: str, definition: dict, path: str | Path | None) -> dict:
    """The protocol's items into the store (hindsight's cases are in the library already)."""
    from workbench.protocol.registry import protocol_of

    base_dir = str(Path(path).resolve().parent) if path is not None else None
    protocol = protocol_of(definition)
    result = protocol.load_items(db, study_id, definition, base_dir)
    # What the study will run of them (a limit, a sample): the number `study create` says first.
    to_run = len({plan.item_id for plan in protocol.planned_runs(db, study_id, definition)}) if result.added else 0
    return {"added": result.added, "excluded": result.excluded, "to_run": to_run, "problems": list(result.problems)}
