"""The app's store, opened once, after the first frame.

Opening the store imports sqlite-utils and checks the migrations, and a first launch loads the shipped
cases: none of it is needed to draw the first screen. The app asks for the store from a thread worker once
that screen is painted (`WorkbenchApp.open_store_in_background`); whoever needs it sooner, a worker or the
main thread, opens it there and then, or waits for the opening under way. A store that cannot be opened
raises the same StoreError to every caller.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import sqlite_utils


class StoreOpening:
    def __init__(self, path: Path, open_store: Callable[[Path], sqlite_utils.Database]) -> None:
        self.path = path
        self._open_store = open_store
        self._lock = threading.Lock()
        self._db: sqlite_utils.Database | None = None
        self._error: Exception | None = None

    def get(self) -> sqlite_utils.Database:
        """The open store; opens it first if no one has (or waits for the opening under way)."""
        with self._lock:
            if self._db is None and self._error is None:
                from workbench.paths import StoreError

                try:
                    self._db = self._open_store(self.path)
                except StoreError as exc:
                    self._error = exc
        if self._error is not None:
            raise self._error
        return self._db

    @property
    def is_open(self) -> bool:
        return self._db is not None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
