"""The JSON schema of each structured step's reply (issue 19), sent with the request where the model decodes
by schema (workbench/gateway/transport.py decides); `parsing.py` stays the check and the fallback.

Each schema has the shape `parsing.py` reads, and every reply it admits is one the parser takes as is. Where
JSON Schema cannot say what the parser checks (a relation joining two listed arguments, node ids used once),
the parser still refuses. The project's own constraints, beyond the prompts' wording (README, "Choices"):
numbers on [0, 1] are listed as 0.00 ... 1.00 (grammar decoders do not enforce a number's bounds), and
crux cards and QBAF arguments cite only the debate's own message ids.
"""

from __future__ import annotations

UNIT_STEPS = [round(i / 100, 2) for i in range(101)]
STANCE_VALUES = [-2, -1, 0, 1, 2, None]   # the STANCES prompt's scale; null = the statement says nothing
MAX_CARDS = 4                             # the CRUX_CARDS prompt: "One to four cards"
MAX_ARGUMENTS = 12                        # the QBAF prompt: "At most 12 arguments"


def _object(properties: dict, required: list[str] | None = None) -> dict:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required, "additionalProperties": False}


def _text() -> dict:
    return {"type": "string", "minLength": 1}


def _message_id(message_ids: list[str]) -> dict:
    return {"type": "string", "enum": list(message_ids)} if message_ids else {"type": "string"}


def claims_schema() -> dict:
    return {"name": "faultline_claims", "schema": _object({"claims": {"type": "array", "items": _text()}})}


def stances_schema(claim_ids: list[str]) -> dict:
    """One stance per claim on the table: −2…+2 or null."""
    stance = {"enum": STANCE_VALUES}
    return {"name": "faultline_stances",
            "schema": _object({"stances": _object({cid: stance for cid in claim_ids})})}


def crux_cards_schema(message_ids: list[str]) -> dict:
    card = _object({"question": _text(), "diagnosis": _text(),
                    "messages": {"type": "array", "items": _message_id(message_ids)}})
    return {"name": "faultline_crux_cards",
            "schema": _object({"cards": {"type": "array", "items": card, "minItems": 1, "maxItems": MAX_CARDS}})}


def qbaf_schema(persona_ids: list[str], message_ids: list[str]) -> dict:
    """Arguments with a base score per debater, and attack/support relations between them."""
    unit = {"type": "number", "enum": UNIT_STEPS}
    argument = _object({"id": _text(), "text": _text(), "message": _message_id(message_ids),
                        "base": _object({pid: unit for pid in persona_ids})})
    relation = _object({"from": _text(), "to": _text(), "type": {"type": "string", "enum": ["attack", "support"]}})
    return {"name": "faultline_qbaf", "schema": _object({
        "arguments": {"type": "array", "items": argument, "minItems": 1, "maxItems": MAX_ARGUMENTS},
        "relations": {"type": "array", "items": relation}})}


def belief_graph_schema(size: int) -> dict:
    """Exactly `size` nodes (the parser refuses fewer and drops more), each with a credence on [0, 1]."""
    node = _object({"id": _text(), "claim": _text(), "credence": {"type": "number", "enum": UNIT_STEPS}})
    edge = _object({"from": _text(), "to": _text(), "type": {"type": "string", "enum": ["supports", "attacks"]}})
    return {"name": "faultline_belief_graph", "schema": _object({
        "nodes": {"type": "array", "items": node, "minItems": size, "maxItems": size},
        "edges": {"type": "array", "items": edge}})}
