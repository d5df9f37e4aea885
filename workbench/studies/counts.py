"""A study's counts, defined once: `run`, `study show`, the Studies screen and the report all print these.

Before, each place counted its own way (turns completed in one command, attempts in the calls table,
tokens of the runs' latest attempts, judge_error cells or rows) and three views of one study disagreed.
Every count here is over the whole study, read from the store:

- runs: the study's runs by status.
- calls made: attempts that reached a model (answered or failed), architecture and judge alike;
  calls ok / calls failed split them; calls replayed were served from the store (no request).
- tokens and cost: over the calls made (what the provider billed), unknown-price calls counted apart.
- judged / judge errors: item-rubric pairs (`workbench.rubrics.units`; per judge and rubric version) with a
  current verdict, and of those the pairs whose current verdict is a judge_error; a retried error that fails
  again is still one. Pilot items count like the others, as in the judging summary.
- truncated: per condition, the finished outputs and how many of them end in a reply cut at max_tokens.
- runs `done_with_errors`: finished runs whose program ended in a counted error (their own status).
- calls lost: requests journaled as sent whose process died before their reply was recorded (paid, the
  replies lost; `workbench.gateway.journal`), with their estimated cost, apart from the calls made.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlite_utils

from store import calls as call_rows
from store import runs as run_rows
from store import verdicts as verdict_rows
from workbench.gateway.journal import LostCalls, lost_calls
from workbench.rubrics import units
from workbench.studies.costs import cost_text


@dataclass(frozen=True)
class StudyCounts:
    runs: dict[str, int]
    calls_made: int
    calls_ok: int
    calls_failed: int
    calls_replayed: int
    input_tokens: int
    output_tokens: int
    cost: float
    cost_unknown_calls: int
    judged: int
    judge_errors: int
    calls_cancelled: int = 0   # attempts the caller cancelled in flight (not counted as made: they may not
                               # have reached the model)
    truncated: dict[str, dict[str, int]] | None = None   # condition -> {"outputs", "truncated"}
    lost: LostCalls = LostCalls()   # requests sent and never answered: their process died first

    @property
    def outputs_truncated(self) -> int:
        return sum(c["truncated"] for c in (self.truncated or {}).values())

    def to_dict(self) -> dict:
        return {**asdict(self), "outputs_truncated": self.outputs_truncated}

    @classmethod
    def from_dict(cls, d: dict) -> "StudyCounts":
        fields = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        if isinstance(fields.get("lost"), dict):
            fields["lost"] = LostCalls(**fields["lost"])
        return cls(**fields)

    def runs_text(self) -> str:
        total = sum(self.runs.values())
        return f"{total} runs: " + (", ".join(f"{v} {status_text(k)}" for k, v in self.runs.items() if v)
                                    or "none")

    def truncated_text(self) -> str | None:
        """`outputs cut at max_tokens: B1 2/3, C1 1/3`, or None when no output was cut."""
        if not self.outputs_truncated:
            return None
        return "outputs cut at max_tokens: " + ", ".join(
            f"{c} {v['truncated']}/{v['outputs']}" for c, v in (self.truncated or {}).items())

    def calls_text(self) -> str:
        cost = cost_text(self.cost, self.cost_unknown_calls, priced=self.calls_made - self.cost_unknown_calls)
        cancelled = f", {self.calls_cancelled} cancelled in flight" if self.calls_cancelled else ""
        return (f"{self.calls_made} calls made ({self.calls_ok} ok, {self.calls_failed} failed{cancelled}), "
                f"{self.calls_replayed} replayed; {self.input_tokens} input + {self.output_tokens} output tokens, "
                f"{cost}; {units.judged_text(self.judged, self.judge_errors)}")

    def text(self) -> str:
        """The lines every place prints: runs, calls, and the cut outputs when there are any."""
        extra = [line for line in (self.truncated_text(), self.lost.text()) if line]
        return "\n".join([self.runs_text(), self.calls_text(), *extra])


def status_text(status: str) -> str:
    """A run status as people read it (`done_with_errors` is stored, `done with errors` is shown)."""
    return status.replace("_", " ")


def study_counts(db: sqlite_utils.Database, study_id: str) -> StudyCounts:
    spent = call_rows.spent(db, study_id=study_id)
    judged, errors = verdict_rows.current_verdict_pairs(db, study_id)
    return StudyCounts(
        runs={k: v for k, v in run_rows.status_counts(db, study_id).items()},
        calls_made=spent["attempts"], calls_ok=spent["ok"], calls_failed=spent["attempts"] - spent["ok"],
        calls_replayed=spent["replayed"], input_tokens=spent["input_tokens"], output_tokens=spent["output_tokens"],
        cost=round(float(spent["cost"]), 6), cost_unknown_calls=spent["cost_unknown_calls"],
        judged=judged, judge_errors=errors, calls_cancelled=spent["cancelled"],
        truncated=run_rows.truncated_counts(db, study_id), lost=lost_calls(db, study_id))
