"""One analysis of one hindsight study: everything the CLI, the report and the Metrics screen show.

`analyze(data, ...)` is pure over a :class:`StudyData`; `analyze_study(db,
study_id, ...)` loads the study and wires the store-backed embedding cache.
Tables 1, 3, 4 (or the blinded overall table) are computed once per evaluator
of the study (`evaluator` in the study file): one :class:`EvaluatorBlock`
each, the primary first; `table1`... of the analysis are the primary block's.
The three front ends render the same :class:`StudyAnalysis` through
`render.py` beside this module, so their numbers cannot drift apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.metrics.embeddings import DEFAULT_MODEL

from .agreement_report import AgreementReport, agreement_report, judged_pairs
from .dq_study import DQReport, decision_quality_report
from .judge_calibration import JudgeCalibrationRow, judge_calibration
from .study_data import ProbeRow, StudyData, load_study_data
from workbench.studies.evaluator import Evaluator, describe

from .tables import (
    BLINDED_LABEL,
    FORCED_LABEL,
    Comparison,
    ConditionTable,
    EffectTable,
    OverallTable,
    TopologyTable,
    glenda_crock_predictions,
    overall_table,
    study_evaluators,
    table1,
    table2,
    table3,
    table4,
)

HIDDEN = "hidden until unblinding"


def public_settings(data: StudyData) -> dict[str, Any]:
    """The study's settings for a report; conditions, architectures and the architecture model only
    once unblinded (a blinded report names no condition and no architecture model)."""
    d = data.definition
    model = dict(d.get("model") or {})
    out: dict[str, Any] = {
        "name": d.get("name", data.name), "protocol": d.get("protocol", data.protocol),
        "description": d.get("description", ""), "cases": list(d.get("cases") or []),
        "replicates": d.get("replicates"), "raters": list(d.get("raters") or []),
        "rubrics": list(d.get("rubrics") or []),
        "judges": [{k: j.get(k) for k in ("name", "model", "temperature", "pipeline", "runs")}
                   for j in d.get("judges") or []],
        "evaluator": describe(dict(d)),
        "thresholds": data.thresholds, "blinding": dict(d.get("blinding") or {}),
        "cost_ceiling": d.get("cost_ceiling"),
        "custom_concerns": list(data.custom_concerns),
        "rubric_versions": {r.rubric_id: r.hash for r in sorted(data.rubrics.values(), key=lambda r: r.rubric_id)},
    }
    if data.blinded:
        out["conditions"] = f"{len(data.conditions)} ({HIDDEN})"
        out["model"] = HIDDEN
        out["architectures"] = HIDDEN
    else:
        out["conditions"] = list(data.conditions)
        out["model"] = {k: model.get(k) for k in ("name", "api_base", "temperature", "seed", "max_tokens")}
        out["architectures"] = dict(d.get("architectures") or {})
    return out


def study_counts(data: StudyData) -> dict[str, Any]:
    items = data.study_items()
    pairs = judged_pairs(data.verdicts)
    return {
        "items": len(items), "pilot_items": len(data.items) - len(items),
        "cases_with_items": len({i.case_id for i in items}),
        "raters_with_scores": len({s.evaluator for s in data.scores}),
        # units named once (workbench.rubrics.units; the report's labels: render.COUNT_LABELS)
        "human_scores": sum(1 for s in data.scores if not data.items[s.item_id].pilot),
        "judged_pairs": len(pairs),
        "judge_error_pairs": sum(pairs.values()),
        "runs": dict(Counter(r.status for r in data.runs.values())),
        "perspective_events": len(data.perspectives),
        "blindness_audits": len(data.audits),
        **committee_reading_counts(data),
    }


def committee_reading_counts(data: StudyData) -> dict[str, Any]:
    """Seconds and votes given, and those that stayed unreadable after their one retry (issue 41), per
    condition once unblinded ("all" while blinded); nothing for a study without a committee."""
    out: dict[str, Any] = {}
    for kind in ("second", "vote"):
        given, unreadable = Counter(), Counter()
        for r in data.committee_readings:
            if r.kind != kind:
                continue
            run = data.runs.get(r.run_id)
            group = "all" if data.blinded or run is None or not run.condition else run.condition
            given[group] += 1
            unreadable[group] += not r.readable
        if given:
            out[f"{kind}s_given"] = dict(given)
            out[f"{kind}s_unreadable"] = {g: unreadable[g] for g in given}
    return out


@dataclass
class EvaluatorBlock:
    """One evaluator's tables, in the same layout for every evaluator."""

    evaluator: Evaluator
    table1: ConditionTable | None
    table3: ConditionTable | None
    table4: EffectTable | None
    overall: OverallTable | None

    @property
    def predictions(self) -> list[dict]:
        """Seed 000 §VIII's Glenda/Crock predictions against this evaluator's Table 3."""
        return glenda_crock_predictions(self.table3)

    def to_dict(self) -> dict[str, Any]:
        return {"evaluator": self.evaluator.key, "label": self.evaluator.label,
                "table1": self.table1.to_dict() if self.table1 else None,
                "table3": self.table3.to_dict() if self.table3 else None,
                "table4": self.table4.to_dict() if self.table4 else None,
                "overall": self.overall.to_dict() if self.overall else None,
                "predictions": [{**p, "predicted": list(p["predicted"]), "observed": p["observed"].to_dict()}
                                for p in self.predictions]}


@dataclass
class StudyAnalysis:
    data: StudyData
    settings: dict[str, Any]
    counts: dict[str, Any]
    table1: ConditionTable | None
    table2: TopologyTable | None
    table3: ConditionTable | None
    table4: EffectTable | None
    overall: OverallTable | None
    agreement: AgreementReport
    dq: DQReport | None
    calibration: list[JudgeCalibrationRow]
    probes: list[ProbeRow]
    comparisons: tuple[Comparison, ...] = ()
    notes: list[str] = field(default_factory=list)
    blocks: list[EvaluatorBlock] = field(default_factory=list)

    @property
    def blinded(self) -> bool:
        return self.data.blinded

    @property
    def forced(self) -> bool:
        return self.data.forced

    def status_line(self) -> str:
        """The study's status (as `study list` and `study show` say it), then what it means for these
        numbers."""
        d = self.data
        status = d.status or "status unknown"  # a StudyData not read from the store (tests)
        if d.blinded:
            return f"{status}; {BLINDED_LABEL}; only condition-free statistics until it is unblinded"
        line = f"{status} at {d.unblinded_at} by {d.unblinded_by or '?'}"
        return f"{line}; {FORCED_LABEL}" if d.forced else line

    def to_dict(self) -> dict[str, Any]:
        d = self.data
        probes = [{"case_id": p.case_id, "model": HIDDEN if d.blinded else p.model, "verdict": p.verdict,
                   "flagged": p.flagged, "asked_at": p.asked_at} for p in self.probes]
        return {
            "study": {"id": d.study_id, "name": d.name, "protocol": d.protocol, "frozen_at": d.frozen_at,
                      "freeze_hash": d.freeze_hash, "blinded": d.blinded,
                      "unblinded_at": d.unblinded_at, "unblinded_by": d.unblinded_by,
                      "forced_unblinding": d.forced, "status": self.status_line()},
            "label": BLINDED_LABEL if d.blinded else None,
            "settings": self.settings, "counts": self.counts,
            "evaluator": self.blocks[0].evaluator.key if self.blocks else None,
            "evaluators": [b.to_dict() for b in self.blocks],
            "table1": self.table1.to_dict() if self.table1 else None,
            "table2": self.table2.to_dict() if self.table2 else None,
            "table3": self.table3.to_dict() if self.table3 else None,
            "table4": self.table4.to_dict() if self.table4 else None,
            "overall": self.overall.to_dict() if self.overall else None,
            "agreement": self.agreement.to_dict(),
            "decision_quality": self.dq.to_dict() if self.dq else None,
            "calibration": [c.to_dict() for c in self.calibration],
            "probes": probes, "notes": list(self.notes),
        }


def analyze(data: StudyData, *, comparisons: Sequence[Comparison] = (), embedder=None,
            include_dq: bool = True, concern_source: str = "auto") -> StudyAnalysis:
    """Every table and panel of the study. Blinded: condition-free parts only (see module docs)."""
    notes = []
    blocks = []
    for evaluator in study_evaluators(data):
        if data.blinded:
            blocks.append(EvaluatorBlock(evaluator, None, None, None, overall_table(data, evaluator)))
        else:
            blocks.append(EvaluatorBlock(evaluator, table1(data, evaluator), table3(data, evaluator),
                                         table4(data, comparisons, evaluator), None))
    first = blocks[0]
    t1, t3, t4, overall = first.table1, first.table3, first.table4, first.overall
    t2 = None if data.blinded else table2(data)
    if data.blinded and comparisons:
        notes.append(f"{BLINDED_LABEL}: the requested comparisons need an unblinded study.")
    dq = None
    if include_dq and (data.perspectives or data.outputs):
        if embedder is None:
            from workbench.metrics.embeddings import Embedder

            embedder = Embedder(DEFAULT_MODEL)
        dq = decision_quality_report(data, embedder, concern_source=concern_source)
    return StudyAnalysis(data, public_settings(data), study_counts(data), t1, t2, t3, t4, overall,
                         agreement_report(data), dq, judge_calibration(data), list(data.probes),
                         tuple(comparisons), notes, blocks)


def analyze_study(db, study_id: str, *, comparisons: Sequence[Comparison] = (),
                  embedding_model: str = DEFAULT_MODEL, include_dq: bool = True, embedder=None,
                  concern_source: str = "auto", progress=None) -> StudyAnalysis:
    """Load a study from the store and analyse it; embeddings are cached in the store.

    ``progress(step, done, total)`` hears the embedding steps (``embeddings.progress_text`` words them):
    a first computation loads the model and embeds every text, which takes seconds, not milliseconds."""
    data = load_study_data(db, study_id)
    if embedder is None and include_dq:
        from store.embeddings import StoreEmbeddingCache

        from workbench.metrics.embeddings import Embedder

        embedder = Embedder(embedding_model, cache=StoreEmbeddingCache(db), progress=progress)
    analysis = analyze(data, comparisons=comparisons, embedder=embedder, include_dq=include_dq,
                       concern_source=concern_source)
    # beside the tables' own count, the study's as `study show` and Studies print it (one definition:
    # workbench.studies.counts), so the two figures are read side by side, each named (issue 43)
    from workbench.studies.counts import study_counts as whole_study_counts

    in_study = whole_study_counts(db, study_id).judged
    analysis.counts = {key: value for k, v in analysis.counts.items()
                       for key, value in ([(k, v), ("judged_pairs_in_study", in_study)] if k == "judged_pairs"
                                          else [(k, v)])}
    return analysis
