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
  again is still one. Pilot, gold and attention items count like the others, as in the judging summary
  (`units.EVERY_ITEM`, said beside the count; the metrics tables leave gold and attention items out).
- truncated: per condition, the finished outputs and how many of them end in a reply cut at max_tokens.
- runs `done_with_errors`: finished runs whose program ended in a counted error (their own status). A run
  is finished when it is `done` or `done_with_errors` (FINISHED): the Studies list, the Runs bar and
  `run`'s progress count both as done; how many ended with errors is said beside it.
- counted errors: those runs by the kind of error their program counted (the text before its first `:`,
  e.g. `judge_error` for a calibration judge run whose reply never parsed), per condition. A run that is a
  judge's (its counted error is a `judge_error`) is judged like a verdict, so `judge errors` counts both.
- structured replies cut at max_tokens: per step, and how many were asked again with a larger max_tokens
  (`workbench.structured.counts.cut_text`), apart from replies that did not parse.
- calls lost: requests journaled as sent whose process died before their reply was recorded (paid, the
  replies lost; `workbench.gateway.journal`), with their estimated cost, apart from the calls made.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import sqlite_utils

from store import calls as call_rows
from store import runs as run_rows
from store import verdicts as verdict_rows
from workbench.gateway.journal import LostCalls, lost_calls
from workbench.rubrics import units
from workbench.studies.costs import cost_text
from workbench.structured.counts import cut_text, parse_counts
from workbench.structured.reading import CUT


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
    counted_errors: dict[str, dict[str, int]] | None = None  # error kind -> condition -> runs (done_with_errors)
    cut_replies: list[dict] | None = None   # structured steps with replies cut at max_tokens (structured.counts)

    @property
    def outputs_truncated(self) -> int:
        return sum(c["truncated"] for c in (self.truncated or {}).values())

    def to_dict(self) -> dict:
        return {**asdict(self), "outputs_truncated": self.outputs_truncated, "judged_items": units.EVERY_ITEM}

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

    def errors_text(self) -> str | None:
        """`counted errors: judge_error 3000 (claude 1000, gpt4o-mini 1000, llama 1000)`, or None."""
        if not self.counted_errors:
            return None
        return "counted errors: " + "; ".join(
            f"{kind} {sum(by.values())} (" + ", ".join(f"{c} {n}" for c, n in by.items()) + ")"
            for kind, by in self.counted_errors.items())

    def judging_text(self) -> str:
        """Verdicts on blind items (`60 item-rubric pairs judged: …`), or, for a protocol whose judges are its
        runs (calibration), those runs' judge errors."""
        judge_runs = sum((self.counted_errors or {}).get(JUDGE_ERROR, {}).values())
        if judge_runs and not self.judged:
            return f"{judge_runs} judge errors in judge runs (no verdicts on blind items)"
        return units.judged_text(self.judged, self.judge_errors - judge_runs, items=units.EVERY_ITEM) + (
            f"; {judge_runs} judge errors in judge runs" if judge_runs else "")

    def truncated_text(self) -> str | None:
        """`outputs cut at max_tokens: B1 2/3, C1 1/3`, or None when no output was cut."""
        if not self.outputs_truncated:
            return None
        return "outputs cut at max_tokens: " + ", ".join(
            f"{c} {v['truncated']}/{v['outputs']}" for c, v in (self.truncated or {}).items())

    def cut_text(self) -> str:
        """`structured replies cut at max_tokens: 3 (crux cards 3); 2 asked again with …`, or "" when none was."""
        return cut_text(self.cut_replies or [])

    def calls_text(self) -> str:
        cost = cost_text(self.cost, self.cost_unknown_calls, priced=self.calls_made - self.cost_unknown_calls)
        cancelled = f", {self.calls_cancelled} cancelled in flight" if self.calls_cancelled else ""
        return (f"{self.calls_made} calls made ({self.calls_ok} ok, {self.calls_failed} failed{cancelled}), "
                f"{self.calls_replayed} replayed; {self.input_tokens} input + {self.output_tokens} output tokens, "
                f"{cost}; {self.judging_text()}")

    def text(self) -> str:
        """The lines every place prints: runs, calls, and the cut outputs when there are any."""
        extra = [line for line in (self.errors_text(), self.truncated_text(), self.cut_text(), self.lost.text())
                 if line]
        return "\n".join([self.runs_text(), self.calls_text(), *extra])


def status_text(status: str) -> str:
    """A run status as people read it (`done_with_errors` is stored, `done with errors` is shown)."""
    return status.replace("_", " ")


FINISHED = ("done", "done_with_errors")
JUDGE_ERROR = "judge_error"
_KIND = re.compile(r"([a-z_]+):")


def finished(runs: dict[str, int]) -> int:
    """Runs that ran to their end, with or without a counted error."""
    return sum(runs.get(s, 0) for s in FINISHED)


def runs_cell(runs: dict[str, int]) -> str:
    """`3000/3000 done (3000 with errors), 1 running`: a study's runs in one short cell."""
    head, *rest = runs_cell_parts(runs)
    if rest and rest[0].startswith("("):
        head += " " + rest.pop(0)
    return ", ".join([head, *rest])


def runs_cell_parts(runs: dict[str, int]) -> list[str]:
    """The cell's parts, `["3000/3000 done", "(3000 with errors)", "1 running"]`: the Studies list puts
    one a line, so a narrow column shows them whole."""
    total = sum(runs.values())
    if not total:
        return ["not run"]
    parts = [f"{finished(runs)}/{total} done"]
    if runs.get("done_with_errors"):
        parts.append(f"({runs['done_with_errors']} with errors)")
    return parts + [f"{runs[k]} {status_text(k)}" for k in ("running", "failed", "cancelled") if runs.get(k)]


def error_kind(error: str | None) -> str:
    """`judge_error` of `judge_error: the reply contained no valid JSON object`; `error` if it names none."""
    match = _KIND.match(error or "")
    return match.group(1) if match else "error"


def counted_errors(runs: list[dict]) -> dict[str, dict[str, int]]:
    """The runs `done_with_errors` by their counted error's kind, then by condition."""
    out: dict[str, dict[str, int]] = {}
    for r in runs:
        if r["status"] == "done_with_errors":
            by = out.setdefault(error_kind(r.get("error")), {})
            by[r["condition"]] = by.get(r["condition"], 0) + 1
    return out


def study_counts(db: sqlite_utils.Database, study_id: str) -> StudyCounts:
    spent = call_rows.spent(db, study_id=study_id)
    judged, errors = verdict_rows.current_verdict_pairs(db, study_id)
    errored = counted_errors(run_rows.list_runs(db, study_id))
    return StudyCounts(
        runs={k: v for k, v in run_rows.status_counts(db, study_id).items()},
        calls_made=spent["attempts"], calls_ok=spent["ok"], calls_failed=spent["attempts"] - spent["ok"],
        calls_replayed=spent["replayed"], input_tokens=spent["input_tokens"], output_tokens=spent["output_tokens"],
        cost=round(float(spent["cost"]), 6), cost_unknown_calls=spent["cost_unknown_calls"],
        judged=judged, judge_errors=errors + sum(errored.get(JUDGE_ERROR, {}).values()),
        calls_cancelled=spent["cancelled"], truncated=run_rows.truncated_counts(db, study_id),
        counted_errors=errored, lost=lost_calls(db, study_id),
        cut_replies=[c for c in parse_counts(db, study_id) if c.get(CUT)] or None)


def scores_by_source(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    """The study's score rows by where they came from: `tui` (typed at the scoring desk), `packet` (a rater's
    packet, a simulated rater's included)."""
    from store import scores as score_rows

    out: dict[str, int] = {}
    for row in score_rows.study_rows(db, study_id):
        out[row.get("source") or ""] = out.get(row.get("source") or "", 0) + 1
    return out
