"""The one runner of the blindness audits: an auditor model asked one question about each blind item, alone.

Two audits use it, each with its own item source and question: the setup audit (`audit.py`: which
architecture wrote this?) and the planted-item audit (`planted_audit.py`: is this a check item?). Both show
the item's text as raters and judges see it, skip the items a model has already answered for (a re-run
resumes), count a failed call and leave its item for the next run, and stop at the cost ceiling.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Callable

import sqlite_utils

from store import blind as blind_rows
from store.quality import planted_kinds
from workbench.blinding.items import prepare_study
from workbench.events import EventSink
from workbench.gateway.api import CostCeilingReached, GatewayError, ModelSettings
from workbench.judges.calls import ask_json
from workbench.judges.prompt import DATA_RULE, block


def audit_messages(system: str, preamble: list[str], response: str, question: str, note: str | None) -> list[dict]:
    """The auditor's prompt: the data rule, what it is told of the study, the RESPONSE alone, the question;
    after an unusable reply, why it could not be used."""
    parts = [DATA_RULE, "", *preamble, "", block("RESPONSE", response), "", question]
    if note:
        parts += ["", f"Your previous reply could not be used: {note}. Reply with the JSON object only."]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(parts)}]


def items_to_audit(db: sqlite_utils.Database, study_id: str, done: set[str], kinds: set[str | None]) -> list[dict]:
    """The study's non-pilot blind items (blinded first if need be) not yet in `done`, of the planted `kinds`
    (None: the study's own items; "gold", "attention": planted ones, read from the sealed table)."""
    prepare_study(db, study_id)
    planted = planted_kinds(db, study_id)
    return [i for i in blind_rows.blind_items(db, study_id)
            if not i["pilot"] and i["id"] not in done and planted.get(i["id"]) in kinds]


@dataclass(frozen=True)
class Audit:
    """One audit's question: its turn name in the call log, its name in progress lines, its prompt for an
    item's text (and the note after an unusable reply), the reader of a reply, and where a guess is kept."""

    turn: str
    name: str
    messages: Callable[[str, str | None], list[dict]]
    validate: Callable[[str], Any]
    record: Callable[[dict, Any, str | None], None]   # (item, guess, the last raw reply)


async def run_audit(gateway, study_id: str, settings: ModelSettings, audit: Audit, items: list[dict],
                    report: Callable[[], Any], *, concurrency: int = 4, sink: EventSink | None = None,
                    progress=None):
    """Ask `settings.model` the audit's question about every item, `concurrency` at a time; then the audit's
    `report()`, with the calls that failed counted in its `failed_calls` (their items are asked again next time)."""
    say = progress or (lambda message: None)
    limit = asyncio.Semaphore(max(1, concurrency))
    failed = 0

    async def one(item: dict) -> None:
        nonlocal failed
        async with limit:
            try:
                asked = await ask_json(gateway, lambda note: audit.messages(item["text"], note), audit.validate,
                                       settings=settings, study_id=study_id, turn=audit.turn, agent="auditor",
                                       role="audit", metadata={"item": item["id"]}, sink=sink)
            except CostCeilingReached:
                raise
            except GatewayError as exc:
                failed += 1
                say(f"{audit.name}: call failed for {item['id']} ({exc}); it will be retried next time")
                return
        audit.record(item, asked.parsed, asked.raws[-1] if asked.raws else None)

    await asyncio.gather(*(one(i) for i in items))
    done = report()
    done.failed_calls = failed
    return done


def of_one_model(rows: list[dict], model: str | None) -> tuple[str | None, list[dict]]:
    """The stored guesses of `model`, or of the latest model audited when None: (that model, its rows)."""
    if model is None and rows:
        model = rows[-1]["model"]
    return model, [r for r in rows if r["model"] == model]
