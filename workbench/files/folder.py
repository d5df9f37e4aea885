"""A folder written whole: fill a temporary sibling, then rename it into place.

A fault (a full disk, a crash) leaves the previous folder as it was, or no folder, never a half-written
one; the previous folder is replaced only after the new one is complete and on disk.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from workbench.files.whole import WriteError, write_error


def write_folder(out: str | Path, fill: Callable[[Path], list[Path]]) -> list[Path]:
    """`fill(tmp)` writes the files into a temporary sibling of `out` and returns them; returns their final
    paths. Raises WriteError naming `out` (or the file inside it that failed)."""
    from workbench.paths import ordinary_file_mode

    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if out.exists() and not out.is_dir():
        raise WriteError(20, "exists and is not a folder", str(out))  # ENOTDIR
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
        os.chmod(tmp, ordinary_file_mode() | 0o111)  # a folder the user shares like any other (mkdtemp: 0700)
    except OSError as exc:
        raise write_error(exc, out) from exc
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
        failed = out
        if exc.filename and Path(exc.filename).is_relative_to(tmp):  # the file inside that failed, as it would be named
            failed = out / Path(exc.filename).relative_to(tmp)
        raise write_error(exc, failed) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / p.name for p in written]
