"""`export table`: one tidy dataset per study, the same shape for every protocol.

Long-format CSV files (RFC 4180, UTF-8, a header row, empty cells for missing values) and a
`datapackage.json` (Frictionless Data Package with a Table Schema per file): each column's type, unit,
allowed values and meaning, the primary keys, and the foreign keys that join the tables on `study_id`,
`run_id`, `item_id`, `condition`, `rater` and `criterion`.

| table | one row per | when |
|---|---|---|
| runs | run (item × condition × replicate) | always |
| calls | call attempt, answers, errors and replays (no text unless `with_text`) | always |
| outputs | final output of a run | always |
| scores | current score of a rater or judge per item and criterion | once unblinded (studies with raters or judges) |
| measures | the protocol's own long-format measures (as `metrics STUDY --csv`) | once unblinded |

The per-protocol exports (calibration's joined CSV, faultline's debates, M11's export, hindsight's
`metrics --csv`) stay; each is a view of this dataset.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.exports.study_record import StudyRecord, criterion_names

RUN_STATUSES = ["pending", "running", "done", "done_with_errors", "failed", "cancelled", "interrupted"]
CALL_STATUSES = ["ok", "error", "replayed"]


@dataclass
class Column:
    name: str
    type: str                      # Table Schema: string | integer | number | boolean | datetime
    description: str
    unit: str | None = None
    enum: list | None = None
    required: bool = False


@dataclass
class Table:
    name: str
    description: str
    columns: list[Column]
    rows: list[dict] = field(default_factory=list)
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[tuple[list[str], str, list[str]]] = field(default_factory=list)


def _c(name, type_, description, **kw) -> Column:
    return Column(name, type_, description, **kw)


STUDY = _c("study_id", "string", "the study's id (its `name` in the study file)", required=True)
RUN = _c("run_id", "string", "the run: study/item/condition/replicate", required=True)
ITEM = _c("item_id", "string", "the protocol's item: a hindsight case, a faultline debate (topic × pair), an M11 "
                               "module output, a calibration interaction")
COND = _c("condition", "string", "the condition: a hindsight architecture (B1-C3, P1), a faultline architecture, "
                                 "an M11 pipeline, a calibration judge")


def runs_table(record: StudyRecord) -> Table:
    cols = [STUDY, RUN, ITEM, COND,
            _c("replicate", "integer", "replicate index (0-based)"),
            _c("status", "string", "the run's state", enum=RUN_STATUSES + _extra(record, "status", RUN_STATUSES)),
            _c("error", "string", "why the run failed or stopped; empty when done"),
            _c("attempts", "integer", "call attempts the run made (retries included)"),
            _c("started_at", "datetime", "when the run's latest attempt started (UTC, ISO 8601)"),
            _c("finished_at", "datetime", "when it finished (UTC, ISO 8601)"),
            _c("input_tokens", "integer", "prompt tokens of the run's calls", unit="tokens"),
            _c("output_tokens", "integer", "completion tokens of the run's calls", unit="tokens"),
            _c("cost", "number", "price of the run's calls with a known price", unit="USD"),
            _c("cost_unknown", "boolean", "some call of the run had no known price")]
    rows = [{"study_id": record.study["id"], "run_id": r.run["id"], "item_id": r.run["case_id"],
             "condition": r.run["condition"], "replicate": r.run["replicate"], "status": r.run["status"],
             "error": r.run.get("error"), "attempts": r.attempts, "started_at": r.run.get("started_at"),
             "finished_at": r.run.get("finished_at"), "input_tokens": r.run.get("input_tokens"),
             "output_tokens": r.run.get("output_tokens"), "cost": r.run.get("cost"),
             "cost_unknown": bool(r.run.get("cost_unknown"))} for r in record.runs]
    return Table("runs", "one row per run", cols, rows, primary_key=["run_id"])


def _extra(record: StudyRecord, key: str, known: list[str]) -> list[str]:
    """Statuses a newer store may hold that this list does not name yet (kept valid, not hidden)."""
    return sorted({r.run[key] for r in record.runs} - set(known))


def calls_table(db, record: StudyRecord, *, with_text: bool) -> Table:
    from store.calls import calls_for

    cols = [STUDY, _c("call_id", "integer", "the call's id in the store (and its line in the call log)", required=True),
            _c("run_id", "string", "the run the call belongs to; empty for calls outside runs (judges, probes)"),
            _c("turn", "string", "the program's turn (e.g. answer, respondent-1, synthesis)"),
            _c("agent", "string", "the speaker of a multi-agent turn"),
            _c("role", "string", "what the call is for", enum=None),
            _c("attempt", "integer", "attempt number of this call (1 = first; 0 = replayed)"),
            _c("model", "string", "the litellm model string"),
            _c("status", "string", "ok: answered; error: failed attempt; replayed: served from the call log",
               enum=CALL_STATUSES),
            _c("finish_reason", "string", "the provider's finish reason (length = cut at max_tokens)"),
            _c("input_tokens", "integer", "prompt tokens", unit="tokens"),
            _c("output_tokens", "integer", "completion tokens", unit="tokens"),
            _c("cost", "number", "price of this call (empty when unknown)", unit="USD"),
            _c("latency_ms", "number", "wall time of the attempt", unit="milliseconds"),
            _c("started_at", "datetime", "when the attempt started (UTC)")]
    if with_text:
        cols += [_c("request", "string", "the messages sent, as JSON"), _c("response", "string", "the reply text")]
    rows = []
    for c in calls_for(db, study_id=record.study["id"]):
        row = {col.name: c.get(col.name) for col in cols if col.name not in ("study_id", "call_id")}
        row.update(study_id=record.study["id"], call_id=c["id"])
        if with_text:
            row["request"] = c["request"] if isinstance(c["request"], str) else json.dumps(c["request"])
        rows.append(row)
    statuses = sorted({r["status"] for r in rows} - set(CALL_STATUSES))
    cols[8].enum = CALL_STATUSES + statuses
    return Table("calls", "one row per call attempt", cols, rows, primary_key=["call_id"],
                 foreign_keys=[(["run_id"], "runs", ["run_id"])])


def outputs_table(record: StudyRecord) -> Table:
    cols = [STUDY, RUN, ITEM, COND, _c("text", "string", "the run's final output, as the model wrote it"),
            _c("report", "string", "the common report shape extracted from it (JSON: recommendation, reasoning, "
                                   "risks, confidence), or the protocol's structured result")]
    rows = [{"study_id": record.study["id"], "run_id": r.run["id"], "item_id": r.run["case_id"],
             "condition": r.run["condition"], "text": r.output["text"],
             "report": json.dumps(r.output.get("report") or {}, ensure_ascii=False, sort_keys=True)}
            for r in record.runs if r.output]
    return Table("outputs", "one row per final output", cols, rows, primary_key=["run_id"],
                 foreign_keys=[(["run_id"], "runs", ["run_id"])])


def scores_table(db, record: StudyRecord) -> Table:
    run_of = {k["item_id"]: k for k in record.key}
    names = criterion_names(db, record.scores + record.verdicts)
    cols = [STUDY, _c("blind_item_id", "string", "the blind item raters and judges scored", required=True),
            _c("run_id", "string", "the run whose output the item is; empty for a pilot item (no run)"),
            ITEM, _c("condition", "string", "the run's condition; empty for a pilot item"),
            _c("pilot", "boolean", "a calibration pilot item, scored before the study's items"),
            _c("rater", "string", "the human rater's or LLM judge's name", required=True),
            _c("rater_kind", "string", "human rater or LLM judge", enum=["human", "judge"]),
            _c("model", "string", "the judge's model (empty for a human)"),
            _c("rubric", "string", "the rubric id"),
            _c("rubric_hash", "string", "the rubric version (sha256 of its file)"),
            _c("criterion", "string", "the rubric criterion", required=True),
            _c("value", "number", "the score on the criterion's scale (empty for a judge_error)", unit="rubric points"),
            _c("status", "string", "ok, or judge_error (kept, excluded from metrics)", enum=["ok", "judge_error"]),
            _c("at", "datetime", "when the current value was set (UTC)")]
    rows = []
    for kind, source in (("human", record.scores), ("judge", record.verdicts)):
        for r in source:
            key = run_of.get(r["item_id"], {})
            rows.append({"study_id": record.study["id"], "blind_item_id": r["item_id"], "run_id": key.get("run_id"),
                         "item_id": _item_of(record, key.get("run_id")), "condition": key.get("condition"),
                         "pilot": key.get("run_id") is None,
                         "rater": r.get("rater") or r.get("judge"), "rater_kind": kind, "model": r.get("model"),
                         "rubric": names.get(r["rubric_hash"]), "rubric_hash": r["rubric_hash"],
                         "criterion": r["criterion"], "value": r["value"], "status": r.get("status", "ok"),
                         "at": r["at"]})
    return Table("scores", "one row per current score (rater or judge × item × criterion)", cols, rows,
                 primary_key=["blind_item_id", "rater", "rubric_hash", "criterion"],
                 foreign_keys=[(["run_id"], "runs", ["run_id"])])


def _item_of(record: StudyRecord, run_id: str | None) -> str | None:
    for r in record.runs:
        if r.run["id"] == run_id:
            return r.run["case_id"]
    return None


def measures_table(record: StudyRecord, doc) -> Table | None:
    """The protocol's own long-format rows (`metrics --csv`); column types read off the values."""
    if doc is None or not doc.csv_columns:
        return None
    cols = []
    for name in doc.csv_columns:
        values = [r.get(name) for r in doc.csv_rows if r.get(name) not in (None, "")]
        cols.append(_c(name, _type_of(values), f"{record.protocol}: see `workbench --batch metrics STUDY --csv`"))
    rows = [dict(r) for r in doc.csv_rows]
    fks = [(["run_id"], "runs", ["run_id"])] if "run_id" in doc.csv_columns else []
    return Table("measures", f"the {record.protocol} protocol's own measures, long format", cols, rows,
                 foreign_keys=fks)


def _type_of(values: list) -> str:
    if values and all(isinstance(v, bool) for v in values):
        return "boolean"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "number"
    return "string"


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def _schema(table: Table) -> dict:
    fields = []
    for c in table.columns:
        f: dict[str, Any] = {"name": c.name, "type": c.type, "description": c.description}
        if c.type == "boolean":
            f["trueValues"], f["falseValues"] = ["true"], ["false"]
        if c.unit:
            f["unit"] = c.unit
        constraints = {}
        if c.enum:
            constraints["enum"] = c.enum
        if c.required:
            constraints["required"] = True
        if constraints:
            f["constraints"] = constraints
        fields.append(f)
    schema: dict[str, Any] = {"fields": fields, "missingValues": [""]}
    if table.primary_key:
        schema["primaryKey"] = table.primary_key
    if table.foreign_keys:
        schema["foreignKeys"] = [{"fields": f, "reference": {"resource": res, "fields": ref}}
                                 for f, res, ref in table.foreign_keys]
    return schema


def write_tables(tables: list[Table], record: StudyRecord, folder: Path) -> list[Path]:
    """Each table as `<name>.csv` and the package descriptor, into `folder` (written whole by the caller)."""
    paths = []
    resources = []
    for t in tables:
        path = folder / f"{t.name}.csv"
        names = [c.name for c in t.columns]
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=names, extrasaction="ignore", lineterminator="\r\n")
            writer.writeheader()
            for row in t.rows:
                writer.writerow({k: _cell(row.get(k)) for k in names})
        paths.append(path)
        resources.append({"name": t.name, "path": path.name, "profile": "tabular-data-resource", "format": "csv",
                          "mediatype": "text/csv", "encoding": "utf-8", "description": t.description,
                          "schema": _schema(t)})
    from workbench.simmodel.label import BANNER, LABEL

    mark = f" ({LABEL})" if simulated(record) else ""
    package = {"profile": "tabular-data-package", "name": record.study["id"],
               "title": f"{record.study['id']} ({record.protocol}){mark}",
               "description": "Exported by Hindsight Workbench `export table`; every column is documented in "
                              "its resource's schema.",
               "version": str(record.provenance["workbench_version"]), "created": _now(),
               "workbench": record.provenance, "resources": resources}
    if mark:
        package = {"simulated": True, "simulated_banner": f"{LABEL}: {BANNER}", **package}
    descriptor = folder / "datapackage.json"
    descriptor.write_text(json.dumps(package, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return paths + [descriptor]


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def study_tables(db, record: StudyRecord, *, with_text: bool, measures) -> list[Table]:
    tables = [runs_table(record), calls_table(db, record, with_text=with_text), outputs_table(record)]
    if record.key or record.scores or record.verdicts:
        tables.append(scores_table(db, record))
    extra = measures_table(record, measures)
    if extra is not None:
        tables.append(extra)
    return [label_simulated(t) for t in tables] if simulated(record) else tables


def simulated(record: StudyRecord) -> bool:
    from workbench.simmodel.label import is_simulated

    return is_simulated(record.study["definition"])


def label_simulated(table: Table) -> Table:
    """A table of a study on `sim`: every row carries the label in its first column (`simulated`), so that no
    row read alone passes for a model's answer or a person's score."""
    from workbench.simmodel.label import BANNER, LABEL

    column = _c("simulated", "string", f"{LABEL}: {BANNER}", enum=[LABEL], required=True)
    return Table(table.name, f"{LABEL}. {table.description}", [column, *table.columns],
                 [{"simulated": LABEL, **row} for row in table.rows], table.primary_key, table.foreign_keys)
