"""One hindsight study as plain data: what its pure table, agreement and DQ functions consume.

`load_study_data(db, study_id)` is the only place that reads the store for
hindsight's analysis (the shared ratings through `workbench.metrics.ratings`,
the rest through `store.metrics_data`). Everything downstream works on the
returned :class:`StudyData` and never sees SQL, so tests and benchmarks can
build a StudyData by hand.

Blindness: for a study whose ``unblinded_at`` is NULL the sealed key is never
read -- items carry no run, condition or replicate, runs carry no condition,
topology is not loaded and blindness audits come without their guesses.
``StudyData.blinded`` tells every consumer to stay condition-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from workbench.fidelity.policy import DEFAULT as DEFAULT_POLICY
from workbench.metrics.ratings import Item, StudyRatings, fill_ratings, start
from workbench.protocol.base import TreatmentReading

# Seed 000 §V: the conditions in table order, with the seed's names.
CONDITION_ORDER = ("B1", "B2", "B3", "C1", "C2", "C3", "P1")
CONDITION_LABELS = {
    "B1": "Single LLM", "B2": "Chain-of-thought", "B3": "Multi-perspective",
    "C1": "Hub-and-spoke", "C2": "Peer-agent committee", "C3": "Deliberated choice",
    "P1": "3 x C2 probe",
}
# Table 1 and Table 3 rows (seed §XII); P1 is reported apart (see tables.py).
TABLE_CONDITIONS = ("B1", "B2", "B3", "C1", "C2", "C3")
DEFAULT_THRESHOLDS = {"kappa_anticipation": 0.70, "kappa_epistemic_humility": 0.65, "alpha_judges": 0.5}


@dataclass(frozen=True)
class CaseInfo:
    id: str
    title: str
    type: str
    complexity: str | None
    concern_domain: str | None
    rubric: str | None


@dataclass(frozen=True)
class Perspective:
    run_id: str
    seq: int
    text: str
    order: int
    parallel: bool
    agent: str | None = None
    unsplit: bool = False  # a reply that could not be split into perspectives: flagged, never one perspective


@dataclass(frozen=True)
class ConcernScore:
    run_id: str
    concern: str
    value: float | None       # None: the model's assessment failed (unassessed, never 0)
    source: str               # "model" | "rater"
    rater: str | None
    at: str


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


@dataclass(frozen=True)
class CommitteeReading:
    """One second or vote a committee member gave, and whether it could be read (after its one retry)."""

    run_id: str
    kind: str                 # "second" | "vote"
    readable: bool


@dataclass
class StudyData(StudyRatings):
    """A hindsight study: the shared ratings, and its cases, topology, probes, perspectives, final outputs
    and concern scores."""

    cases: dict[str, CaseInfo] = field(default_factory=dict)
    topology: list[TopologyRow] = field(default_factory=list)
    probes: list[ProbeRow] = field(default_factory=list)
    perspectives: list[Perspective] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    concern_scores: list[ConcernScore] = field(default_factory=list)
    # run id -> its treatment reading, for each finished run whose defining step did not happen (issue 45;
    # unblinded only: it names conditions), and the study's on_missing_treatment
    undelivered: dict[str, TreatmentReading] = field(default_factory=dict)
    treatment_policy: str = DEFAULT_POLICY
    committee_readings: list[CommitteeReading] = field(default_factory=list)

    def study_items(self) -> list[Item]:
        """Non-pilot items; under `on_missing_treatment = "exclude"` without those of runs whose defining step
        did not happen: every table leaves them out."""
        items = super().study_items()
        if self.treatment_policy != "exclude":
            return items
        return [i for i in items if i.run_id not in self.undelivered]

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
    def custom_concerns(self) -> tuple[str, ...]:
        """`[metrics] custom_concerns = [...]` in the study definition (seed 001 §2.3 edge case)."""
        metrics = self.definition.get("metrics") or {}
        return tuple(str(c) for c in metrics.get("custom_concerns") or [])

    def named_rubric_ids(self) -> list[str]:
        """The study's rubrics, then each case's own rubric (Glenda/Crock, Blast Radius), each once: several cases
        on one specialized rubric are one rubric's rows in every table (issue 42: a six-case study repeated them)."""
        order = list(self.definition.get("rubrics") or [])
        return list(dict.fromkeys(order + [c.rubric for c in self.cases.values() if c.rubric]))


def load_study_data(db, study_id: str) -> StudyData:
    """Gather one hindsight study for analysis. Raises KeyError for an unknown study."""
    from store import metrics_data as q
    from store.events import events_for_study

    data = start(db, study_id, StudyData)
    case_ids = list(data.definition.get("cases") or []) + sorted({i.case_id for i in data.items.values()})
    for c in q.study_cases(db, case_ids):
        data.cases[c["id"]] = CaseInfo(c["id"], c["title"], c["type"], c["complexity"], c["concern_domain"],
                                       c["rubric"])
    fill_ratings(db, data)  # after the cases: their rubrics label their tables too
    if not data.blinded:
        data.topology = [TopologyRow(t["case_id"], t["condition"], t["pattern"], t["switching_assumption"],
                                     t["convergent_recommendation"]) for t in q.topology_rows(db, study_id)]
    data.probes = [ProbeRow(p["case_id"], p["model"], p["verdict"], bool(p["flagged"]), p["asked_at"])
                   for p in q.latest_probes(db, list(data.cases))]
    for e in q.perspective_events(db, study_id):
        p = e["payload"]
        text = str(p.get("text") or "").strip()
        if not text:
            continue
        data.perspectives.append(Perspective(e["run_id"], int(e["seq"]), text, int(p.get("order") or 1),
                                             bool(p.get("parallel", False)), e.get("agent"),
                                             bool(p.get("unsplit") or p.get("unparsed"))))
    if not data.blinded:
        from workbench.fidelity.study import study_fidelity

        fidelity = study_fidelity(db, study_id)
        if fidelity is not None:
            data.undelivered, data.treatment_policy = fidelity.undelivered, fidelity.policy
    for e in events_for_study(db, study_id, ["second", "vote"]):
        p = e["payload"]
        readable = p.get("seconded") is not None if e["kind"] == "second" else p.get("vote") != "unparsed"
        data.committee_readings.append(CommitteeReading(e["run_id"], e["kind"], bool(p.get("readable", readable))))
    data.outputs = q.final_outputs(db, study_id)
    data.concern_scores = [ConcernScore(c["run_id"], c["concern"], c["value"], c["source"], c["rater"], c["at"])
                           for c in q.current_concern_scores(db, study_id)]
    return data


def condition_sort_key(condition: str) -> tuple[int, str]:
    return (CONDITION_ORDER.index(condition) if condition in CONDITION_ORDER else len(CONDITION_ORDER), condition)


def sorted_conditions(conditions: Sequence[str]) -> list[str]:
    return sorted(set(conditions), key=condition_sort_key)
