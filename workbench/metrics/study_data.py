"""One study as plain data: what the pure table, agreement and DQ functions consume.

`load_study_data(db, study_id)` is the only place that reads the store for an
analysis (through `store.metrics_data`). Everything downstream works on the
returned :class:`StudyData` and never sees SQL, so tests and benchmarks can
build a StudyData by hand.

Blindness: for a study whose ``unblinded_at`` is NULL the sealed key is never
read -- items carry no run, condition or replicate, runs carry no condition,
topology is not loaded and blindness audits come without their guesses.
``StudyData.blinded`` tells every consumer to stay condition-free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Seed 000 §V: the conditions in table order, with the seed's names.
CONDITION_ORDER = ("B1", "B2", "B3", "C1", "C2", "C3", "P1")
CONDITION_LABELS = {
    "B1": "Single LLM", "B2": "Chain-of-thought", "B3": "Multi-perspective",
    "C1": "Hub-and-spoke", "C2": "Peer-agent committee", "C3": "Deliberated choice",
    "P1": "3 x C2 probe",
}
# Table 1 and Table 3 rows (seed §XII); P1 is reported apart (see hindsight_tables).
TABLE_CONDITIONS = ("B1", "B2", "B3", "C1", "C2", "C3")
DEFAULT_THRESHOLDS = {"kappa_anticipation": 0.70, "kappa_epistemic_humility": 0.65, "alpha_judges": 0.5}


@dataclass(frozen=True)
class CriterionInfo:
    id: str
    name: str
    min: int
    max: int


@dataclass(frozen=True)
class RubricInfo:
    """One rubric version (by content hash)."""

    hash: str
    rubric_id: str
    name: str
    composite: str                      # "sum" | "none"
    criteria: tuple[CriterionInfo, ...]

    @property
    def scale(self) -> tuple[int, int]:
        """(min, max) of the metric this rubric yields: the one criterion, or the sum of all."""
        return sum(c.min for c in self.criteria), sum(c.max for c in self.criteria)

    def criterion(self, criterion_id: str) -> CriterionInfo | None:
        return next((c for c in self.criteria if c.id == criterion_id), None)


@dataclass(frozen=True)
class CaseInfo:
    id: str
    title: str
    type: str
    complexity: str | None
    concern_domain: str | None
    rubric: str | None


@dataclass(frozen=True)
class Item:
    """A blind item. run_id / condition / replicate are None while the study is blinded."""

    id: str
    case_id: str
    pilot: bool
    run_id: str | None = None
    condition: str | None = None
    replicate: int | None = None


@dataclass(frozen=True)
class Rating:
    """A current human score or judge verdict of one criterion of one item."""

    kind: str                 # "human" | "judge"
    evaluator: str            # rater or judge name
    item_id: str
    rubric_id: str
    rubric_hash: str
    criterion: str
    value: float | None       # None only for a judge_error
    status: str               # "ok" | "judge_error"
    at: str
    model: str | None = None  # the judge's model
    row_id: int = 0


@dataclass(frozen=True)
class RunInfo:
    id: str
    case_id: str
    status: str
    condition: str | None = None
    replicate: int | None = None


@dataclass(frozen=True)
class Perspective:
    run_id: str
    seq: int
    text: str
    order: int
    parallel: bool
    agent: str | None = None


@dataclass(frozen=True)
class ConcernScore:
    run_id: str
    concern: str
    value: float | None       # None: the model's assessment failed (unassessed, never 0)
    source: str               # "model" | "rater"
    rater: str | None
    at: str


@dataclass(frozen=True)
class AuditRow:
    item_id: str
    model: str
    correct: bool | None


@dataclass(frozen=True)
class TopologyRow:
    case_id: str
    condition: str
    pattern: str
    switching_assumption: str | None
    convergent_recommendation: str | None


@dataclass(frozen=True)
class ProbeRow:
    case_id: str
    model: str
    verdict: str
    flagged: bool
    asked_at: str


@dataclass
class StudyData:
    study_id: str
    name: str
    protocol: str
    definition: Mapping[str, Any]
    blinded: bool
    forced: bool = False
    frozen_at: str | None = None
    freeze_hash: str | None = None
    unblinded_at: str | None = None
    unblinded_by: str | None = None
    status: str = ""  # the study's status in words (store.studies.status_text), as `study list` says it
    cases: dict[str, CaseInfo] = field(default_factory=dict)
    items: dict[str, Item] = field(default_factory=dict)
    rubrics: dict[str, RubricInfo] = field(default_factory=dict)          # by hash
    scores: list[Rating] = field(default_factory=list)
    verdicts: list[Rating] = field(default_factory=list)
    judge_error_rows: dict[str, int] = field(default_factory=dict)
    audits: list[AuditRow] = field(default_factory=list)
    topology: list[TopologyRow] = field(default_factory=list)
    probes: list[ProbeRow] = field(default_factory=list)
    runs: dict[str, RunInfo] = field(default_factory=dict)
    perspectives: list[Perspective] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    concern_scores: list[ConcernScore] = field(default_factory=list)

    # --- what the definition says -------------------------------------------------------------
    @property
    def conditions(self) -> tuple[str, ...]:
        """The study's conditions in table order (seed §V first, any others after)."""
        named = list(self.definition.get("conditions") or [])
        known = [c for c in CONDITION_ORDER if c in named]
        return tuple(known + [c for c in named if c not in CONDITION_ORDER])

    @property
    def thresholds(self) -> dict[str, float]:
        return {**DEFAULT_THRESHOLDS, **dict(self.definition.get("thresholds") or {})}

    @property
    def raters(self) -> tuple[str, ...]:
        named = list(self.definition.get("raters") or [])
        seen = sorted({s.evaluator for s in self.scores} - set(named))
        return tuple(named + seen)

    @property
    def judges(self) -> tuple[str, ...]:
        named = [j.get("name") for j in self.definition.get("judges") or [] if j.get("name")]
        seen = sorted({v.evaluator for v in self.verdicts} - set(named))
        return tuple(named + seen)

    @property
    def custom_concerns(self) -> tuple[str, ...]:
        """`[metrics] custom_concerns = [...]` in the study definition (seed 001 §2.3 edge case)."""
        metrics = self.definition.get("metrics") or {}
        return tuple(str(c) for c in metrics.get("custom_concerns") or [])

    def rubric_versions(self, rubric_id: str) -> list[RubricInfo]:
        return [r for r in self.rubrics.values() if r.rubric_id == rubric_id]

    def rubric(self, rubric_id: str) -> RubricInfo | None:
        versions = self.rubric_versions(rubric_id)
        return versions[0] if versions else None

    def scored_rubric_ids(self) -> list[str]:
        """Rubric ids that have at least one human score or judge verdict, in a stable order."""
        used = {r.rubric_id for r in self.scores} | {r.rubric_id for r in self.verdicts}
        order = list(self.definition.get("rubrics") or [])
        order += [c.rubric for c in self.cases.values() if c.rubric and c.rubric not in order]
        return [r for r in order if r in used] + sorted(used - set(order))

    def study_items(self) -> list[Item]:
        """Non-pilot items: the ones the study's metrics are about (pilots only calibrate raters)."""
        return [i for i in self.items.values() if not i.pilot]


def _rubric_info(hash_: str, row: Mapping[str, Any]) -> RubricInfo:
    d = row.get("definition") or {}
    criteria = tuple(CriterionInfo(str(c["id"]), str(c.get("name", c["id"])), int(c["min"]), int(c["max"]))
                     for c in d.get("criteria", []))
    return RubricInfo(hash=hash_, rubric_id=row["rubric_id"], name=row.get("name") or row["rubric_id"],
                      composite=d.get("composite", "sum"), criteria=criteria)


def load_study_data(db, study_id: str) -> StudyData:
    """Gather one study for analysis. Raises KeyError for an unknown study."""
    from store import metrics_data as q

    header = q.study_header(db, study_id)
    if header is None:
        raise KeyError(f"no study '{study_id}' in the store")
    blinded = header["unblinded_at"] is None
    definition = header["definition"]
    data = StudyData(
        study_id=header["id"], name=header["name"], protocol=header["protocol"], definition=definition,
        blinded=blinded, forced=bool(header["unblind_forced"]) and not blinded,
        frozen_at=header["frozen_at"], freeze_hash=header["freeze_hash"],
        unblinded_at=header["unblinded_at"], unblinded_by=header["unblinded_by"], status=header["status_text"])

    key = {} if blinded else {k["item_id"]: k for k in q.unblinded_key(db, study_id)}
    for row in q.blind_items(db, study_id):
        k = key.get(row["id"], {})
        data.items[row["id"]] = Item(row["id"], row["case_id"], bool(row["pilot"]), k.get("run_id"),
                                     k.get("condition"), k.get("replicate"))

    case_ids = list(definition.get("cases") or []) + sorted({i.case_id for i in data.items.values()})
    for c in q.study_cases(db, case_ids):
        data.cases[c["id"]] = CaseInfo(c["id"], c["title"], c["type"], c["complexity"], c["concern_domain"],
                                       c["rubric"])

    scores = q.current_scores(db, study_id)
    verdicts = q.current_verdicts(db, study_id)
    hashes = [r["rubric_hash"] for r in scores] + [r["rubric_hash"] for r in verdicts]
    for h, row in q.rubric_definitions(db, hashes).items():
        data.rubrics[h] = _rubric_info(h, row)
    # Rubrics named by the study but not scored yet still label their (empty) tables.
    named = list(definition.get("rubrics") or []) + [c.rubric for c in data.cases.values() if c.rubric]
    have = {r.rubric_id for r in data.rubrics.values()}
    for rid, row in q.latest_rubric_versions(db, [r for r in named if r not in have]).items():
        data.rubrics[row["hash"]] = _rubric_info(row["hash"], {**row, "rubric_id": rid})

    def rubric_id(h: str) -> str:
        return data.rubrics[h].rubric_id if h in data.rubrics else f"unknown:{h[:12]}"

    data.scores = [Rating("human", r["rater"], r["item_id"], rubric_id(r["rubric_hash"]), r["rubric_hash"],
                          r["criterion"], float(r["value"]), "ok", r["at"], None, r["id"])
                   for r in scores if r["item_id"] in data.items]
    data.verdicts = [Rating("judge", r["judge"], r["item_id"], rubric_id(r["rubric_hash"]), r["rubric_hash"],
                            r["criterion"], None if r["value"] is None or r["status"] != "ok" else float(r["value"]),
                            "ok" if r["status"] == "ok" else "judge_error", r["at"], r["model"], r["id"])
                     for r in verdicts if r["item_id"] in data.items]
    data.judge_error_rows = q.judge_error_rows(db, study_id)
    data.audits = [AuditRow(a["item_id"], a["model"], None if a["correct"] is None else bool(a["correct"]))
                   for a in q.blindness_audits(db, study_id)]
    if not blinded:
        data.topology = [TopologyRow(t["case_id"], t["condition"], t["pattern"], t["switching_assumption"],
                                     t["convergent_recommendation"]) for t in q.topology_rows(db, study_id)]
    data.probes = [ProbeRow(p["case_id"], p["model"], p["verdict"], bool(p["flagged"]), p["asked_at"])
                   for p in q.latest_probes(db, list(data.cases))]
    for r in q.study_runs(db, study_id, with_conditions=not blinded):
        data.runs[r["id"]] = RunInfo(r["id"], r["case_id"], r["status"], r.get("condition"), r.get("replicate"))
    for e in q.perspective_events(db, study_id):
        p = e["payload"]
        text = str(p.get("text") or "").strip()
        if not text:
            continue
        data.perspectives.append(Perspective(e["run_id"], int(e["seq"]), text, int(p.get("order") or 1),
                                             bool(p.get("parallel", False)), e.get("agent")))
    data.outputs = q.final_outputs(db, study_id)
    data.concern_scores = [ConcernScore(c["run_id"], c["concern"], c["value"], c["source"], c["rater"], c["at"])
                           for c in q.current_concern_scores(db, study_id)]
    return data


def condition_sort_key(condition: str) -> tuple[int, str]:
    return (CONDITION_ORDER.index(condition) if condition in CONDITION_ORDER else len(CONDITION_ORDER), condition)


def sorted_conditions(conditions: Sequence[str]) -> list[str]:
    return sorted(set(conditions), key=condition_sort_key)


def study_list(db) -> list[dict]:
    """The studies the Metrics section offers: id, protocol, unblinding state and the study's status."""
    from store.metrics_data import study_list as rows

    return rows(db)
