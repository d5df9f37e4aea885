"""Finding a stored study by id (shared by creating, freezing and summarising)."""

from __future__ import annotations

import sqlite_utils

from store import studies as study_rows


class StudyNotFound(KeyError):
    def __init__(self, study_id: str):
        super().__init__(study_id)
        self.study_id = study_id

    def __str__(self) -> str:
        return f"no study '{self.study_id}' in the store (create it with `workbench --batch study create FILE`)"


def load_study(db: sqlite_utils.Database, study_id: str) -> dict:
    study = study_rows.get_study(db, study_id)
    if study is None:
        raise StudyNotFound(study_id)
    return study


def list_studies(db: sqlite_utils.Database) -> list[dict]:
    """Every stored study (definition decoded, `status` and `status_text` from store.studies.study_status:
    the one definition), oldest first."""
    return study_rows.list_studies(db)


def find_study(db: sqlite_utils.Database, study_id: str) -> dict | None:
    """The stored study, or None (where "no such study" is an answer, not an error)."""
    return study_rows.get_study(db, study_id)


def run_status_counts(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    """The study's runs by status (pending, running, done, failed, cancelled)."""
    from store.runs import status_counts

    return status_counts(db, study_id)
