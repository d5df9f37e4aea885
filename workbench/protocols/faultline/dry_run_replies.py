"""The dry run's stand-ins for faultline (workbench/runs/dry_run.py): each structured reply what its parser reads,
as long as the reply is measured to be, so `study create`'s context check measures a debate's largest prompt.

Padding alone parses as no JSON step: every QBAF map fails (no crux carried into the next round), every graph is
empty ("(no beliefs recorded)" where a persona reads its beliefs) and the crux cards are never written. Here a
belief graph has the nodes asked for, a QBAF map lists its most arguments, the first scored apart by the debaters
(its text then put to both as the next round's crux), the crux cards cite every message, and the extractor
answers claims and stances. A step is known by its reply's schema (`schemas.py`), which names the ids its reply must use. The padding fills
the reply's free text; the JSON around it is the stand-in's own few tokens more.

Each structured step's first reply is the padding alone, which no parser takes: its retry (`turns.json_turn`),
which carries that reply and the reason, is then measured too, and the retry's stand-in parses. The costliest
path is both: the longest retry prompt, then the program going on with every value read.
"""

from __future__ import annotations

import json

from workbench.protocols.faultline.schemas import MAX_ARGUMENTS, MAX_CARDS
from workbench.protocols.faultline.turns import RETRY
from workbench.runs.dry_run import padding_pieces


def stand_in(request, padding: str) -> str | None:
    """The reply to one faultline call (None: the padding alone, a debate speech's free prose)."""
    schema = request.response_schema or {}
    if not (request.turn or "").endswith(RETRY):
        return None  # unparsed: the step's retry, carrying this reply, is measured next
    name, body = schema.get("name", ""), schema.get("schema") or {}
    if name == "faultline_belief_graph":
        size = body["properties"]["nodes"]["minItems"]
        nodes = [{"id": f"n{i}", "claim": text, "credence": 0.5}
                 for i, text in enumerate(padding_pieces(padding, size), start=1)]
        return _json({"nodes": nodes, "edges": []})
    if name == "faultline_qbaf":
        first, second = list(body["properties"]["arguments"]["items"]["properties"]["base"]["properties"])
        texts = padding_pieces(padding, MAX_ARGUMENTS)  # the first scored apart: the crux put to both next round
        return _json({"arguments": [{"id": f"a{i}", "text": text, "base": {first: 0.0, second: 1.0 if i == 1 else 0.0}}
                                    for i, text in enumerate(texts, start=1)], "relations": []})
    if name == "faultline_crux_cards":
        cited = body["properties"]["cards"]["items"]["properties"]["messages"]["items"].get("enum", [])
        halves = padding_pieces(padding, 2 * MAX_CARDS)
        return _json({"cards": [{"question": halves[2 * i], "diagnosis": halves[2 * i + 1], "messages": cited}
                                for i in range(MAX_CARDS)]})
    if name == "faultline_claims":
        return _json({"claims": padding_pieces(padding, 3)})
    if name == "faultline_stances":
        return _json({"stances": {cid: 1 for cid in body["properties"]["stances"]["properties"]}})
    return None


def _json(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False)
