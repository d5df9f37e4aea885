"""Key-value settings stored as JSON."""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from store.db import writer


def get_setting(db: sqlite_utils.Database, key: str, default: Any = None) -> Any:
    rows = list(db["settings"].rows_where("key = ?", [key]))
    return json.loads(rows[0]["value"]) if rows else default


def set_setting(db: sqlite_utils.Database, key: str, value: Any) -> None:
    with writer(db):
        db["settings"].upsert({"key": key, "value": json.dumps(value)}, pk="key")
