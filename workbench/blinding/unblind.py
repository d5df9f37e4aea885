"""Reading the sealed key once a study is unblinded (the act itself is `workbench.scoring.unblind`).

`item_labels` is how the metrics core learns which run and condition each
blind item came from; it refuses while the study is still blind. A study
unblinded by force is marked `unblind_forced`, which every label carries.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlite_utils

from store import blind as blind_rows
from workbench.blinding.context import BlindingError, load_study


class StillBlind(BlindingError):
    """The sealed key was asked for before the study was unblinded."""


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
