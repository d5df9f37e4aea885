"""Writes and reads on the hot path (every call, event and run) without a schema lookup per row.

sqlite-utils' `Table.insert`, `upsert`, `rows_where` and `count_where` ask `exists()` first, which reads
`sqlite_master` (all of it) on every row: half the CPU of a study on `mock`. The tables here are known
(the migrations made them), so their statements are built once per table and column set and reused
(sqlite3 keeps the compiled statement in its cache). Values are stored as sqlite-utils stores them
(dicts and lists as JSON), so a row reads back the same either way.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

import sqlite_utils

_INSERTS: dict[tuple[str, tuple[str, ...]], str] = {}
_UPSERTS: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}


def _value(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, default=repr, ensure_ascii=False)  # what sqlite-utils stores
    return value


def insert_row(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> int:
    """Insert one row into a known table; returns its rowid. Call inside `writer(db)`."""
    columns = tuple(row)
    sql = _INSERTS.get((table, columns))
    if sql is None:
        sql = _INSERTS[(table, columns)] = (
            f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})")
    return db.execute(sql, [_value(v) for v in row.values()]).lastrowid


def upsert_row(db: sqlite_utils.Database, table: str, row: dict[str, Any], pk: Sequence[str]) -> None:
    """Insert one row, or update the row with the same primary key `pk` (every given column replaced,
    the others kept: what sqlite-utils' `upsert` does). Call inside `writer(db)`."""
    columns, pk = tuple(row), tuple(pk)
    sql = _UPSERTS.get((table, columns, pk))
    if sql is None:
        rest = [c for c in columns if c not in pk]
        sql = _UPSERTS[(table, columns, pk)] = (
            f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)}) "
            f"ON CONFLICT ({', '.join(f'[{c}]' for c in pk)}) DO "
            + (f"UPDATE SET {', '.join(f'[{c}] = excluded.[{c}]' for c in rest)}" if rest else "NOTHING"))
    db.execute(sql, [_value(v) for v in row.values()])


def select_rows(db: sqlite_utils.Database, sql: str, params: Iterable[Any] = ()) -> list[dict]:
    """Every row of a query as a dict keyed by column name."""
    cursor = db.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]
