"""Editing a frozen rubric is refused.

A study freezes the exact text of every rubric it scores with (its
`frozen_artefacts` of kind "rubric"). Storing a changed text under the id of a
rubric that a frozen study froze would let the library drift away from what
that study's scores mean, so the rubric library refuses it, naming the
studies; a changed rubric needs a new rubric id (or a new study). Re-importing
the identical text is fine.
"""

from __future__ import annotations

import tomllib
from typing import Iterable

import sqlite_utils

from store import blind as blind_rows
from workbench.rubrics import Rubric


class FrozenRubricEdit(Exception):
    """A changed text for a rubric id that a frozen study froze."""

    def __init__(self, rubric_id: str, studies: list[str], path: str = ""):
        where = f"{path}: " if path else ""
        super().__init__(f"{where}rubric '{rubric_id}' is frozen by study {', '.join(repr(s) for s in studies)}; "
                         "a frozen rubric cannot be edited: give the changed rubric a new id, or restore the "
                         "frozen text")
        self.rubric_id = rubric_id
        self.studies = studies


def _frozen_id(artefact: dict) -> str:
    try:
        return str(tomllib.loads(artefact["content"]).get("id") or artefact["ref"])
    except (tomllib.TOMLDecodeError, TypeError):
        return artefact["ref"]


def frozen_by(db: sqlite_utils.Database, rubric_id: str, text: str) -> list[str]:
    """The frozen studies that froze a different text under `rubric_id`."""
    return sorted({a["study_id"] for a in blind_rows.frozen_rubrics_of_frozen_studies(db)
                   if _frozen_id(a) == rubric_id and a["content"] != text})


def check_rubric_edit(db: sqlite_utils.Database, rubric_id: str, text: str, path: str = "") -> None:
    """Raise FrozenRubricEdit if storing `text` as rubric `rubric_id` would edit a frozen rubric."""
    studies = frozen_by(db, rubric_id, text)
    if studies:
        raise FrozenRubricEdit(rubric_id, studies, path)


def refuse_frozen_rubric_edits(db: sqlite_utils.Database, rubrics: Iterable[Rubric]) -> None:
    """Check every rubric before any is stored (the library imports all or none)."""
    for rubric in rubrics:
        check_rubric_edit(db, rubric.id, rubric.text, rubric.path)
