"""Combining a judge's runs of one item: the value and the HIGH/MEDIUM/LOW confidence.

With `runs = 3` (seed 003 §7) each criterion gets three scores. The stored
value is their median (the lower middle one when only two runs succeeded),
which stays on the rubric's scale so agreement statistics still apply. The
confidence comes from the spread, relative to the criterion's scale:

    r = (max - min of the run scores) / (criterion max - criterion min)
    HIGH    r <= 0.20   (0-5 scale: runs within 1 point; 0-3, 0-2, 0-1: all equal)
    MEDIUM  r <= 0.40   (0-5: 2 points apart; 0-3: 1 point apart)
    LOW     r >  0.40   (0-5: 3+ points; 0-3: 2+; 0-2 or binary: any disagreement)

and it drops one level (HIGH -> MEDIUM -> LOW) for each planned run that
failed. A single planned run has no spread: confidence is None.
"""

from __future__ import annotations

import statistics

HIGH, MEDIUM, LOW = "HIGH", "MEDIUM", "LOW"
LEVELS = (HIGH, MEDIUM, LOW)
HIGH_MAX_SPREAD = 0.20
MEDIUM_MAX_SPREAD = 0.40


def confidence(scores: list[int], lo: int, hi: int, planned: int) -> str | None:
    if planned <= 1 or not scores:
        return None
    r = (max(scores) - min(scores)) / (hi - lo) if hi > lo else 0.0
    level = 0 if r <= HIGH_MAX_SPREAD else 1 if r <= MEDIUM_MAX_SPREAD else 2
    level = min(level + (planned - len(scores)), 2)
    return LEVELS[level]


def combine(scores: list[int]) -> int:
    return int(statistics.median_low(scores))


def spread_detail(scores: list[int]) -> dict:
    return {"scores": list(scores), "mean": round(statistics.fmean(scores), 4),
            "sd": round(statistics.pstdev(scores), 4) if len(scores) > 1 else 0.0,
            "range": max(scores) - min(scores)}
