"""Test helpers: a frozen study with finished runs, written straight into the store's tables.

Shared by tests/blinding, tests/scoring, tests/packets and tests/judges. The
outputs are full of condition tells and model names on purpose, so the
leakage tests have something to catch.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from store.cases import upsert_cases
from store.rubrics import add_rubric_version
from workbench.cases import Case
from workbench.rubrics import parse_rubric


def one_criterion_rubric(rubric_id: str, name: str, preamble: tuple[str, ...], criterion: tuple[str, str, str],
                         anchors: tuple[tuple[str, str], ...]) -> str:
    """A rubric file of one criterion (id, name, question) scored 0 to len(anchors) - 1, one anchor a score."""
    criterion_id, criterion_name, question = criterion
    lines = [f'id = "{rubric_id}"', f'name = "{name}"', *preamble, "", "[[criteria]]", f'id = "{criterion_id}"',
             f'name = "{criterion_name}"', f'question = "{question}"', "min = 0", f"max = {len(anchors) - 1}",
             "anchors = [", *(f'  {{ score = {score}, label = "{label}", text = "{text}" }},'
                              for score, (label, text) in enumerate(anchors)), "]"]
    return "\n".join(lines) + "\n"


ANTICIPATION = one_criterion_rubric(
    "anticipation", "Anticipation", ('instructions = "Score the risk category, not the exact outcome."',),
    ("anticipation", "Anticipation", "Did the response identify the risk category that materialized?"),
    (("Absent", "Not mentioned."), ("Peripheral", "Mentioned in passing."), ("Identified", "Named and analysed."),
     ("Integrated", "Named, analysed and the recommendation accounts for it.")))

HUMILITY = one_criterion_rubric(
    "epistemic-humility", "Epistemic Humility",
    ('procedure = ["List the confidence claims.", "Score calibration."]',
     'instructions = "Calibration, not temperament."'),
    ("calibration", "Calibration", "Was confidence calibrated?"),
    (("Confidently wrong", "High confidence, wrong."), ("Poorly calibrated", "Mismatched."),
     ("Reasonably calibrated", "Mostly proportional."), ("Well calibrated", "Matches what was knowable.")))

CONDITIONS = ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
STUDY_MODEL = "openai/gpt-4o-mini"
JUDGE_MODEL = "anthropic/claude-3-5-sonnet"

# Each condition's final text carries the tells that condition would leave.
TELL_TEXTS = {
    "B1": "[placeholder: mock model] RECOMMENDATION: Expand now.\nREASONING: As gpt-4o-mini I think demand holds.\n"
          "RISKS:\n- Market contraction.\nCONFIDENCE: high.",
    "B2": "Step by step, the key factors are cost and demand.\nRECOMMENDATION: Expand in stages.\n"
          "REASONING: Demand may contract.\nRISKS:\n- Demand-side contraction.\nCONFIDENCE: medium.",
    "B3": "Perspective 1: finance. Perspective 2: operations.\nRECOMMENDATION: Stage the rollout.\n"
          "REASONING: Both views see contraction risk.\nRISKS:\n- Contraction.\nCONFIDENCE: medium.",
    "C1": "The coordinator synthesised the five respondents. Respondent 3 warned of contraction.\n"
          "RECOMMENDATION: Stage it.\nREASONING: Four of the respondents agreed.\nRISKS:\n- Contraction.\n"
          "CONFIDENCE: medium.",
    "C2": "RESOLVED, by a vote of 4-1, that the committee recommends a staged expansion. The motion was "
          "seconded by the Risk analyst. The Devil's advocate filed a minority report.\n"
          "RECOMMENDATION: Staged expansion.\nREASONING: The committee weighed contraction.\n"
          "RISKS:\n- Contraction.\nCONFIDENCE: medium.",
    "C3": "Scenario 1 shows contraction; Scenario 2 shows growth. The committee voted 5-0 for gates.\n"
          "RECOMMENDATION: Gates tied to demand.\nREASONING: Fan-out found the contraction scenario.\n"
          "RISKS:\n- Contraction.\nCONFIDENCE: medium.",
    "P1": "The chair put the amendment to a vote (3 in favour, 2 against).\nRECOMMENDATION: Staged expansion.\n"
          "REASONING: The panel members agreed contraction is the main risk.\nRISKS:\n- Contraction.\n"
          "CONFIDENCE: medium.",
}

CASE = Case(
    id="harbor-expansion", title="Harbor expansion", type="historical", domain="policy", status="ready",
    scenario="A port authority must decide whether to double its container capacity before demand is known.",
    outcome="Shipping demand contracted sharply two years later; the new berths stood idle.",
    structural_tension="Capacity is committed years before demand is known. A demand-side contraction "
                       "would strand the investment.",
)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def make_study(db, *, name: str = "harbor-study", raters=("rater-a", "rater-b"), conditions=None,
               texts: dict | None = None, judges=None, pilot_items: bool = True, overlap: float = 1.0,
               replicates: int = 1, frozen: bool = True, extra_runs: dict | None = None,
               protocol: str = "hindsight", case: Case = CASE) -> str:
    """A frozen study with one done run (and its final output) per condition."""
    conditions = list(conditions or CONDITIONS)
    texts = texts or TELL_TEXTS
    upsert_cases(db, [(case.to_dict(), None, case.content_hash)])
    rubrics = [parse_rubric(ANTICIPATION), parse_rubric(HUMILITY)]
    for r in rubrics:
        add_rubric_version(db, hash=r.hash, rubric_id=r.id, name=r.name, text=r.text, definition=r.definition(),
                           source_path=None)
    if judges is None:
        judges = [{"name": "judge-a", "model": JUDGE_MODEL, "api_base": "", "temperature": 0.0,
                   "pipeline": "direct", "runs": 1}]
    definition = {
        "name": name, "protocol": protocol, "description": "", "cases": [case.id], "conditions": conditions,
        "replicates": replicates, "raters": list(raters), "rubrics": ["anticipation", "epistemic-humility"],
        "cost_ceiling": None,
        "model": {"name": STUDY_MODEL, "api_base": "", "temperature": 0.7, "seed": 7, "max_tokens": 1024,
                  "timeout": 120.0},
        "judges": judges, "thresholds": {},
        "blinding": {"overlap": overlap, "pilot_items": pilot_items, "seed": 1234},
        "architectures": {"C2": {"roster": [
            {"id": "chair", "name": "Chair", "brief": "", "chair": True},
            {"id": "risk-analyst", "name": "Risk analyst", "brief": "", "chair": False},
            {"id": "devils-advocate", "name": "Devil's advocate", "brief": "", "chair": False},
        ]}},
    }
    db["studies"].insert({"id": name, "name": name, "protocol": protocol, "definition": json.dumps(definition),
                          "created_at": now(), "frozen_at": now() if frozen else None,
                          "status": "frozen" if frozen else "draft"})
    if frozen:
        for r in rubrics:
            db["frozen_artefacts"].insert({"study_id": name, "kind": "rubric", "ref": r.id,
                                           "content_hash": r.hash, "content": r.text})
    for cond in conditions:
        add_run(db, name, cond, texts[cond], case_id=case.id)
    for (cond, status), n in (extra_runs or {}).items():
        for k in range(n):
            add_run(db, name, cond, texts.get(cond, "x"), status=status, replicate=10 + k, case_id=case.id)
    return name


def add_run(db, study: str, cond: str, text: str, *, status: str = "done", replicate: int = 0,
            case_id: str = CASE.id) -> str:
    run_id = f"run-{study}-{cond}-{replicate}"
    db["runs"].insert({"id": run_id, "study_id": study, "case_id": case_id, "condition": cond,
                       "replicate": replicate, "status": status, "started_at": now(), "finished_at": now()})
    if status == "done":
        db["outputs"].insert({"run_id": run_id, "text": text, "report": "{}", "created_at": now()})
    return run_id
