"""A study's run lock: one process runs a study at a time (`<store>.logs/<study>.run.lock`, an exclusive flock the
OS releases if the process dies), and a view asks who holds it, so a run another process is running is shown as
running, not as interrupted."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

import sqlite_utils


class StudyLocked(RuntimeError):
    pass


def _lock_path(db: sqlite_utils.Database, study_id: str) -> Path | None:
    from store.db import store_path
    from workbench.paths import logs_dir

    path = store_path(db)
    return None if path is None else logs_dir(path) / f"{study_id}.run.lock"


@contextlib.contextmanager
def study_lock(db: sqlite_utils.Database, study_id: str) -> Iterator[None]:
    """An exclusive lock on the study's run lock file; StudyLocked names the process holding it."""
    import fcntl

    lock_path = _lock_path(db, study_id)
    if lock_path is None:  # an in-memory store: one process by definition
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            raise StudyLocked(fh.read().strip() or "another process") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"process {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def lock_holder(db: sqlite_utils.Database, study_id: str) -> str | None:
    """Who runs the study now ("process 1234"), or None: the lock is free, or held by this process."""
    import fcntl

    lock_path = _lock_path(db, study_id)
    if lock_path is None or not lock_path.exists():
        return None
    with open(lock_path) as fh:
        holder = fh.read().strip()
        if holder == f"process {os.getpid()}":
            return None
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return holder or "another process"
        fcntl.flock(fh, fcntl.LOCK_UN)
    return None
