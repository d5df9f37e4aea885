"""Seen while it happens: the run-end line says when a run's defining step did not happen, and the study's
`on_missing_treatment = "refuse"` stops the study there.

`TreatmentWatch` is an event sink around another (the batch display, the Runs screen's): a `progress` event
that ends a run gets `treatment` in its run state ("no debate: both motions died", `words`) before it is passed
on, and under "refuse" the run's control is cancelled with `refusal`: batch and the TUI say the same words and
stop alike. It reads the run's stored events once, when the run ends; the runner has written them with the
run's end. `untreated` gives the same words for a study's stored runs (the Runs grid drawn from the store).
"""

from __future__ import annotations

from dataclasses import replace

from store.runs import FINISHED
from workbench.events import PROGRESS, Event, watching
from workbench.protocol.base import TreatmentReading

from .policy import KEY, policy_of
from .study import definition_of, run_reading, undelivered_runs


def words(reading: TreatmentReading) -> str:
    """What a run's end says when its defining step did not happen."""
    return reading.note or "its defining step did not happen"


def refusal(reading: TreatmentReading) -> str:
    """Why `on_missing_treatment = "refuse"` stopped the study (the run summary's `stopped`)."""
    return f'{KEY} = "refuse": run {reading.run_id} ended without its defining step ({words(reading)})'


def untreated(db, study_id: str) -> dict[str, str]:
    """run id → the words of its end, for each stored finished run whose defining step did not happen."""
    return {run_id: words(reading) for run_id, reading in undelivered_runs(db, study_id).items()}


class TreatmentWatch:
    def __init__(self, sink, db, study_id: str, control=None) -> None:
        self.sink, self.db, self.study_id, self.control = sink, db, study_id, control
        self.definition = definition_of(db, study_id)  # read once: the study row each run's end read cost 3 queries
        self.refuse = policy_of(self.definition) == "refuse"

    def emit(self, event: Event) -> None:
        run = event.payload.get("run") if event.kind == PROGRESS else None
        if run is not None and run.get("status") in FINISHED and "treatment" not in run:
            reading = run_reading(self.db, run["run_id"], self.definition)
            if reading is not None and not reading.delivered:
                run = {**run, "treatment": words(reading)}
                event = replace(event, payload={**event.payload, "run": run})
                if self.refuse and self.control is not None and not self.control.cancelled:
                    self.control.cancel(refusal(reading))
        self.sink.emit(event)

    def watching(self, run_id: str | None) -> bool:
        return watching(self.sink, run_id)

    def close(self) -> None:
        self.sink.close()
