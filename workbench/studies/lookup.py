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
