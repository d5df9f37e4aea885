"""Calibration of LLM-judge scores (seed 004 Arm A, applied to a hindsight study).

A hindsight study has no recorded binary ground truth per item, so the
outcome used here is the humans' reading of the item: for Anticipation,
"the response anticipated the risk" = the mean human score is at least 2
(the "Identified" anchor: named and analysed). The judge's score, scaled to
[0, 1] by the rubric's range, is the probability. ECE, MCE, Brier and the
reliability bins then say whether a judge's confidence in anticipation tracks
the humans'. The panel is computed only when some item has both a human
score and an ok verdict; `workbench.metrics.calibration.calibration` stays
usable on any probability-vs-outcome data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.metrics.calibration import CalibrationReport, calibration

from .study_data import StudyData
from .tables import ANTICIPATION, HUMAN_RATERS, item_scores, metric_values, resolve_metric

DEFAULT_OUTCOME_THRESHOLD = 2.0
DEFAULT_BINS = 10


@dataclass(frozen=True)
class JudgeCalibrationRow:
    judge: str                      # a judge name, or "all judges" (pooled)
    metric: str
    outcome_rule: str
    report: CalibrationReport
    probabilities: tuple[float, ...]
    outcomes: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "metric": self.metric, "outcome_rule": self.outcome_rule,
                **self.report.to_dict()}


def judge_calibration(data: StudyData, *, metric_key: str = ANTICIPATION,
                      outcome_threshold: float = DEFAULT_OUTCOME_THRESHOLD,
                      n_bins: int = DEFAULT_BINS) -> list[JudgeCalibrationRow]:
    """Per judge (and pooled over judges): judge score in [0, 1] vs human mean >= threshold."""
    try:
        metric = resolve_metric(data, metric_key)
    except ValueError:
        return []
    human = item_scores(data, metric, HUMAN_RATERS)
    judged = metric_values(data.verdicts, metric, data)
    lo, hi = metric.scale
    rule = f"outcome = 1 when the human mean {metric.label} >= {outcome_threshold:g}, else 0"
    rows, pooled_p, pooled_y = [], [], []
    for judge in data.judges:
        items = sorted(i for i, v in judged.items() if judge in v and i in human)
        if not items:
            continue
        p = [min(1.0, max(0.0, (judged[i][judge] - lo) / (hi - lo))) for i in items]
        y = [1 if human[i] >= outcome_threshold else 0 for i in items]
        pooled_p += p
        pooled_y += y
        rows.append(JudgeCalibrationRow(judge, metric.key, rule, calibration(p, y, n_bins=n_bins),
                                        tuple(p), tuple(y)))
    if len(rows) > 1:
        rows.append(JudgeCalibrationRow("all judges", metric.key, rule,
                                        calibration(pooled_p, pooled_y, n_bins=n_bins),
                                        tuple(pooled_p), tuple(pooled_y)))
    return rows
