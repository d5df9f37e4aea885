"""What a report keeps from the store as it was when the report was first written (issue 42: a published M11
report's trend changed when it was written again, because a study run after it joined the trend).

A figure that reads other studies (M11's trend) is computed once, stored with the study (an artifact, kind
`report`) with the time to the minute, and every later writing of the report reproduces it; `report --update`
computes it afresh and stores that instead.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

KIND = "report"


def kept(db, study_id: str, name: str, compute: Callable[[], Any], *, update: bool = False) -> tuple[Any, str]:
    """(value, as_of): the value stored at the report's first writing (or computed and stored now, on the first
    writing or with `update`), and when it was taken, to the minute (UTC)."""
    from store.items import get_artifact, put_artifact

    stored = None if update else get_artifact(db, study_id, KIND, name)
    if stored is not None:
        return stored["value"], stored["as_of"]
    as_of = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    value = compute()
    put_artifact(db, study_id, KIND, name, {"value": value, "as_of": as_of})
    return get_artifact(db, study_id, KIND, name)["value"], as_of   # as stored: the first writing reads as the next
