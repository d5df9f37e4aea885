"""Migrations create every table on an empty store and keep every row of a populated one."""

from __future__ import annotations

import sqlite3

import sqlite_utils

from store import open_memory_store, open_store
from store.migrations import migrations, pending

EXPECTED_TABLES = {
    "cases", "rubrics", "studies", "frozen_artefacts", "runs", "calls", "events", "outputs", "topology",
    "blind_items", "blind_key", "raters", "assignments", "scores", "verdicts", "blindness_audits",
    "unblindings", "probes", "embeddings", "concern_scores", "settings",
}


def test_empty_store_gets_every_table(tmp_path):
    db = open_store(tmp_path / "s.db")
    assert EXPECTED_TABLES <= set(db.table_names())
    assert pending(db) == []
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_populated_store_keeps_rows_when_migrated_again(tmp_path):
    path = tmp_path / "s.db"
    db = open_store(path)
    db["settings"].insert({"key": "k", "value": "1"})
    db["cases"].insert({"id": "c1", "title": "t", "type": "historical", "domain": "policy", "status": "draft",
                        "content_hash": "h", "document": "{}", "updated_at": "now"})
    db.close()
    # A later version appends a migration: it must run once and keep every row.
    extra_name = "9999_test_extra_column"

    @migrations(name=extra_name)
    def add_column(db):
        db["cases"].add_column("extra", str)

    try:
        db2 = open_store(path)
        assert db2["settings"].get("k")["value"] == "1"
        assert db2["cases"].get("c1")["title"] == "t"
        assert "extra" in db2["cases"].columns_dict
        assert pending(db2) == []
        db2.close()
        db3 = open_store(path)  # opening again applies nothing twice
        assert db3["cases"].count == 1
    finally:
        migrations._migrations = [m for m in migrations._migrations if m.name != extra_name]


def test_pre_existing_unversioned_file_is_refused_cleanly(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    from store import StoreError
    import pytest

    with pytest.raises(StoreError, match="not a workbench store"):
        open_store(path)


def test_foreign_keys_enforced():
    db = open_memory_store()
    import pytest

    with pytest.raises(sqlite3.IntegrityError):
        db["runs"].insert({"id": "r", "study_id": "missing", "case_id": "missing", "condition": "B1"})


def test_writer_rolls_back_everything_on_error(tmp_path):
    from store import writer
    import pytest

    db = open_store(tmp_path / "s.db")
    with pytest.raises(RuntimeError):
        with writer(db):
            db["settings"].insert({"key": "a", "value": "1"})
            raise RuntimeError("boom")
    assert db["settings"].count == 0
    assert isinstance(db, sqlite_utils.Database)


def test_a_nested_writer_keeps_a_caught_failure_apart_unless_the_transaction_is_whole(tmp_path):
    """Nested writers take a savepoint, so a caller that catches a nested failure keeps the rest; in a `whole`
    transaction they take none (two statements fewer each), and any failure inside ends it all."""
    import pytest

    from store import writer

    db = open_store(tmp_path / "s.db")
    statements = []
    db.conn.set_trace_callback(statements.append)

    def put(key):
        with writer(db):
            db.execute("INSERT INTO settings (key, value) VALUES (?, '1')", [key])

    with writer(db):
        put("kept")
        with pytest.raises(RuntimeError):
            with writer(db):
                put("undone")
                raise RuntimeError("a nested failure, caught")
    assert [r["key"] for r in db["settings"].rows] == ["kept"]
    assert statements.count("SAVEPOINT writer") == 3

    statements.clear()
    with writer(db, whole=True):
        put("a")
        put("b")
    assert "SAVEPOINT writer" not in statements and [r["key"] for r in db["settings"].rows] == ["kept", "a", "b"]
    with pytest.raises(RuntimeError):
        with writer(db, whole=True):
            put("c")
            raise RuntimeError("boom")
    assert [r["key"] for r in db["settings"].rows] == ["kept", "a", "b"]
    statements.clear()
    with writer(db):  # the next transaction is not whole again
        put("d")
    assert statements.count("SAVEPOINT writer") == 1
