"""One study's blind items, rubrics, human scores and judge verdicts as plain data, for any protocol.

`load_ratings(db, study_id)` reads them through `store.metrics_data`; everything downstream (the
agreement statistics, adjudication, a protocol's own tables) works on the returned
:class:`StudyRatings` and never sees SQL, so tests can build one by hand. A protocol whose analysis
needs more (its cases, its runs' by-products) subclasses StudyRatings and fills the rest itself:
`start` reads the study and its items, `fill_ratings` the rest of what is here.

Evaluator quality control (`workbench/evaluators/`) is applied here, once for every protocol: planted
gold and attention items never become items (so none of their scores or verdicts enters a table); an
evaluator a recorded decision excludes (`evaluators.exclusions`) leaves `scores`/`verdicts` and the
`raters`/`judges` lists (named in `excluded`); and where the study pre-registered corrected verdicts
(`[quality] verdicts = "corrected"`), a verdict a blind review corrected carries the corrected value.

Blindness: for a study whose ``unblinded_at`` is NULL the sealed key is never read -- items carry
no run, condition or replicate, runs carry no condition, and blindness audits come without their
guesses. ``StudyRatings.blinded`` tells every consumer to stay condition-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from store.quality import planted_kinds
from workbench.evaluators.exclusions import excluded
from workbench.evaluators.review import corrections


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
class Item:
    """A blind item. run_id / condition / replicate are None while the study is blinded. `case_id`: the
    unit the item shows (the store's name for it, whatever the protocol calls its items)."""

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
class AuditRow:
    item_id: str
    model: str
    correct: bool | None


@dataclass
class StudyRatings:
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
    items: dict[str, Item] = field(default_factory=dict)
    rubrics: dict[str, RubricInfo] = field(default_factory=dict)          # by hash
    scores: list[Rating] = field(default_factory=list)
    verdicts: list[Rating] = field(default_factory=list)
    judge_error_rows: dict[str, int] = field(default_factory=dict)
    audits: list[AuditRow] = field(default_factory=list)
    runs: dict[str, RunInfo] = field(default_factory=dict)
    excluded: dict[str, str] = field(default_factory=dict)   # evaluator -> kind, left out by a recorded decision
    planted_items: int = 0                                   # gold and attention items, never in a table

    # --- what the definition says -------------------------------------------------------------
    @property
    def conditions(self) -> tuple[str, ...]:
        """The study's conditions in the study file's order."""
        return tuple(self.definition.get("conditions") or [])

    @property
    def thresholds(self) -> dict[str, float]:
        return dict(self.definition.get("thresholds") or {})

    @property
    def raters(self) -> tuple[str, ...]:
        named = [r for r in self.definition.get("raters") or [] if self.excluded.get(r) != "human"]
        seen = sorted({s.evaluator for s in self.scores} - set(named))
        return tuple(named + seen)

    @property
    def judges(self) -> tuple[str, ...]:
        named = [j.get("name") for j in self.definition.get("judges") or []
                 if j.get("name") and self.excluded.get(j.get("name")) != "judge"]
        seen = sorted({v.evaluator for v in self.verdicts} - set(named))
        return tuple(named + seen)

    def named_rubric_ids(self) -> list[str]:
        """The rubrics the study scores, in order: its `rubrics` (a protocol may add its items' own)."""
        return list(self.definition.get("rubrics") or [])

    def rubric_versions(self, rubric_id: str) -> list[RubricInfo]:
        return [r for r in self.rubrics.values() if r.rubric_id == rubric_id]

    def rubric(self, rubric_id: str) -> RubricInfo | None:
        versions = self.rubric_versions(rubric_id)
        return versions[0] if versions else None

    def scored_rubric_ids(self) -> list[str]:
        """Rubric ids that have at least one human score or judge verdict, in a stable order."""
        used = {r.rubric_id for r in self.scores} | {r.rubric_id for r in self.verdicts}
        order = self.named_rubric_ids()
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


R = TypeVar("R", bound=StudyRatings)


def start(db, study_id: str, cls: type[R] = StudyRatings) -> R:
    """The study's header and its blind items (with the sealed key once unblinded). KeyError: no such study."""
    from store import metrics_data as q

    header = q.study_header(db, study_id)
    if header is None:
        raise KeyError(f"no study '{study_id}' in the store")
    blinded = header["unblinded_at"] is None
    data = cls(
        study_id=header["id"], name=header["name"], protocol=header["protocol"], definition=header["definition"],
        blinded=blinded, forced=bool(header["unblind_forced"]) and not blinded,
        frozen_at=header["frozen_at"], freeze_hash=header["freeze_hash"],
        unblinded_at=header["unblinded_at"], unblinded_by=header["unblinded_by"], status=header["status_text"])
    key = {} if blinded else {k["item_id"]: k for k in q.unblinded_key(db, study_id)}
    planted = planted_kinds(db, study_id)
    data.planted_items = len(planted)
    for row in q.blind_items(db, study_id):
        if row["id"] in planted:  # gold and attention items check the evaluators, never the study
            continue
        k = key.get(row["id"], {})
        data.items[row["id"]] = Item(row["id"], row["case_id"], bool(row["pilot"]), k.get("run_id"),
                                     k.get("condition"), k.get("replicate"))
    return data


def fill_ratings(db, data: StudyRatings, named_rubrics: Iterable[str] | None = None) -> None:
    """Rubrics, current scores and verdicts, judge errors, blindness audits and runs of `data`'s study.
    `named_rubrics` (default: `data.named_rubric_ids()`) label their tables even before anything is scored."""
    from store import metrics_data as q

    study_id = data.study_id
    scores = q.current_scores(db, study_id)
    verdicts = q.current_verdicts(db, study_id)
    hashes = [r["rubric_hash"] for r in scores] + [r["rubric_hash"] for r in verdicts]
    for h, row in q.rubric_definitions(db, hashes).items():
        data.rubrics[h] = _rubric_info(h, row)
    named = list(data.named_rubric_ids() if named_rubrics is None else named_rubrics)
    have = {r.rubric_id for r in data.rubrics.values()}
    for rid, row in q.latest_rubric_versions(db, [r for r in named if r not in have]).items():
        data.rubrics[row["hash"]] = _rubric_info(row["hash"], {**row, "rubric_id": rid})

    def rubric_id(h: str) -> str:
        return data.rubrics[h].rubric_id if h in data.rubrics else f"unknown:{h[:12]}"

    data.excluded = excluded(db, study_id)
    corrected = corrections(db, study_id, data.definition)
    data.scores = [Rating("human", r["rater"], r["item_id"], rubric_id(r["rubric_hash"]), r["rubric_hash"],
                          r["criterion"], float(r["value"]), "ok", r["at"], None, r["id"])
                   for r in scores if r["item_id"] in data.items and data.excluded.get(r["rater"]) != "human"]
    data.verdicts = [Rating("judge", r["judge"], r["item_id"], rubric_id(r["rubric_hash"]), r["rubric_hash"],
                            r["criterion"], None if r["value"] is None or r["status"] != "ok"
                            else float(corrected.get(r["id"], r["value"])),
                            "ok" if r["status"] == "ok" else "judge_error", r["at"], r["model"], r["id"])
                     for r in verdicts if r["item_id"] in data.items and data.excluded.get(r["judge"]) != "judge"]
    data.judge_error_rows = q.judge_error_rows(db, study_id)
    data.audits = [AuditRow(a["item_id"], a["model"], None if a["correct"] is None else bool(a["correct"]))
                   for a in q.blindness_audits(db, study_id)]
    for r in q.study_runs(db, study_id, with_conditions=not data.blinded):
        data.runs[r["id"]] = RunInfo(r["id"], r["case_id"], r["status"], r.get("condition"), r.get("replicate"))


def load_ratings(db, study_id: str) -> StudyRatings:
    """Gather one study's ratings. Raises KeyError for an unknown study."""
    data = start(db, study_id)
    fill_ratings(db, data)
    return data


def study_list(db) -> list[dict]:
    """The studies the Metrics section offers: id, protocol, unblinding state and the study's status."""
    from store.metrics_data import study_list as rows

    return rows(db)
