"""Human scoring: the core the keyboard scoring screen and rater packets call.

Reads (rater-facing): `open_rater`, `rater_names`, `queue`, `next_unscored`,
`item_view`, `pair_view`, `progress`. Actions (each one committed at once):
`record_score`, `record_note`, `undo_last`, `skip_item`. A sitting keeps one
`RaterDesk` (the same reads and actions as methods; the study's context read
once). Reads for the metrics core (never rater-facing): `current_scores`.
"""

from workbench.scoring.core import (
    CalibrationHold,
    RaterDesk,
    ScoringClosed,
    ScoringError,
    item_view,
    next_unscored,
    open_rater,
    pair_view,
    progress,
    queue,
    rater_names,
    record_note,
    record_score,
    skip_item,
    undo_last,
)
from workbench.scoring.results import ScoreValue, current_scores, scoring_completion
from workbench.scoring.views import ItemView, Progress, QueueEntry, RubricView, ScoreReceipt, position_label

__all__ = [
    "CalibrationHold", "ItemView", "RaterDesk", "Progress", "QueueEntry", "RubricView", "ScoreReceipt", "ScoreValue",
    "ScoringClosed", "ScoringError", "current_scores", "item_view", "next_unscored", "open_rater",
    "pair_view", "position_label", "progress", "queue", "rater_names", "record_note", "record_score",
    "scoring_completion", "skip_item", "undo_last",
]
