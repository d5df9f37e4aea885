"""The blindness audit: can an LLM tell which architecture wrote a blind item?

Each non-pilot blind item is shown, alone and scrubbed exactly as raters see
it, to a model that is told the study's setups (neutral one-line
descriptions) and asked which one produced it. P1 is three C2 runs, so it is
folded into C2: the two cannot differ by design. Accuracy is compared with
chance, 1/k for k setups in the study, with a one-sided binomial test
(SciPy); the majority-class rate is reported too. Accuracy well above chance
means the scrubber leaves tells in. Replies that never name a setup after
three attempts are counted as invalid and left out of the accuracy.

The audit reads the sealed key to mark guesses right or wrong, and publishes
only aggregates: overall and per-setup hit counts, never which item was which.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import sqlite_utils

from store import verdicts as audit_rows
from workbench.blinding.context import load_study
from workbench.blinding.unblind import audit_conditions
from workbench.events import EventSink
from workbench.gateway.api import ModelSettings
from workbench.judges.audit_runner import (Audit, audit_messages as auditor_prompt, items_to_audit, of_one_model,
                                           run_audit)
from workbench.judges.parse import InvalidReply, extract_json

SETUPS = {
    "B1": "one model, one prompt, one answer",
    "B2": "one model asked to think step by step about factors and risks before recommending",
    "B3": "one model asked for three to five different perspectives, then a synthesis",
    "C1": "a coordinator sends the question to five independent advisers who never see each other, then "
          "synthesises their answers",
    "C2": "an adversarial committee with a fixed roster that debates under formal meeting rules and adopts a "
          "resolution",
    "C3": "scenarios are generated first, then a committee deliberates over them",
}
FOLD = {"P1": "C2"}
LEAK_P = 0.05

SYSTEM = ("You audit anonymized decision recommendations. You guess how each was produced, from its text "
          "alone, and you reply only in JSON.")


def fold(condition: str) -> str:
    return FOLD.get(condition, condition)


def audit_setups(conditions) -> list[str]:
    """The setups an auditor can name for these conditions (P1 folds into C2)."""
    return sorted({fold(c) for c in conditions})


def chance_rate(conditions) -> float | None:
    """The one chance rate of the blindness audit, 1/k over the setups an auditor can name: the metrics
    table, the report and `judge --audit-only` all use it. None with no conditions."""
    setups = audit_setups(conditions)
    return 1.0 / len(setups) if setups else None


@dataclass
class AuditReport:
    study_id: str
    model: str
    n: int                    # items with a valid guess
    correct: int
    invalid: int              # items whose replies never named a setup
    setups: list[str]
    chance: float             # 1/k
    majority_rate: float      # share of the most common setup
    accuracy: float | None
    p_value: float | None     # one-sided binomial test of accuracy > chance
    leak_suspected: bool
    by_setup: dict[str, dict] = field(default_factory=dict)
    failed_calls: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def audit_messages(response: str, setups: list[str], note: str | None) -> list[dict]:
    lines = "\n".join(f"{code}: {SETUPS.get(code, code)}" for code in setups)
    return auditor_prompt(SYSTEM, ["Each of these setups produced some of the responses in a study:", lines],
                          response, "Which setup produced this RESPONSE? Reply with one JSON object: "
                          '{"guess": "<one of: ' + ", ".join(setups) + '>", "reason": "<one sentence>"}', note)


def _validator(setups: list[str]):
    def validate(text: str) -> str:
        guess = str(extract_json(text).get("guess", "")).strip().upper()
        guess = re.sub(r"[^A-Z0-9]", "", guess)
        guess = fold(guess)
        if guess not in setups:
            raise InvalidReply(f'"guess" must be one of {", ".join(setups)}')
        return guess
    return validate


def _truth_and_setups(db: sqlite_utils.Database, study_id: str) -> tuple[dict[str, str], list[str]]:
    """item -> its folded setup (from the sealed key), and the setups an auditor can name in this study."""
    truth = {item: fold(cond) for item, cond in audit_conditions(db, study_id).items()}
    return truth, audit_setups([*(load_study(db, study_id).definition.get("conditions") or []), *truth.values()])


async def audit_study(db: sqlite_utils.Database, gateway, study_id: str, settings: ModelSettings, *,
                      concurrency: int = 4, sink: EventSink | None = None, progress=None) -> AuditReport:
    """Ask `settings.model` to guess the setup of every non-pilot item not yet audited with that model."""
    done = {r["item_id"] for r in audit_rows.audit_rows(db, study_id, settings.model)}
    items = items_to_audit(db, study_id, done, {None})  # gold and attention items have no setup to guess
    truth, setups = _truth_and_setups(db, study_id)

    def record(item: dict, guess: str | None, raw: str | None) -> None:
        correct = None if guess is None else int(guess == truth.get(item["id"]))
        audit_rows.append_audit(db, {"study_id": study_id, "item_id": item["id"], "model": settings.model,
                                     "guess": guess, "correct": correct, "raw": raw})

    audit = Audit(turn="blindness-audit", name="audit", messages=lambda text, note: audit_messages(text, setups, note),
                  validate=_validator(setups), record=record)
    return await run_audit(gateway, study_id, settings, audit, items,
                           lambda: audit_report(db, study_id, settings.model), concurrency=concurrency, sink=sink,
                           progress=progress)


def audit_report(db: sqlite_utils.Database, study_id: str, model: str | None = None) -> AuditReport:
    """Accuracy against chance from the stored guesses (of one model, or the latest model audited)."""
    model, rows = of_one_model(audit_rows.audit_rows(db, study_id), model)
    truth, setups = _truth_and_setups(db, study_id)
    valid = [r for r in rows if r["guess"] is not None and r["correct"] is not None]
    n, correct = len(valid), sum(r["correct"] for r in valid)
    by_setup: dict[str, dict] = {}
    for r in valid:
        actual = truth.get(r["item_id"], "?")
        entry = by_setup.setdefault(actual, {"n": 0, "correct": 0})
        entry["n"] += 1
        entry["correct"] += r["correct"]
    chance = chance_rate(setups) or 0.0
    counts = {}
    for cond in truth.values():
        counts[cond] = counts.get(cond, 0) + 1
    majority = max(counts.values()) / len(truth) if truth else 0.0
    p_value = None
    if n and setups:
        from scipy.stats import binomtest

        p_value = float(binomtest(correct, n, chance, alternative="greater").pvalue)
    accuracy = correct / n if n else None
    return AuditReport(study_id=study_id, model=model or "", n=n, correct=correct, invalid=len(rows) - n,
                       setups=setups, chance=round(chance, 4), majority_rate=round(majority, 4),
                       accuracy=None if accuracy is None else round(accuracy, 4), p_value=p_value,
                       leak_suspected=bool(p_value is not None and p_value < LEAK_P and accuracy > chance),
                       by_setup=by_setup)
