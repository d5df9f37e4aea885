"""Where things live: the store, the shipped cases and rubrics, the call logs."""

from __future__ import annotations

import os
from pathlib import Path


DB_ENV = "WORKBENCH_DB"
CASES_ENV = "WORKBENCH_CASES_DIR"
RUBRICS_ENV = "WORKBENCH_RUBRICS_DIR"
CASE_LIBRARY_ENV = "WORKBENCH_CASE_LIBRARY"

# The project root of a source or editable install: cases/ and rubrics/ sit beside workbench/.
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def __getattr__(name: str):
    """`StoreError`, what opening a store raises (the TUI catches it from here), imported when first asked
    for: store/db.py imports sqlite-utils, which the TUI's first frame and its command line do without."""
    if name == "StoreError":
        from store.db import StoreError

        return StoreError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_db_path() -> Path:
    """`$WORKBENCH_DB` if set, else `workbench.db` under the platformdirs user data dir."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("hindsight-workbench", appauthor=False)) / "workbench.db"


def resolve_db_path(cli_value: str | os.PathLike | None) -> Path:
    """`--db` wins over the environment variable, which wins over the default."""
    if cli_value:
        return Path(cli_value).expanduser()
    return default_db_path()


def model_cache_dir() -> Path:
    """Where model files unpacked from packages live (all-mpnet-base-v2's joined parts): `$WORKBENCH_MODEL_CACHE`
    if set, else `models/` under the platformdirs user cache dir."""
    env = os.environ.get("WORKBENCH_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("hindsight-workbench", appauthor=False)) / "models"


def shipped_cases_dir() -> Path:
    return Path(os.environ.get(CASES_ENV) or PROJECT_ROOT / "cases")


def user_cases_dir() -> Path:
    """The user's case library, where cases created in the TUI are saved (never the installed package's
    cases/): `$WORKBENCH_CASE_LIBRARY` if set, else `cases/` under the platformdirs user data dir."""
    env = os.environ.get(CASE_LIBRARY_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("hindsight-workbench", appauthor=False)) / "cases"


def ordinary_file_mode() -> int:
    """0666 less the umask: what open() would give a new file. tempfile.mkstemp makes 0600, right only for
    files that hold sealed data."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def shipped_rubrics_dir() -> Path:
    return Path(os.environ.get(RUBRICS_ENV) or PROJECT_ROOT / "rubrics")


def logs_dir(db_path: Path) -> Path:
    """Call logs live beside the store: `<db stem>.logs/<study>.jsonl`."""
    return db_path.parent / f"{db_path.stem}.logs"


def open_workbench_store(path: str | os.PathLike, *, migrate: bool = True):
    """The store at `path`, migrated (the TUI's own connection; a worker thread opens its own)."""
    from store.db import open_store

    return open_store(Path(path), migrate=migrate)


def thread_connection(db):
    """A connection of its own to the same store, for a worker thread (the same one for an in-memory
    store, which has no file to open again). The caller closes it when it is not `db`."""
    from store.db import store_path

    where = store_path(db)
    return open_workbench_store(where, migrate=False) if where else db
