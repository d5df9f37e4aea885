"""Unblinding: the explicit, recorded act that opens the sealed key.

`unblind(db, study_id, by=..., force=False)` is refused while any rater has
assigned items not fully scored; `force=True` unblinds anyway and the study
is marked `unblind_forced`, which every result read through `item_labels`
carries. After unblinding, scoring is closed. `item_labels` is how the
metrics core learns which run and condition each blind item came from; it
refuses while the study is still blind.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlite_utils

from store import blind as blind_rows
from workbench.blinding.context import BlindingError, load_study


class StillBlind(BlindingError):
    """The sealed key was asked for before the study was unblinded."""


class UnblindRefused(BlindingError):
    """Scoring is not complete and the unblinding was not forced."""

    def __init__(self, message: str, remaining: dict[str, dict]):
        super().__init__(message)
        self.remaining = remaining


@dataclass(frozen=True)
class UnblindState:
    unblinded: bool
    at: str | None
    by: str | None
    forced: bool

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ItemLabel:
    """What a blind item was, known only after unblinding."""

    item_id: str
    case_id: str
    run_id: str | None       # None for a calibration pilot
    condition: str | None    # B1..C3, P1; None for a pilot
    replicate: int | None
    pilot: bool
    pilot_direction: str | None  # "high" | "low" for pilots
    unblind_forced: bool     # the study was unblinded before scoring was complete


def unblind_state(db: sqlite_utils.Database, study_id: str) -> UnblindState:
    study = load_study(db, study_id)
    records = blind_rows.unblindings(db, study_id)
    by = records[-1]["by"] if records else None
    return UnblindState(bool(study.unblinded_at), study.unblinded_at, by, study.unblind_forced)


def unblind(db: sqlite_utils.Database, study_id: str, *, by: str, force: bool = False,
            reason: str | None = None) -> dict:
    """Unblind the study. Returns the record; refuses (UnblindRefused) before scoring is complete."""
    from workbench.scoring.results import scoring_completion

    if not by or not by.strip():
        raise BlindingError("unblinding needs the name of who does it")
    state = unblind_state(db, study_id)
    if state.unblinded:
        return {**state.to_dict(), "study_id": study_id, "already": True}
    completion = scoring_completion(db, study_id)
    remaining = {r: c for r, c in completion.items() if c["done"] < c["total"]}
    if not blind_rows.blind_items(db, study_id):
        remaining = remaining or {"(no items)": {"done": 0, "total": 0}}
    if remaining and not force:
        detail = ", ".join(f"{r} {c['done']}/{c['total']}" for r, c in remaining.items())
        raise UnblindRefused(f"study '{study_id}': scoring is not complete ({detail}); finish it, or unblind "
                             "with --force (every result is then marked as force-unblinded)", remaining)
    record = blind_rows.record_unblinding(db, study_id, by=by.strip(), forced=bool(remaining),
                                          reason=reason)
    record["already"] = False
    record["remaining"] = remaining
    return record


def item_labels(db: sqlite_utils.Database, study_id: str) -> dict[str, ItemLabel]:
    """item id -> what it was. Refused (StillBlind) until the study is unblinded."""
    state = unblind_state(db, study_id)
    if not state.unblinded:
        raise StillBlind(f"study '{study_id}' is still blind: unblind it first "
                         f"(`workbench --batch unblind {study_id}`)")
    return _open_key(db, study_id, state.forced)


def _open_key(db: sqlite_utils.Database, study_id: str, forced: bool) -> dict[str, ItemLabel]:
    out = {}
    for row in blind_rows.read_sealed_key(db, study_id):
        expectation = row["pilot_expectation"] or {}
        out[row["item_id"]] = ItemLabel(
            item_id=row["item_id"], case_id=row["case_id"], run_id=row["run_id"], condition=row["condition"],
            replicate=row["replicate"], pilot=bool(row["pilot"]), pilot_direction=expectation.get("direction"),
            unblind_forced=forced)
    return out


def scrub_logs(db: sqlite_utils.Database, study_id: str) -> dict[str, list[dict]]:
    """item id -> what the scrubber removed (sealed: it names the tells; after unblinding only)."""
    if not unblind_state(db, study_id).unblinded:
        raise StillBlind(f"study '{study_id}' is still blind: the scrub log is part of the sealed key")
    return {r["item_id"]: r["scrub_log"] for r in blind_rows.read_sealed_key(db, study_id)}


def audit_conditions(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """Sealed read for the blindness audit only: item id -> condition, pilots left out.

    The audit publishes aggregates (accuracy against chance), never this mapping.
    """
    return {r["item_id"]: r["condition"] for r in blind_rows.read_sealed_key(db, study_id)
            if not r["pilot"] and r["condition"]}
