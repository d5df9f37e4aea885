"""The blindness audit of planted items: can a model tell a gold item from the study's own items?

Each real item and each gold item (attention items are meant to be noticed, and no judge sees them) is
shown alone, as raters and judges see it, to a model told that a few of the responses are check items the
researcher wrote with known answers, and asked which this one is. The audit reads the sealed table
(`store.quality.planted`) only to score the guesses, and publishes aggregates: how often "check" was said of
gold items and of real ones, and Fisher's exact test (SciPy, one-sided) of whether gold items draw "check"
more often. A small p means the gold items stand out: rewrite them (the gold file) before trusting the
gold accuracy of any evaluator.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlite_utils

from store import quality as rows
from workbench.events import EventSink
from workbench.gateway.api import ModelSettings
from workbench.judges.audit_runner import (Audit, audit_messages as auditor_prompt, items_to_audit, of_one_model,
                                           run_audit)
from workbench.judges.parse import InvalidReply, extract_json

LEAK_P = 0.05
GUESSES = ("study", "check")
SYSTEM = ("You audit anonymized decision recommendations. You judge how each was produced, from its text alone, "
          "and you reply only in JSON.")


@dataclass
class PlantedAuditReport:
    study_id: str
    model: str
    gold: int                  # gold items with a valid guess
    gold_called_check: int
    real: int                  # real items with a valid guess
    real_called_check: int
    invalid: int
    p_value: float | None      # Fisher's exact test, one-sided: gold items draw "check" more often
    leak_suspected: bool
    failed_calls: int = 0

    def to_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        if not self.gold:
            return f"planted-item audit ({self.model}): no gold item audited yet"
        p = "—" if self.p_value is None else f"{self.p_value:.3g}"
        return (f"planted-item audit ({self.model}): gold items called check {self.gold_called_check}/{self.gold}, "
                f"real items {self.real_called_check}/{self.real}; Fisher p = {p}"
                + ("; GOLD ITEMS STAND OUT" if self.leak_suspected else "") + (
                    f"; {self.invalid} never answered" if self.invalid else ""))


def audit_messages(response: str, note: str | None) -> list[dict]:
    return auditor_prompt(SYSTEM, ["Most responses in this study were written by the decision-making systems under "
                                   "study. A few are check items that the researcher wrote by hand, with known "
                                   "scores."],
                          response, 'Which is this RESPONSE? Reply with one JSON object: {"guess": "study" or '
                          '"check", "reason": "<one sentence>"}', note)


def _validate(text: str) -> str:
    guess = str(extract_json(text).get("guess", "")).strip().lower()
    if guess not in GUESSES:
        raise InvalidReply('"guess" must be "study" or "check"')
    return guess


async def audit_planted(db: sqlite_utils.Database, gateway, study_id: str, settings: ModelSettings, *,
                        concurrency: int = 4, sink: EventSink | None = None, progress=None) -> PlantedAuditReport:
    """Ask `settings.model` about every real and gold item not yet audited with that model."""
    done = {r["item_id"] for r in rows.planted_audits(db, study_id, settings.model)}
    items = items_to_audit(db, study_id, done, {None, "gold"})  # attention items are meant to be noticed
    planted = set(rows.planted_kinds(db, study_id))

    def record(item: dict, guess: str | None, raw: str | None) -> None:
        rows.add_planted_audit(db, {"study_id": study_id, "item_id": item["id"], "model": settings.model,
                                    "guess": guess, "planted": int(item["id"] in planted), "raw": raw})

    audit = Audit(turn="planted-audit", name="planted audit", messages=audit_messages, validate=_validate,
                  record=record)
    return await run_audit(gateway, study_id, settings, audit, items,
                           lambda: planted_audit_report(db, study_id, settings.model), concurrency=concurrency,
                           sink=sink, progress=progress)


def planted_audit_report(db: sqlite_utils.Database, study_id: str, model: str | None = None) -> PlantedAuditReport:
    """The audit's aggregates (of one model, or the latest model audited)."""
    model, audited = of_one_model(rows.planted_audits(db, study_id), model)
    valid = [r for r in audited if r["guess"] in GUESSES]
    gold = [r for r in valid if r["planted"]]
    real = [r for r in valid if not r["planted"]]
    g_check = sum(r["guess"] == "check" for r in gold)
    r_check = sum(r["guess"] == "check" for r in real)
    p_value = None
    if gold and real:
        from scipy.stats import fisher_exact

        p_value = float(fisher_exact([[g_check, len(gold) - g_check], [r_check, len(real) - r_check]],
                                     alternative="greater").pvalue)
    return PlantedAuditReport(study_id, model or "", len(gold), g_check, len(real), r_check,
                              len(audited) - len(valid), p_value, bool(p_value is not None and p_value < LEAK_P))
