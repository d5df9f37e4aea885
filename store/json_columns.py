"""Reading the JSON columns of a row (the documents the core owns the shape of)."""

from __future__ import annotations

import json
from collections.abc import Mapping


def decoded(row: Mapping, *columns: str, empty: str | None = None) -> dict:
    """The row as a new dict with its JSON `columns` decoded; with `empty` ("{}", "[]"), a NULL or empty
    column reads as that document."""
    out = dict(row)
    for column in columns:
        out[column] = json.loads(out[column] or empty if empty is not None else out[column])
    return out
