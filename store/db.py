"""Opening the store: pragmas, migrations, and the single-writer transaction."""

from __future__ import annotations

import contextlib
import errno
import sqlite3
import sys
from pathlib import Path
from typing import Iterator


def _import_sqlite_utils():
    """sqlite-utils imports pandas and numpy when they are installed, only to map their types when it creates
    a table from values; the store's tables come from migrations. Those two imports were half the start-up of
    every batch command, so they are hidden while sqlite-utils loads (later imports of them work as usual)."""
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # an ImportError for sqlite-utils, which then does without
    try:
        import sqlite_utils
    finally:
        for name in hidden:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()

BUSY_TIMEOUT_MS = 30_000


class StoreError(Exception):
    """A store problem worth showing to the user as it is."""


class DiskFull(StoreError):
    """Something could not be written because its filesystem (or the store's size limit) is full."""

    def __init__(self, what: str, where: str | Path) -> None:
        self.what, self.where = what, str(where)
        super().__init__(f"no space left: could not write {what} to {where}; free space on that "
                         "filesystem (nothing already stored was lost), then run the command again")


_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def is_disk_full(exc: BaseException | None) -> bool:
    """True when `exc`, or anything it was raised from, is ENOSPC / EDQUOT / EFBIG or SQLITE_FULL."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, DiskFull):
            return True
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return True
        if isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
                                                or "database or disk is full" in str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def disk_full_error(exc: BaseException, what: str, where: str | Path) -> DiskFull:
    """The DiskFull already in `exc`'s chain (it knows best what failed), else a new one."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, DiskFull):
            return cur
        cur = cur.__cause__ or cur.__context__
    return DiskFull(what, where)


def _configure(db: sqlite_utils.Database, *, wal: bool) -> None:
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA foreign_keys = ON")
    if wal:
        with db.ensure_autocommit_on():
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")


def open_store(path: str | Path, *, migrate: bool = True) -> sqlite_utils.Database:
    """Open (creating if needed) the store at `path`, in WAL mode, migrated to the latest schema."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # timeout doubles as the busy handler for the sqlite3 module's own locking.
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open store {path}: {exc}") from exc
    db = sqlite_utils.Database(conn)
    try:
        _configure(db, wal=True)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path} is not a workbench store: {exc}") from exc
    if migrate:
        from store.migrations import migrate as run_migrations

        run_migrations(db)
    return db


def open_memory_store() -> sqlite_utils.Database:
    """A migrated in-memory store, for tests."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    db = sqlite_utils.Database(conn)
    _configure(db, wal=False)
    from store.migrations import migrate as run_migrations

    run_migrations(db)
    return db


def store_path(db: sqlite_utils.Database) -> Path | None:
    """The file behind a store, or None for an in-memory one."""
    row = db.execute("PRAGMA database_list").fetchone()
    return Path(row[2]) if row and row[2] else None


_WHOLE: set[int] = set()  # connections (id) in a `writer(whole=True)` transaction


@contextlib.contextmanager
def writer(db: sqlite_utils.Database, *, whole: bool = False) -> Iterator[sqlite_utils.Database]:
    """One write transaction, taken with BEGIN IMMEDIATE so that two processes
    writing at once queue on the busy timeout instead of failing on upgrade.

    Nested use takes a savepoint (one name for all: SQLite nests them, and the statement stays compiled,
    where sqlite-utils' `atomic()` makes up a new name, and a new statement, each time), so a caller that
    catches a nested failure keeps the rest. `whole`: this transaction is kept whole or not at all (its
    caller lets any failure inside end it), so the writers nested in it need no savepoint of their own
    (a run's turn: its events and rows, two statements fewer for each).
    """
    if db.conn.in_transaction:
        if id(db.conn) in _WHOLE:
            yield db
            return
        db.conn.execute("SAVEPOINT writer")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:  # an error may have ended the whole transaction already
                db.conn.execute("ROLLBACK TO SAVEPOINT writer")
                db.conn.execute("RELEASE SAVEPOINT writer")
            raise
        db.conn.execute("RELEASE SAVEPOINT writer")
        return
    db.execute("BEGIN IMMEDIATE")
    if whole:
        _WHOLE.add(id(db.conn))
    try:
        yield db
        db.execute("COMMIT")  # may fail too (a full disk): then nothing of it is kept
    except BaseException:
        _rollback(db)
        raise
    finally:
        _WHOLE.discard(id(db.conn))


def _rollback(db: sqlite_utils.Database) -> None:
    """Undo the open transaction, if SQLite has not already (it may after SQLITE_FULL). A failing
    rollback must not hide the error that caused it."""
    if db.conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.conn.rollback()
