"""Unblinding: the explicit, recorded act that opens the sealed key, once scoring is complete.

`unblind(db, study_id, by=..., force=False)` is refused while any rater has
assigned items not fully scored; `force=True` unblinds anyway and the study
is marked `unblind_forced`, which every result read through
`workbench.blinding.unblind.item_labels` carries. After unblinding, scoring
is closed. A study whose `[quality]` pre-registers exclusion rules has them applied and recorded first
(`evaluators/exclusions.py`), so its decisions are taken before the key is opened.
"""

from __future__ import annotations

import sqlite_utils

from store import blind as blind_rows
from workbench.blinding.context import BlindingError
from workbench.blinding.unblind import unblind_state
from workbench.scoring.results import scoring_completion


def blinds_outputs(db: sqlite_utils.Database, study_id: str) -> bool:
    """Whether the study's protocol seals its outputs at all (a faultline debate has no blind items:
    unblinding it opens nothing and waits on no one)."""
    from store.studies import get_study
    from workbench.protocol.registry import protocol_of

    study = get_study(db, study_id)
    return study is None or protocol_of(study["definition"]).blinds_outputs(study["definition"])


class UnblindRefused(BlindingError):
    """Scoring is not complete and the unblinding was not forced."""

    def __init__(self, message: str, remaining: dict[str, dict]):
        super().__init__(message)
        self.remaining = remaining


def unblind(db: sqlite_utils.Database, study_id: str, *, by: str, force: bool = False,
            reason: str | None = None) -> dict:
    """Unblind the study. Returns the record; refuses (UnblindRefused) before scoring is complete."""
    if not by or not by.strip():
        raise BlindingError("unblinding needs the name of who does it")
    state = unblind_state(db, study_id)
    if state.unblinded:
        return {**state.to_dict(), "study_id": study_id, "already": True}
    completion = scoring_completion(db, study_id)
    remaining = {r: c for r, c in completion.items() if c["done"] < c["total"]}
    if not blind_rows.blind_items(db, study_id) and blinds_outputs(db, study_id):
        remaining = remaining or {"(no items)": {"done": 0, "total": 0}}
    if remaining and not force:
        detail = ", ".join(f"{r} {c['done']}/{c['total']}" for r, c in remaining.items())
        raise UnblindRefused(f"study '{study_id}': scoring is not complete ({detail}); finish it, or unblind "
                             "with --force (every result is then marked as force-unblinded)", remaining)
    decided = _decide_exclusions(db, study_id, by.strip())
    record = blind_rows.record_unblinding(db, study_id, by=by.strip(), forced=bool(remaining),
                                          reason=reason)
    record["already"] = False
    record["excluded"] = [r["evaluator"] for r in decided if r["excluded"]]
    record["remaining"] = remaining
    return record


def _decide_exclusions(db: sqlite_utils.Database, study_id: str, by: str) -> list[dict]:
    """The pre-registered exclusion rules decide before the key is opened (`evaluators/exclusions.py`);
    the decision rows written (none for a study without rules)."""
    from store.studies import get_study
    from workbench.evaluators.exclusions import apply_rules
    from workbench.evaluators.settings import quality_of

    study = get_study(db, study_id)
    if study is not None and quality_of(study["definition"])["exclude_if"]:
        return apply_rules(db, study_id, by=by)
    return []
