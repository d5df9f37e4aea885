"""The real-model replies kept under tests/fixtures/real_replies/ (model and server named in each file)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.loopback import Reply

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "real_replies"


def load(name: str) -> dict:
    """One fixture: model, server, step, max_tokens, finish_reason, content, provenance."""
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def reply(name: str) -> Reply:
    """The fixture as the loopback server sends it: its text and its finish reason."""
    d = load(name)
    return Reply.text(d["content"], finish_reason=d["finish_reason"])
