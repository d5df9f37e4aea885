"""Rater mode: the TUI locked to one rater scoring one study (`workbench --rater NAME --study STUDY`).

An evaluator on the shared host must reach nothing but their own blind
scoring: not the runs, metrics, cases or studies, and not another rater.
`RaterLock` names who and what the app is locked to; `check_rater_lock`
refuses, before any screen is drawn, a lock that cannot be honoured: no such
study, a study not frozen yet, a name that is not one of its raters, or a
study already unblinded (its conditions are revealed, so it is no place for
blind scoring). The reasons name only what the rater typed.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from store import studies as study_rows


@dataclass(frozen=True)
class RaterLock:
    study_id: str
    rater: str


class RaterLockRefused(Exception):
    """The app cannot open in rater mode for this study and rater; the message says why."""


def check_rater_lock(db: sqlite_utils.Database, lock: RaterLock) -> None:
    """Raise RaterLockRefused unless `lock.rater` may score `lock.study_id` now."""
    row = study_rows.get_study(db, lock.study_id)
    if row is None:
        raise RaterLockRefused(f"there is no study '{lock.study_id}' in this store (check --study, and --db or "
                               "$WORKBENCH_DB)")
    if not row.get("frozen_at"):
        raise RaterLockRefused(f"study '{lock.study_id}' is not frozen yet: there is nothing to score until the "
                               "researcher freezes and runs it")
    raters = (row.get("definition") or {}).get("raters") or []
    if lock.rater not in raters:
        # The study's other raters are not listed: a rater has no need of their names.
        raise RaterLockRefused(f"'{lock.rater}' is not a rater of study '{lock.study_id}' (check --rater: the "
                               "name must be exactly as the researcher wrote it in the study)")
    if row.get("unblinded_at"):
        raise RaterLockRefused(f"study '{lock.study_id}' is unblinded: its conditions are revealed and scoring "
                               "is closed, so rater mode will not open it")
