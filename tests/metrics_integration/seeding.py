"""Seed a complete hindsight study straight into the store's tables, with known values.

The metric tests compute what the tables must show from the same plain dicts
(`Spec`), by their own arithmetic, and compare. The benchmark builds a larger
Spec at random. Rows are inserted directly (not through the other areas'
writers), in the shapes of migration 0001.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from store.db import writer

T0 = "2026-01-01T00:00:00+00:00"
HISTORICAL = {"id": "harbor-dredging-bond", "title": "Harbor dredging bond", "type": "historical",
              "domain": "infrastructure", "complexity": "medium", "concern_domain": "business", "rubric": None}
CONDITIONS = ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]


def opaque(*parts: Any) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:12]


@dataclass
class Spec:
    """Everything the seeded study contains. Keys use (case, condition, replicate) = "slot"."""

    study_id: str = "seeded-study"
    cases: list[str] = field(default_factory=lambda: [HISTORICAL["id"], "glenda-crock", "blast-radius"])
    conditions: list[str] = field(default_factory=lambda: list(CONDITIONS))
    raters: list[str] = field(default_factory=lambda: ["rater-a", "rater-b"])
    judges: list[tuple[str, str]] = field(default_factory=lambda: [("judge-a", "mock-judge-1"),
                                                                  ("judge-b", "mock-judge-2")])
    # (rater, case, cond, rep, rubric_id, criterion) -> final value
    human: dict[tuple, float] = field(default_factory=dict)
    # extra history rows written before the final value: (rater, slot+cell) -> list of (action, value)
    history: dict[tuple, list[tuple[str, float | None]]] = field(default_factory=dict)
    # (judge, case, cond, rep, rubric_id, criterion) -> value or "error"
    judge: dict[tuple, Any] = field(default_factory=dict)
    audits: dict[tuple, bool] = field(default_factory=dict)
    topology: dict[str, tuple[str, str | None, str | None]] = field(default_factory=dict)
    probes: list[tuple[str, str, str, bool]] = field(default_factory=list)
    perspectives: dict[tuple, list[tuple[str, int, bool]]] = field(default_factory=dict)
    model_concerns: dict[tuple, dict[str, float | None]] = field(default_factory=dict)
    rater_concerns: dict[tuple, dict[str, float]] = field(default_factory=dict)
    pilot_scores: dict[tuple, float] = field(default_factory=dict)  # (rater, n, rubric, criterion) -> value
    unblinded: bool = True
    forced: bool = False
    custom_concerns: list[str] = field(default_factory=list)

    def slots(self) -> list[tuple[str, str, int]]:
        out = []
        for case in self.cases:
            for cond in self.conditions:
                for rep in (range(3) if cond == "P1" else range(1)):
                    out.append((case, cond, rep))
        return out


@dataclass
class Seeded:
    spec: Spec
    run_ids: dict[tuple, str]
    item_ids: dict[tuple, str]
    pilot_ids: list[str]
    rubric_hash: dict[str, str]


def _rubric_hashes(db) -> dict[str, str]:
    rows = db.execute("SELECT rubric_id, hash FROM rubrics ORDER BY loaded_at").fetchall()
    return {rid: h for rid, h in rows}


def seed_study(db, spec: Spec) -> Seeded:
    from workbench.cases.library import bootstrap

    bootstrap(db)  # the shipped rubrics and cases (glenda-crock, blast-radius)
    hashes = _rubric_hashes(db)
    run_ids = {slot: "run-" + opaque(spec.study_id, "run", *slot) for slot in spec.slots()}
    item_ids = {slot: "item-" + opaque(spec.study_id, "item", *slot) for slot in spec.slots()}
    pilot_ids = ["item-" + opaque(spec.study_id, "pilot", n) for n in range(2)]
    definition = {
        "name": spec.study_id, "protocol": "hindsight", "description": "seeded for the metric tests",
        "cases": spec.cases, "conditions": spec.conditions, "replicates": 1, "raters": spec.raters,
        "rubrics": ["anticipation", "epistemic-humility"], "cost_ceiling": None,
        "model": {"name": "mock", "api_base": "", "temperature": 0.7, "seed": 7, "max_tokens": 1024,
                  "timeout": 120.0},
        "judges": [{"name": j, "model": m, "api_base": "", "temperature": 0.0, "pipeline": "direct", "runs": 1}
                   for j, m in spec.judges],
        "thresholds": {"kappa_anticipation": 0.70, "kappa_epistemic_humility": 0.65, "alpha_judges": 0.5},
        "blinding": {"overlap": 1.0, "pilot_items": True, "seed": 11},
        "architectures": {"C1": {"respondents": 5}, "C2": {"roster": ["a", "b", "c", "d"], "debate_rounds": 2}},
    }
    if spec.custom_concerns:
        definition["metrics"] = {"custom_concerns": spec.custom_concerns}
    with writer(db):
        if HISTORICAL["id"] in spec.cases and not db["cases"].count_where("id = ?", [HISTORICAL["id"]]):
            db["cases"].insert({**HISTORICAL, "status": "ready", "strategies": "[]", "decision_date": "2021-03-01",
                                "source_path": None, "content_hash": "x", "document": "{}", "updated_at": T0})
        for case in spec.cases:
            if not db["cases"].count_where("id = ?", [case]):
                db["cases"].insert({"id": case, "title": case.replace("-", " ").title(), "type": "historical",
                                    "domain": "other", "status": "ready", "strategies": "[]", "decision_date": "",
                                    "complexity": "medium", "concern_domain": "technology", "rubric": None,
                                    "source_path": None, "content_hash": "x", "document": "{}",
                                    "updated_at": T0})
        db["studies"].insert({
            "id": spec.study_id, "name": spec.study_id, "protocol": "hindsight",
            "definition": json.dumps(definition, sort_keys=True), "source_text": None, "created_at": T0,
            "frozen_at": T0, "freeze_hash": "f" * 64, "status": "frozen", "cost_ceiling": None,
            "unblinded_at": "2026-02-01T00:00:00+00:00" if spec.unblinded else None,
            "unblinded_by": "researcher" if spec.unblinded else None, "unblind_forced": int(spec.forced)})
        if spec.unblinded:
            db["unblindings"].insert({"study_id": spec.study_id, "by": "researcher",
                                      "at": "2026-02-01T00:00:00+00:00", "forced": int(spec.forced),
                                      "reason": None})
        for slot, rid in run_ids.items():
            case, cond, rep = slot
            db["runs"].insert({"id": rid, "study_id": spec.study_id, "case_id": case, "condition": cond,
                               "replicate": rep, "status": "done", "attempts": 1, "started_at": T0,
                               "finished_at": T0})
            db["outputs"].insert({"run_id": rid, "text": f"Final analysis of {case}, variant {opaque(*slot)}.",
                                  "report": "{}", "created_at": T0})
            for seq, (text, order, parallel) in enumerate(spec.perspectives.get(slot, []), start=1):
                db["events"].insert({"run_id": rid, "seq": seq, "turn": f"t{seq}", "kind": "perspective",
                                     "agent": f"agent-{seq}", "at": T0,
                                     "payload": json.dumps({"text": text, "order": order, "parallel": parallel})})
            item = item_ids[slot]
            db["blind_items"].insert({"id": item, "study_id": spec.study_id, "case_id": case,
                                      "text": "scrubbed text", "pilot": 0, "created_at": T0})
            db["blind_key"].insert({"item_id": item, "study_id": spec.study_id, "run_id": rid,
                                    "pilot_expectation": None, "scrub_log": "[]", "sealed_at": T0})
        for n, pid in enumerate(pilot_ids):
            db["blind_items"].insert({"id": pid, "study_id": spec.study_id, "case_id": spec.cases[0],
                                      "text": "pilot text", "pilot": 1, "created_at": T0})
            db["blind_key"].insert({"item_id": pid, "study_id": spec.study_id, "run_id": None,
                                    "pilot_expectation": json.dumps({"direction": "high" if n == 0 else "low"}),
                                    "scrub_log": "[]", "sealed_at": T0})
        for r in spec.raters:
            db["raters"].insert({"study_id": spec.study_id, "name": r, "kind": "human", "seed": 1, "created_at": T0})

        def score(rater, item, rubric, criterion, value, action="score", undoes=None):
            return db["scores"].insert({
                "study_id": spec.study_id, "rater": rater, "item_id": item, "rubric_hash": hashes[rubric],
                "criterion": criterion, "value": value, "note": None, "action": action, "source": "tui",
                "at": T0, "undoes": undoes}).last_pk

        for key, value in sorted(spec.human.items(), key=lambda kv: str(kv[0])):
            rater, case, cond, rep, rubric, criterion = key
            item = item_ids[(case, cond, rep)]
            last = None
            for action, v in spec.history.get(key, []):
                if action == "undo":
                    last = score(rater, item, rubric, criterion, v, "undo", last)
                elif action in ("skip", "note"):
                    db["scores"].insert({"study_id": spec.study_id, "rater": rater, "item_id": item,
                                         "rubric_hash": "", "criterion": "*", "value": None,
                                         "note": "n" if action == "note" else None, "action": action,
                                         "source": "tui", "at": T0})
                else:
                    last = score(rater, item, rubric, criterion, v)
            if value is not None:
                score(rater, item, rubric, criterion, value)
        for (rater, n, rubric, criterion), value in spec.pilot_scores.items():
            score(rater, pilot_ids[n], rubric, criterion, value)
        models = dict(spec.judges)
        for key, value in sorted(spec.judge.items(), key=lambda kv: str(kv[0])):
            judge, case, cond, rep, rubric, criterion = key
            err = value == "error"
            db["verdicts"].insert({
                "study_id": spec.study_id, "judge": judge, "model": models[judge],
                "item_id": item_ids[(case, cond, rep)], "rubric_hash": hashes[rubric], "criterion": criterion,
                "value": None if err else value, "justification": None, "raw": "not json" if err else "{}",
                "status": "judge_error" if err else "ok", "pipeline": "direct", "confidence": None,
                "detail": "{}", "at": T0})
        for slot, correct in spec.audits.items():
            db["blindness_audits"].insert({"study_id": spec.study_id, "item_id": item_ids[slot],
                                           "model": "audit-model", "guess": slot[1] if correct else "B1",
                                           "correct": int(correct), "raw": "{}", "at": T0})
        for case, (pattern, switching, convergent) in spec.topology.items():
            db["topology"].insert({"study_id": spec.study_id, "case_id": case, "condition": "P1",
                                   "pattern": pattern, "switching_assumption": switching,
                                   "convergent_recommendation": convergent, "detail": "{}", "created_at": T0})
        for i, (case, model, verdict, flagged) in enumerate(spec.probes):
            db["probes"].insert({"case_id": case, "model": model, "api_base": None,
                                 "asked_at": f"2026-01-0{i + 1}T00:00:00+00:00", "prompt": "p", "answer": "a",
                                 "verdict": verdict, "classifier_raw": None, "flagged": int(flagged),
                                 "call_ids": "[]"})
        for slot, concerns in spec.model_concerns.items():
            for concern, value in concerns.items():
                db["concern_scores"].insert({"study_id": spec.study_id, "run_id": run_ids[slot], "concern": concern,
                                             "value": value, "source": "model", "rater": None, "raw": "{}",
                                             "at": T0})
        for slot, concerns in spec.rater_concerns.items():
            for concern, value in concerns.items():
                db["concern_scores"].insert({"study_id": spec.study_id, "run_id": run_ids[slot], "concern": concern,
                                             "value": value, "source": "rater", "rater": "rater-a", "raw": None,
                                             "at": T0})
    return Seeded(spec, run_ids, item_ids, pilot_ids, hashes)
