"""Scores as results: every rater's current values, for the metrics core and unblinding.

Never rater-facing (it reads every rater's rows). Items are still blind ids;
join them to conditions with `workbench.blinding.unblind.item_labels` once the
study is unblinded.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from store import blind as blind_rows
from store import scores as score_rows
from workbench.blinding.context import load_study
from workbench.scoring.core import RaterDesk
from workbench.scoring.state import current_by_rater


@dataclass(frozen=True)
class ScoreValue:
    rater: str
    item_id: str
    rubric_id: str
    rubric_hash: str
    criterion: str
    value: int
    pilot: bool


def current_scores(db: sqlite_utils.Database, study_id: str, *, include_pilots: bool = False) -> list[ScoreValue]:
    """Every rater's current value of every scored cell (pilot items left out unless asked for)."""
    study = load_study(db, study_id)
    pilot = {i["id"]: bool(i["pilot"]) for i in blind_rows.blind_items(db, study_id)}
    out = []
    for rater, state in sorted(current_by_rater(score_rows.study_rows(db, study_id)).items()):
        for (item_id, rubric_hash, criterion), value in sorted(state.values.items()):
            if value is None or (pilot.get(item_id) and not include_pilots):
                continue
            rubric = study.rubric_by_hash(rubric_hash)
            out.append(ScoreValue(rater, item_id, rubric.id if rubric else "", rubric_hash, criterion,
                                  int(value), pilot.get(item_id, False)))
    return out


def scoring_completion(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """rater -> {"done": items fully scored, "total": items assigned}."""
    study = load_study(db, study_id)
    out = {}
    for rater in study.rater_names:
        s = RaterDesk(db, study_id, rater)
        out[rater] = {"done": sum(1 for q in s.queue if s.complete(q["item_id"])), "total": len(s.queue)}
    return out
