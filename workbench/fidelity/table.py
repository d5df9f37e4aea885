"""The fidelity table's layout, shared by every protocol: one row per condition, its defining step, the
finished runs in which it happened out of the condition's finished runs, the readings an instrument flagged,
and what happened instead, counted by note. `metrics` (text, --json, --fidelity --csv), the report and a
screen show the same cells (one `rendered` table)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from workbench.metrics.render import RenderedTable, to_markdown, to_text
from workbench.protocol.base import TreatmentReading

from .policy import KEY, MARK, sentence
CSV_COLUMNS = ("condition", "step", "delivered", "runs", "flagged", "detail")


@dataclass(frozen=True)
class FidelityRow:
    condition: str
    step: str
    delivered: int
    runs: int
    flagged: int
    notes: tuple[tuple[str, int], ...]  # each note and how many runs it describes, most frequent first

    @property
    def happened(self) -> str:
        return f"{self.delivered} of {self.runs}"

    @property
    def detail(self) -> str:
        return "; ".join(f"{note} ({n} run{'s' if n > 1 else ''})" for note, n in self.notes)

    def to_dict(self) -> dict:
        return {"condition": self.condition, "step": self.step, "delivered": self.delivered, "runs": self.runs,
                "flagged": self.flagged, "detail": self.detail, "notes": {n: c for n, c in self.notes}}


BLINDED_CONDITION = "all conditions (hidden until unblinding)"


@dataclass
class FidelityTable:
    """`blinded`: the study is not unblinded yet, so what it prints (`shown_rows`, `to_dict`, the renderings)
    names no condition, no run and no condition's words: one line over all runs. `rows` and `undelivered` stay
    whole for the core (the run-end line, a researcher's `study show`)."""

    policy: str
    rows: list[FidelityRow]
    readings: list[TreatmentReading] = field(default_factory=list)
    blinded: bool = False

    @property
    def shown_rows(self) -> list[FidelityRow]:
        if not self.blinded:
            return self.rows
        return [FidelityRow(BLINDED_CONDITION, "each condition's own", sum(r.delivered for r in self.rows),
                            sum(r.runs for r in self.rows), sum(r.flagged for r in self.rows), ())]

    @property
    def undelivered(self) -> dict[str, TreatmentReading]:
        """run id → its reading, for every run whose defining step did not happen."""
        return {r.run_id: r for r in self.readings if not r.delivered}

    def row(self, condition: str) -> FidelityRow | None:
        return next((r for r in self.rows if r.condition == condition), None)

    def to_dict(self) -> dict:
        return {KEY: self.policy, "blinded": self.blinded, "rows": [r.to_dict() for r in self.shown_rows],
                "undelivered_runs": [] if self.blinded else [
                    {"run_id": r.run_id, "condition": r.condition, "note": r.note, "flagged": r.flagged}
                    for r in self.readings if not r.delivered]}

    def csv_rows(self) -> list[dict]:
        return [{"condition": r.condition, "step": r.step, "delivered": str(r.delivered), "runs": str(r.runs),
                 "flagged": str(r.flagged), "detail": r.detail} for r in self.shown_rows]

    def rendered(self) -> RenderedTable:
        out = RenderedTable("fidelity", "Treatment fidelity - did each condition's defining step happen",
                            ["Condition", "Defining step", "Happened in (runs)", "Flagged", "Detail"],
                            [[r.condition, r.step, r.happened, str(r.flagged), r.detail or "-"]
                             for r in self.shown_rows])
        out.notes = ["Runs: the condition's finished runs (done, done with errors). Flagged: runs whose reading "
                     "stands on an instrument that was unsure.", sentence(self.policy)]
        if self.blinded:
            out.notes.insert(0, "The study is blinded: one line over every condition's runs; per condition once "
                                "it is unblinded.")
        return out

    def text(self) -> str:
        return to_text(self.rendered(), max_width=70)

    def markdown(self) -> str:
        return to_markdown(self.rendered(), heading="##")

    def short(self) -> str:
        """One line for `study show`: only the conditions whose step did not always happen, or all is well."""
        short = [f"{r.condition} in {r.happened} runs" for r in self.rows if r.delivered < r.runs]
        if not any(r.runs for r in self.rows):
            return "no finished runs yet"
        return ("defining step happened: " + ", ".join(short)) if short else "every defining step happened"


def build(steps: dict[str, str], readings: list[TreatmentReading], policy: str, *,
          blinded: bool = False) -> FidelityTable:
    """The table of `readings` in the order of `steps` (the study's conditions)."""
    rows = []
    for cond, step in steps.items():
        mine = [r for r in readings if r.condition == cond]
        notes = Counter(r.note for r in mine if r.note)
        rows.append(FidelityRow(cond, step, sum(r.delivered for r in mine), len(mine), sum(r.flagged for r in mine),
                                tuple(sorted(notes.items(), key=lambda kv: (-kv[1], kv[0])))))
    return FidelityTable(policy, rows, list(readings), blinded)


def marked(cell: str) -> str:
    """A cell that stands on at least one run whose defining step did not happen."""
    return f"{cell} {MARK}"


def mark_note(undelivered: dict[str, TreatmentReading], run_ids) -> str:
    """The note a table with marked cells carries: how many of its runs, and what happened in them."""
    mine = [undelivered[r] for r in sorted(set(run_ids)) if r in undelivered]
    what = Counter(f"{r.condition}: {r.note}" for r in mine)
    return (f"{MARK} stands on {len(mine)} run(s) whose defining step did not happen ("
            + "; ".join(f"{k} x{n}" for k, n in sorted(what.items())) + "): see the treatment fidelity table.")
