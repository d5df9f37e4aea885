"""Extraction by the study's extractor model: claims from every persona message, and each persona's
stance (−2…+2) on each claim on the table from its opening and its closing statement.

An unparseable reply is retried once and then counted as an extraction error:
that message's claims or that stance set stay missing, never made up.

A stance reply that names a claim id not on the table (issue 25: `renewable-suffice`) is read as before
(that entry is no claim's stance), but never silently: `unknown_claims` makes a note of it, which the run's
report keeps under `notes`, the stance event carries, and the metrics count.
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


def unknown_claims(turn_id: str, found, claim_ids: list[str]) -> dict | None:
    """The note for a stance reply that named claim ids not on the table, or None."""
    unknown = getattr(found, "unknown", None) or {}
    if not unknown:
        return None
    names = ", ".join(repr(k) for k in unknown)
    return {"step": "stances", "turn": turn_id, "kind": "unknown_claim_ids", "claims": sorted(unknown),
            "given": unknown,
            "note": f"the stance reply named claim id(s) not on the table ({names}; the table: "
                    f"{', '.join(claim_ids)}): not read as a stance on any claim"}


async def extract_debate(ctx: RunContext, topic: dict, personas: list[dict], messages: list[dict],
                         settings: ModelSettings) -> dict:
    """{"claims": {message id: [claims] | None}, "stances": {"opening"|"closing": {persona: {...} | None}},
    "errors": [...], "notes": [...]}"""
    claims: dict[str, list[str] | None] = {}
    errors: list[dict] = []
    notes: list[dict] = []
    ids, _ = claim_rows(topic)
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
            turn = f"stance:{p['id']}:{phase}"
            found, error = await stances_of(ctx, turn, p["name"], msg["text"], topic, settings)
            stances[phase][p["id"]] = dict(found) if found is not None else None
            if found is None:
                errors.append({"step": "stances", "turn": turn, "error": error})
                continue
            note = unknown_claims(turn, found, ids)
            if note:
                notes.append(note)
            ctx.emit(STANCE, agent=p["id"], phase=phase, stances=dict(found),
                     **({"unknown_claims": note["claims"], "note": note["note"]} if note else {}))
    return {"claims": claims, "stances": stances, "errors": errors, "notes": notes}
