"""Studies: a study file's definition, validated; its freeze; and its summary.

    create_study(db, path)          -> {"study_id", "action", "definition"}
    freeze_study(db, study_id)      -> {"freeze_hash", "frozen_at", ...}
    verify_frozen(db, study_id)     raises FrozenStudyChanged naming what changed
    study_summary(db, study_id)     -> definition, freeze, run counts, totals
    planned_runs(db, study)         -> every run its protocol plans (hindsight: case x condition x replicate)
"""

from workbench.studies.create import create_study, validate_study_text
from workbench.studies.lookup import StudyNotFound, load_study
from workbench.studies.definition import StudyError, parse_study_text
from workbench.studies.freeze import FrozenStudyChanged, freeze_study, verify_frozen
from workbench.studies.summary import planned_runs, run_id, study_summary, summary_text

__all__ = [
    "FrozenStudyChanged", "StudyError", "StudyNotFound", "create_study", "freeze_study", "load_study",
    "parse_study_text", "planned_runs", "run_id", "study_summary", "summary_text", "validate_study_text",
    "verify_frozen",
]
