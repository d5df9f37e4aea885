"""Write an export folder whole or not at all: fill a temporary sibling, then rename it into place.

A fault (a full disk, a crash) leaves the previous folder as it was, or no folder, never a half-written
one; the previous folder is replaced only after the new one is complete.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable


class ExportWriteError(Exception):
    """Writing the folder failed; the message names the path that failed."""


def write_folder(out: str | Path, fill: Callable[[Path], list[Path]]) -> list[Path]:
    """`fill(tmp)` writes the files into a temporary sibling of `out`; returns their final paths."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if out.exists() and not out.is_dir():
        raise ExportWriteError(f"{out}: exists and is not a folder")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise ExportWriteError(f"{parent}: cannot write here ({exc.strerror or exc})") from None
    try:
        written = fill(tmp)
        for path in written:
            with open(path, "rb") as fh:
                os.fsync(fh.fileno())
        old = None
        if out.exists():
            old = parent / f".{out.name}.{os.getpid()}.old"
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        where = exc.filename or tmp
        raise ExportWriteError(f"{where}: {exc.strerror or exc} (nothing was written to {out})") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / p.name for p in written]
