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


def held(check: dict) -> bool:
    """A failed pilot check nobody has released: the evaluator is held."""
    return check["state"] == "failed" and not check["released"]


def calibration_text(result: dict) -> str:
    """`study_calibration`'s result, one line per rater and judge, as `pilots` prints it and the TUI shows it."""
    return "\n".join(
        f"{kind[:-1]} {c['evaluator']}: {c['state']}" + (f" - {c['message']}" if c["message"] else "")
        + (" (held)" if held(c) else "")
        for kind in ("raters", "judges") for c in result[kind])
