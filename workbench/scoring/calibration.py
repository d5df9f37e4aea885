"""Where every rater and judge stands on the calibration pilots (researcher-facing)."""

from __future__ import annotations

import sqlite_utils

from store import scores as score_rows
from workbench.pilots.calibration import CalibrationCheck, judge_calibration, rater_calibration
from workbench.scoring.state import replay


def rater_check(db: sqlite_utils.Database, study, rater: str) -> CalibrationCheck:
    """A rater's pilot check from their current scores. `study`: a StudyContext."""
    return rater_calibration(db, study, rater, replay(score_rows.rater_rows(db, study.id, rater)))


def study_calibration(db: sqlite_utils.Database, study) -> dict:
    """Every rater's and judge's pilot check (no item ids, no conditions)."""
    return {
        "raters": [rater_check(db, study, r).to_dict() for r in study.rater_names],
        "judges": [judge_calibration(db, study, j["name"]).to_dict() for j in study.judges],
    }
