"""One study as the exports see it: runs with their turns and final outputs, scores and verdicts, and the
provenance (freeze hash, call-log head, tool version). Blinding is decided here, once."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlite_utils

import workbench
from store import blind as blind_rows
from store import calls as call_rows
from store import metrics_data as md
from store import outputs as output_rows
from store import runs as run_rows
from workbench.gateway.logcheck import current_head


class ExportRefused(Exception):
    """The export would reveal what blinding hides."""


@dataclass
class Turn:
    """One model call that the run kept (its last attempt: an answer or a replay of one)."""

    call_id: int
    turn: str | None
    agent: str | None
    role: str | None
    model: str
    messages: list[dict]
    response: str
    finish_reason: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    latency_ms: float | None
    status: str


@dataclass
class RunRecord:
    run: dict
    turns: list[Turn]
    output: dict | None
    attempts: int


@dataclass
class StudyRecord:
    study: dict
    protocol: str
    unblinded: bool
    provenance: dict
    runs: list[RunRecord] = field(default_factory=list)
    key: list[dict] = field(default_factory=list)           # item -> run, condition (after unblinding)
    scores: list[dict] = field(default_factory=list)        # human, current values (after unblinding)
    verdicts: list[dict] = field(default_factory=list)      # judges, current rows (after unblinding)
    blind_items: list[dict] = field(default_factory=list)   # id, case_id, pilot, text


def has_blinding(db: sqlite_utils.Database, study: dict) -> bool:
    """A study whose outputs go to raters or judges blind (its protocol says so), or already went."""
    from workbench.protocol.registry import protocol_of

    return protocol_of(study["definition"]).blinds_outputs(study["definition"]) or \
        bool(md.blind_items(db, study["id"]))


def provenance(db: sqlite_utils.Database, study: dict) -> dict:
    lines, head = current_head(db, study["id"])
    return {"freeze_hash": study.get("freeze_hash"), "call_log_lines": lines, "call_log_head": head,
            "workbench_version": workbench.__version__, "protocol": study["protocol"]}


def _turns(calls: list[dict]) -> list[Turn]:
    kept = [c for c in calls if c["status"] in ("ok", "replayed")]
    out = []
    for c in kept:
        messages = c["request"]
        if isinstance(messages, str):
            messages = json.loads(messages)
        out.append(Turn(call_id=c["id"], turn=c.get("turn"), agent=c.get("agent"), role=c.get("role"),
                        model=c["model"], messages=messages, response=c.get("response") or "",
                        finish_reason=c.get("finish_reason"), input_tokens=c.get("input_tokens"),
                        output_tokens=c.get("output_tokens"), cost=c.get("cost"), latency_ms=c.get("latency_ms"),
                        status=c["status"]))
    return out


def load(db: sqlite_utils.Database, study_id: str, *, blind: bool = False) -> StudyRecord:
    """The study for export. A study with sealed outputs that is still blind is refused unless `blind`,
    which keeps only the blind items (opaque ids and the scrubbed text raters read)."""
    study = md.study_header(db, study_id)
    if study is None:
        raise KeyError(f"no study named '{study_id}' in this store")
    unblinded = bool(study["unblinded_at"]) or not has_blinding(db, study)
    record = StudyRecord(study=study, protocol=study["protocol"], unblinded=unblinded and not blind,
                         provenance=provenance(db, study))
    if blind:
        record.blind_items = blind_rows.blind_items(db, study_id)
        return record
    if not unblinded:
        raise ExportRefused(
            f"study '{study_id}' is still blind: this export names conditions, models and raters. Unblind it "
            f"first (`workbench --batch unblind {study_id}`), or export the blind items only with --blind")
    calls = call_rows.calls_for(db, study_id=study_id)
    by_run: dict[str, list[dict]] = {}
    for c in calls:
        by_run.setdefault(c["run_id"], []).append(c)
    outputs = {o["run_id"]: o for o in output_rows.outputs_for_study(db, study_id)}
    for run in run_rows.list_runs(db, study_id):
        run_calls = by_run.get(run["id"], [])
        record.runs.append(RunRecord(run=run, turns=_turns(run_calls), output=outputs.get(run["id"]),
                                     attempts=len(run_calls)))
    if md.blind_items(db, study_id):
        record.key = md.unblinded_key(db, study_id)
        record.scores = md.current_scores(db, study_id)
        record.verdicts = md.current_verdicts(db, study_id)
    return record


def criterion_names(db: sqlite_utils.Database, rows: list[dict]) -> dict[str, str]:
    """rubric hash -> rubric id, for naming a score `rubric/criterion`."""
    return {h: d["rubric_id"] for h, d in md.rubric_definitions(db, [r["rubric_hash"] for r in rows]).items()}
