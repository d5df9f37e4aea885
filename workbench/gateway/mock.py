"""The built-in `mock` model: deterministic, offline, plainly marked placeholder text.

It lets a whole study run end to end without a model: every architecture turn
gets text in the final-report shape, so programs flow through. Anything asking
for JSON gets the same prose, which callers must treat as unparseable (a judge
error, never a score).
"""

from __future__ import annotations

import hashlib

from workbench.gateway.api import CallRequest

PLACEHOLDER_PREFIX = "[placeholder: mock model]"


def mock_text(request: CallRequest) -> str:
    who = request.role + (f"/{request.agent}" if request.agent else "")
    if request.turn:
        who += f", turn {request.turn}"
    last_user = next((str(m.get("content") or "") for m in reversed(request.messages)
                      if m.get("role") == "user"), "")
    excerpt = " ".join(last_user.split()[:16])
    digest = hashlib.sha256(repr((request.messages, request.replicate, request.sample)).encode()).hexdigest()[:8]
    return (
        f"{PLACEHOLDER_PREFIX} Asked by {who}. This is offline placeholder text, not a model's answer "
        f"(draw {digest}, replicate {request.replicate}, sample {request.sample}).\n\n"
        f"Prompt began: \"{excerpt}\"\n\n"
        "Recommendation: [placeholder] no recommendation was made by a model.\n"
        "Reasoning: [placeholder] no reasoning was produced.\n"
        "Risks: [placeholder] no risks were identified.\n"
        "Confidence: [placeholder] none.\n"
    )


def sim_text(request: CallRequest, db) -> str:
    """The `sim` model's reply: the simulator of the call's protocol (workbench/simmodel's engine, which
    finds it through the registry, so the gateway never imports a protocol)."""
    from workbench.simmodel.engine import reply

    return reply(request, db)
