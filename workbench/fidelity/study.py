"""One study's fidelity table and one run's reading, asked of the study's protocol through the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.runs import FINISHED, get_run, list_runs
from store.studies import get_study
from workbench.protocol.base import TreatmentReading
from workbench.protocol.registry import protocol_of

from .policy import policy_of

if TYPE_CHECKING:
    from .table import FidelityTable


def _study(db, study_id: str) -> dict:
    row = get_study(db, study_id)
    if row is None:
        raise KeyError(f"study '{study_id}' is not in the store")
    return row


def definition_of(db, study_id: str) -> dict:
    return _study(db, study_id)["definition"]


def _readings(db, study_id: str):
    """The study row, its protocol, its conditions' steps and one reading per finished run (none without steps)."""
    row = _study(db, study_id)
    definition = row["definition"]
    protocol = protocol_of(definition)
    steps = protocol.treatment_steps(definition)
    if not steps:
        return row, protocol, steps, []
    runs = [r for r in list_runs(db, study_id) if r["status"] in FINISHED]
    return row, protocol, steps, protocol.treatment(db, study_id, definition, runs)


def study_fidelity(db, study_id: str) -> FidelityTable | None:
    """The study's fidelity table; None when its protocol names no defining steps."""
    from .table import build  # its rendering stands on the statistics' number format: not for a run's end

    row, protocol, steps, readings = _readings(db, study_id)
    if not steps:
        return None
    definition = row["definition"]
    # a blinded study's tables name no condition: the table is then one condition-free line (table.py)
    blinded = protocol.blinds_outputs(definition) and not row.get("unblinded_at")
    return build(steps, readings, policy_of(definition), blinded=blinded)


def undelivered_runs(db, study_id: str) -> dict[str, TreatmentReading]:
    """run id → its reading, for each finished run whose defining step did not happen (the table's
    `undelivered`, without building the table: the Runs grid marks these)."""
    return {r.run_id: r for r in _readings(db, study_id)[3] if not r.delivered}


def run_reading(db, run_id: str, definition: dict | None = None) -> TreatmentReading | None:
    """One finished run's reading (the run-end line); None for a run not finished or a protocol without steps.
    `definition`: its study's, when the caller holds it (a frozen study's does not change while it runs)."""
    run = get_run(db, run_id)
    if run is None or run["status"] not in FINISHED:
        return None
    if definition is None:
        definition = definition_of(db, run["study_id"])
    protocol = protocol_of(definition)
    if run["condition"] not in protocol.treatment_steps(definition):
        return None
    found = protocol.treatment(db, run["study_id"], definition, [run])
    return found[0] if found else None
