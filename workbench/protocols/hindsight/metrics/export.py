"""The long-format CSV of every score and verdict, for R or pandas.

One row per evaluator (human rater or LLM judge) x item x rubric criterion:
the evaluator's current value of that cell (humans: the latest score or undo
row with a value; judges: the latest verdict, ok or judge_error). Columns:

    study, evaluator_kind, evaluator, judge_model, item_id, case_id, pilot,
    condition, replicate, rubric_id, rubric_hash, criterion, value, status, timestamp, unblinding

``condition`` and ``replicate`` are filled only once the study is unblinded
(the columns are always present, so a script reads every export the same
way). ``value`` is empty for a judge_error. ``status`` is ok | judge_error.
``unblinding`` is blinded | unblinded | forced (a forced unblinding marks
every row, as it marks every table).
"""

from __future__ import annotations

import csv
import io
from typing import IO

from .study_data import StudyData

CSV_COLUMNS = ("study", "evaluator_kind", "evaluator", "judge_model", "item_id", "case_id", "pilot", "condition",
               "replicate", "rubric_id", "rubric_hash", "criterion", "value", "status", "timestamp", "unblinding")


def _value(v: float | None) -> str:
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def long_rows(data: StudyData) -> list[dict[str, str]]:
    unblinding = "blinded" if data.blinded else ("forced" if data.forced else "unblinded")
    rows = []
    for r in sorted(data.scores + data.verdicts, key=lambda r: (r.kind != "human", r.evaluator, r.item_id,
                                                                 r.rubric_id, r.criterion)):
        item = data.items[r.item_id]
        rows.append({
            "study": data.study_id, "evaluator_kind": r.kind, "evaluator": r.evaluator,
            "judge_model": r.model or "", "item_id": r.item_id, "case_id": item.case_id,
            "pilot": "1" if item.pilot else "0",
            "condition": "" if data.blinded else (item.condition or ""),
            "replicate": "" if data.blinded or item.replicate is None else str(item.replicate),
            "rubric_id": r.rubric_id, "rubric_hash": r.rubric_hash, "criterion": r.criterion,
            "value": _value(r.value), "status": r.status, "timestamp": r.at, "unblinding": unblinding,
        })
    return rows


def write_csv(data: StudyData, out: IO[str]) -> int:
    """Write the long-format CSV; returns the number of data rows."""
    rows = long_rows(data)
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return len(rows)


def csv_text(data: StudyData) -> str:
    buf = io.StringIO()
    write_csv(data, buf)
    return buf.getvalue()
