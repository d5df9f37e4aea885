"""Requests a study abandoned on a server that may still be generating them (issue 40).

A call cancelled by Ctrl-C (recorded `cancelled`), or in flight when its process was killed (its journal entry
lost), ended for the workbench but not always for the server. The gateway closes the connection of every call
it cancels (tests/gateway/test_cancel_closes_streams.py). On llama-cpp-python 0.3.36 that stops a streamed
generation at its next token (its event publisher checks `request.is_disconnected()` between chunks) and a whole
reply still queued for the model's lock (checked before the model is invoked), but a whole reply being generated
runs to its end in a worker thread (tests/realmodel/test_cancel_stops_generation.py). Nor has that server an
endpoint to stop one: its routes are the OpenAI ones and /extras/tokenize, /extras/tokenize/count,
/extras/detokenize. llama.cpp's own server cancels a request whose connection closes; its
`/slots/{id}?action=erase` is deferred while the slot is busy, so it stops nothing and the gateway does not call
it. A resume on a one-slot server may thus wait for an abandoned generation to end, silently.

`abandoned_request` finds the latest such request to an endpoint, recent enough to still be running (within
the model's own `timeout`); the gateway names it once a call has waited past its first-token timeout
(`notice`), with how long it has waited.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import sqlite_utils


def abandoned_request(db: sqlite_utils.Database, study_id: str | None, api_base: str | None, *,
                      within: float) -> dict | None:
    """The study's latest request to `api_base` abandoned in the last `within` seconds, as {"at", "how"}, or
    None. A cancelled stream is left out: closing it stopped its generation."""
    from store import calls as call_rows

    if not api_base or not study_id:
        return None
    base = api_base.rstrip("/")
    since = datetime.now(timezone.utc) - timedelta(seconds=within)
    found: list[tuple[datetime, str]] = []
    for entry in call_rows.journal_unanswered(db, study_id):
        if entry.get("lost_at") and (entry.get("api_base") or "").rstrip("/") == base:
            found.append((_when(entry["sent_at"]), "in flight when its process ended"))
    for row in call_rows.calls_for(db, study_id=study_id):
        if row["status"] != "cancelled" or (row["api_base"] or "").rstrip("/") != base:
            continue
        if json.loads(row["settings"] or "{}").get("stream"):
            continue
        found.append((_when(row["started_at"]), "cancelled while its whole reply was being generated"))
    recent = [f for f in found if f[0] >= since]
    if not recent:
        return None
    at, how = max(recent)
    return {"at": at.isoformat(timespec="seconds"), "how": how}


def _when(text: str) -> datetime:
    at = datetime.fromisoformat(text)
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def notice(endpoint: str, waited: float, abandoned: dict) -> str:
    """What a call waiting past its first-token timeout says when the server may be busy with `abandoned`."""
    at = abandoned["at"].replace("T", " ").split("+")[0]
    return (f"no first token from {endpoint} after {waited:.0f}s: the server may still be busy with a request "
            f"abandoned at {at} UTC ({abandoned['how']}); a llama-cpp-python server generates a whole reply to "
            "its end and has no endpoint to stop it: wait, or restart the server")
