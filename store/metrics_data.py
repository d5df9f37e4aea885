"""The reads that gather one study for the metrics, reports and exports, and the
concern-score writes of decision quality (DQ-3).

Blindness: the sealed key (`blind_key`) and anything that joins an item to its
run's condition is reached through `unblinded_key` only, and that function
refuses a study whose `unblinded_at` is NULL before it touches the key (which
it then reads through `store.blind.read_sealed_key`). The other reads
here are condition-free (items, scores, verdicts, audits without guesses), or
read runs without their condition when asked to (`study_runs(with_conditions=False)`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import sqlite_utils

from store.cases import now
from store.db import writer
from store.json_columns import decoded
from store.studies import with_status

_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit


class BlindedStudy(Exception):
    """A condition-revealing read was asked of a study that is still blinded."""


def _chunks(values: Sequence, size: int = _CHUNK) -> Iterable[Sequence]:
    for i in range(0, len(values), size):
        yield values[i:i + size]


def _marks(values: Sequence) -> str:
    return ", ".join("?" for _ in values)


def _rows_by_chunk(db: sqlite_utils.Database, ids: Sequence[str], sql: str) -> list[dict]:
    """The rows of `sql` for every chunk of `ids`, its `{marks}` the chunk's placeholders."""
    return [dict(r) for chunk in _chunks(ids) for r in db.query(sql.format(marks=_marks(chunk)), list(chunk))]


# --- studies ---------------------------------------------------------------------------------------

def study_list(db: sqlite_utils.Database) -> list[dict]:
    """Every study, newest first: id, name, protocol, frozen_at, unblinded_at, unblind_forced, and its
    status (store.studies.study_status)."""
    return [with_status(dict(r)) for r in db.query(
        "SELECT id, name, protocol, frozen_at, unblinded_at, unblind_forced FROM studies "
        "ORDER BY created_at DESC, id")]


def study_header(db: sqlite_utils.Database, study_id: str) -> dict | None:
    """The study row with its definition decoded, or None."""
    rows = list(db.query(
        "SELECT id, name, protocol, definition, created_at, frozen_at, freeze_hash, status, cost_ceiling, "
        "unblinded_at, unblinded_by, unblind_forced FROM studies WHERE id = ?", [study_id]))
    if not rows:
        return None
    row = dict(rows[0])
    row["definition"] = json.loads(row["definition"] or "{}")
    row["unblind_forced"] = bool(row["unblind_forced"])
    return with_status(row)


def unblinding_history(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT by, at, forced, reason FROM unblindings WHERE study_id = ? ORDER BY id", [study_id])]


def _require_unblinded(db: sqlite_utils.Database, study_id: str) -> None:
    row = db.execute("SELECT unblinded_at FROM studies WHERE id = ?", [study_id]).fetchone()
    if row is None:
        raise KeyError(study_id)
    if row[0] is None:
        raise BlindedStudy(f"study '{study_id}' is blinded: conditions stay hidden until it is unblinded")


# --- cases, rubrics, items -----------------------------------------------------------------------

def study_cases(db: sqlite_utils.Database, case_ids: Sequence[str]) -> list[dict]:
    """The metric-relevant columns of the named cases (those missing from the store are left out)."""
    ids = list(dict.fromkeys(case_ids))
    rows = _rows_by_chunk(db, ids, "SELECT id, title, type, domain, complexity, concern_domain, rubric FROM cases "
                                   "WHERE id IN ({marks})")
    return sorted(rows, key=lambda r: ids.index(r["id"]))


def rubric_definitions(db: sqlite_utils.Database, hashes: Sequence[str]) -> dict[str, dict]:
    """hash -> {rubric_id, name, definition (decoded)} for the rubric versions scores used."""
    out: dict[str, dict] = {}
    unique = list(dict.fromkeys(hashes))
    for chunk in _chunks(unique):
        for r in db.query(f"SELECT hash, rubric_id, name, definition FROM rubrics WHERE hash IN ({_marks(chunk)})",
                          list(chunk)):
            out[r["hash"]] = {"rubric_id": r["rubric_id"], "name": r["name"],
                              "definition": json.loads(r["definition"] or "{}")}
    return out


def latest_rubric_versions(db: sqlite_utils.Database, rubric_ids: Sequence[str]) -> dict[str, dict]:
    """rubric_id -> the most recently loaded version {hash, name, definition} (to label empty studies)."""
    out: dict[str, dict] = {}
    for rid in dict.fromkeys(rubric_ids):
        rows = list(db.query("SELECT hash, name, definition FROM rubrics WHERE rubric_id = ? "
                             "ORDER BY loaded_at DESC LIMIT 1", [rid]))
        if rows:
            out[rid] = {"hash": rows[0]["hash"], "name": rows[0]["name"],
                        "definition": json.loads(rows[0]["definition"] or "{}")}
    return out


def blind_items(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Condition-free item columns: id, case_id, pilot."""
    return [dict(r) for r in db.query(
        "SELECT id, case_id, pilot FROM blind_items WHERE study_id = ? ORDER BY id", [study_id])]


def unblinded_key(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Item -> run, condition, replicate. Refuses (BlindedStudy) unless the study is unblinded.

    The key itself is read by `store.blind.read_sealed_key`, the one reader of the sealed key; this
    function only adds the unblinding check before it and keeps the columns the metrics need.
    """
    from store.blind import read_sealed_key

    _require_unblinded(db, study_id)
    return [{k: r[k] for k in ("item_id", "run_id", "condition", "replicate")}
            for r in read_sealed_key(db, study_id)]


def study_raters(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT name, kind FROM raters WHERE study_id = ? ORDER BY kind, name", [study_id])]


# --- scores and verdicts -------------------------------------------------------------------------

def current_scores(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Each rater's current value of every cell they scored.

    The scores table is append-only. A cell (rater, item, rubric hash,
    criterion) holds the value of its latest `score` or `undo` row (an undo
    row carries the value the cell had before the score it reverses, NULL
    when there was none); `note` and `skip` rows never change a value. Cells
    whose current value is NULL (never scored, or the only score undone) are
    left out. `at` is the time of the row that set the value.
    """
    return [dict(r) for r in db.query(
        "SELECT s.id, s.rater, s.item_id, s.rubric_hash, s.criterion, s.value, s.action, s.source, s.at "
        "FROM scores s JOIN ("
        "  SELECT max(id) AS id FROM scores WHERE study_id = ? AND action IN ('score', 'undo') "
        "  GROUP BY rater, item_id, rubric_hash, criterion"
        ") last ON last.id = s.id WHERE s.value IS NOT NULL "
        "ORDER BY s.rater, s.item_id, s.rubric_hash, s.criterion", [study_id])]


def current_verdicts(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Each judge's current verdict per (item, rubric hash, criterion): its latest row, ok or judge_error."""
    return [dict(r) for r in db.query(
        "SELECT v.id, v.judge, v.model, v.item_id, v.rubric_hash, v.criterion, v.value, v.status, "
        "v.pipeline, v.confidence, v.at FROM verdicts v JOIN ("
        "  SELECT max(id) AS id FROM verdicts WHERE study_id = ? "
        "  GROUP BY judge, item_id, rubric_hash, criterion"
        ") last ON last.id = v.id ORDER BY v.judge, v.item_id, v.rubric_hash, v.criterion", [study_id])]


def judge_error_rows(db: sqlite_utils.Database, study_id: str) -> dict[str, int]:
    """judge -> every judge_error row ever written (retried cells included), for the error log count."""
    return {r["judge"]: r["n"] for r in db.query(
        "SELECT judge, count(*) AS n FROM verdicts WHERE study_id = ? AND status = 'judge_error' "
        "GROUP BY judge", [study_id])}


def blindness_audits(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Audit outcomes without the guesses (a guess names a condition): item_id, model, correct."""
    return [dict(r) for r in db.query(
        "SELECT item_id, model, correct, at FROM blindness_audits WHERE study_id = ? ORDER BY id", [study_id])]


# --- runs, transcripts, topology, probes ------------------------------------------------------------

def study_runs(db: sqlite_utils.Database, study_id: str, *, with_conditions: bool) -> list[dict]:
    """The study's runs: id, case_id, status (+ condition, replicate only when asked; refused while blinded)."""
    if with_conditions:
        _require_unblinded(db, study_id)
        cols = "id, case_id, status, condition, replicate"
    else:
        cols = "id, case_id, status"
    return [dict(r) for r in db.query(f"SELECT {cols} FROM runs WHERE study_id = ? ORDER BY id", [study_id])]


def perspective_events(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every `perspective` event of the study's runs: run_id, seq, agent, payload (decoded)."""
    return [decoded(r, "payload", empty="{}") for r in db.query(
        "SELECT e.run_id, e.seq, e.agent, e.payload FROM events e JOIN runs r ON r.id = e.run_id "
        "WHERE r.study_id = ? AND e.kind = 'perspective' ORDER BY e.run_id, e.seq", [study_id])]


def final_outputs(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """run_id -> final output text, for the study's finished runs."""
    return {r["run_id"]: r["text"] for r in db.query(
        "SELECT o.run_id, o.text FROM outputs o JOIN runs r ON r.id = o.run_id "
        "WHERE r.study_id = ? AND r.status IN ('done', 'done_with_errors') ORDER BY o.run_id", [study_id])}


def topology_rows(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """P1 topology classifications (condition-revealing: callers use it only for unblinded studies)."""
    _require_unblinded(db, study_id)
    out = [decoded(r, "detail", empty="{}") for r in db.query(
        "SELECT case_id, condition, pattern, switching_assumption, convergent_recommendation, detail "
        "FROM topology WHERE study_id = ? ORDER BY case_id, condition", [study_id])]
    # A person's latest review overrides the automatic coding (workbench/protocols/hindsight/topology_review.py).
    from store.topology_reviews import current_reviews

    for r in out:
        review = current_reviews(db, study_id).get((r["case_id"], r["condition"]))
        if review is not None:
            r.update(pattern=review["pattern"], switching_assumption=review["switching_assumption"],
                     automatic_pattern=r["pattern"], reviewed_by=review["reviewer"])
    return out


def latest_probes(db: sqlite_utils.Database, case_ids: Sequence[str]) -> list[dict]:
    """The latest contamination probe per (case, model): case_id, model, verdict, flagged, asked_at."""
    return _rows_by_chunk(db, list(dict.fromkeys(case_ids)),
                          "SELECT p.case_id, p.model, p.verdict, p.flagged, p.asked_at FROM probes p JOIN ("
                          "  SELECT max(id) AS id FROM probes WHERE case_id IN ({marks}) GROUP BY case_id, model"
                          ") last ON last.id = p.id ORDER BY p.case_id, p.model")


# --- concern scores (DQ-3) ------------------------------------------------------------------------

def current_concern_scores(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """The latest row per (run, concern, source, rater): run_id, concern, value (NULL = error), source,
    rater, raw, at. A model row with a NULL value is an assessment that failed, never a 0."""
    return [dict(r) for r in db.query(
        "SELECT c.id, c.run_id, c.concern, c.value, c.source, c.rater, c.raw, c.at FROM concern_scores c JOIN ("
        "  SELECT max(id) AS id FROM concern_scores WHERE study_id = ? "
        "  GROUP BY run_id, concern, source, coalesce(rater, '')"
        ") last ON last.id = c.id ORDER BY c.run_id, c.concern, c.source, c.rater", [study_id])]


def add_concern_scores(db: sqlite_utils.Database, study_id: str, rows: Sequence[dict]) -> int:
    """Append concern assessments [{run_id, concern, value, source, rater, raw}] in one transaction."""
    at = now()
    with writer(db):
        for row in rows:
            db["concern_scores"].insert({
                "study_id": study_id, "run_id": row["run_id"], "concern": row["concern"],
                "value": row.get("value"), "source": row["source"], "rater": row.get("rater"),
                "raw": row.get("raw"), "at": row.get("at") or at,
            })
    return len(rows)


def run_ids_of_study(db: sqlite_utils.Database, study_id: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT id FROM runs WHERE study_id = ?", [study_id]).fetchall()}
