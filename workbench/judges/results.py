"""Verdicts as results, for the metrics core and reports (never rater-facing).

`current_verdicts` gives each judge's latest ok value per (item, rubric,
criterion); judge errors are left out (never a zero). `judge_error_counts`
counts them per judge and, once the study is unblinded, per condition.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from store import blind as blind_rows
from store import verdicts as verdict_rows
from workbench.blinding.context import load_study


@dataclass(frozen=True)
class VerdictValue:
    judge: str
    model: str
    item_id: str
    rubric_id: str
    rubric_hash: str
    criterion: str
    value: float
    confidence: str | None
    pipeline: str
    pilot: bool


def _latest(db: sqlite_utils.Database, study_id: str) -> dict[tuple, dict]:
    latest: dict[tuple, dict] = {}
    for row in verdict_rows.verdict_rows(db, study_id):
        latest[(row["judge"], row["item_id"], row["rubric_hash"], row["criterion"])] = row
    return latest


def current_verdicts(db: sqlite_utils.Database, study_id: str, *, include_pilots: bool = False
                     ) -> list[VerdictValue]:
    study = load_study(db, study_id)
    pilot = {i["id"]: bool(i["pilot"]) for i in blind_rows.blind_items(db, study_id)}
    out = []
    for (judge, item_id, rubric_hash, criterion), row in sorted(_latest(db, study_id).items()):
        if row["status"] != "ok" or row["value"] is None or (pilot.get(item_id) and not include_pilots):
            continue
        rubric = study.rubric_by_hash(rubric_hash)
        out.append(VerdictValue(judge, row["model"], item_id, rubric.id if rubric else "", rubric_hash, criterion,
                                row["value"], row["confidence"], row["pipeline"], pilot.get(item_id, False)))
    return out


def judge_error_counts(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """judge -> {"errors": (item, rubric) pairs whose current verdict is a judge error,
    "by_condition": {condition: n} once unblinded, else None}."""
    from workbench.blinding.unblind import StillBlind, item_labels

    try:
        labels = item_labels(db, study_id)
    except StillBlind:
        labels = None
    pairs: dict[str, set[tuple[str, str]]] = {}
    for (judge, item_id, rubric_hash, _criterion), row in _latest(db, study_id).items():
        pairs.setdefault(judge, set())
        if row["status"] == "judge_error":
            pairs[judge].add((item_id, rubric_hash))
    out = {}
    for judge, errs in sorted(pairs.items()):
        by_condition = None
        if labels is not None:
            by_condition = {}
            for item_id, _ in errs:
                label = labels.get(item_id)
                cond = (label.condition or "pilot") if label else "unknown"
                by_condition[cond] = by_condition.get(cond, 0) + 1
        out[judge] = {"errors": len(errs), "by_condition": by_condition}
    return out
