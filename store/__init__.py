"""SQLite persistence through sqlite-utils: the only package that speaks SQL.

`open_store(path)` returns a migrated `sqlite_utils.Database`; each module here
(`cases`, `rubrics`, `calls`, `runs`, ...) holds the reads and writes for one area.
"""

from store.db import DiskFull, StoreError, is_disk_full, open_memory_store, open_store, writer

__all__ = ["DiskFull", "StoreError", "is_disk_full", "open_memory_store", "open_store", "writer"]
