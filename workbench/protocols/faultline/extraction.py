"""Extraction by the study's extractor model: claims from every persona message, and each persona's
stance (−2…+2) on each claim on the table from its opening and its closing statement.

An unparseable reply is retried once and then counted as an extraction error:
that message's claims or that stance set stay missing, never made up.
"""

from __future__ import annotations

from workbench.events import STANCE
from workbench.gateway.api import ModelSettings
from workbench.protocols.faultline import parsing, prompts, schemas
from workbench.protocols.faultline.turns import json_turn
from workbench.runs.context import RunContext


def claim_rows(topic: dict) -> tuple[list[str], str]:
    claims = topic["contested"] + topic["verifiable"]
    return [c["id"] for c in claims], "\n".join(f"- {c['id']}: {c['claim']}" for c in claims)


async def stances_of(ctx: RunContext, turn_id: str, speaker: str, text: str, topic: dict,
                     settings: ModelSettings, *, sample: int = 0) -> tuple[dict | None, str | None]:
    ids, listed = claim_rows(topic)
    return await json_turn(ctx, turn_id, "extractor", prompts.STANCES.format(speaker=speaker, claims=listed, text=text),
                           lambda o: parsing.stances(o, ids), step="stances", phase="extraction",
                           label=f"extractor: stances of {speaker}", role="extractor", settings=settings,
                           sample=sample, schema=schemas.stances_schema(ids))


async def extract_debate(ctx: RunContext, topic: dict, personas: list[dict], messages: list[dict],
                         settings: ModelSettings) -> dict:
    """{"claims": {message id: [claims] | None}, "stances": {"opening"|"closing": {persona: {...} | None}},
    "errors": [...]}"""
    claims: dict[str, list[str] | None] = {}
    errors: list[dict] = []
    for m in messages:
        found, error = await json_turn(ctx, f"claims:{m['id']}", "extractor", prompts.CLAIMS.format(text=m["text"]),
                                       parsing.claims, step="claims", phase="extraction", label=f"extractor: claims of {m['id']}",
                                       role="extractor", settings=settings, schema=schemas.claims_schema())
        claims[m["id"]] = found
        if found is None:
            errors.append({"step": "claims", "turn": f"claims:{m['id']}", "error": error})
    stances: dict[str, dict] = {"opening": {}, "closing": {}}
    for phase in ("opening", "closing"):
        for p in personas:
            msg = next((m for m in messages if m["persona"] == p["id"] and m["phase"] == phase), None)
            if msg is None:
                stances[phase][p["id"]] = None
                continue
            found, error = await stances_of(ctx, f"stance:{p['id']}:{phase}", p["name"], msg["text"], topic, settings)
            stances[phase][p["id"]] = found
            if found is None:
                errors.append({"step": "stances", "turn": f"stance:{p['id']}:{phase}", "error": error})
            else:
                ctx.emit(STANCE, agent=p["id"], phase=phase, stances=found)
    return {"claims": claims, "stances": stances, "errors": errors}
