"""One file written whole: a temporary sibling, fsync, then an atomic rename over the target."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


class WriteError(OSError):
    """Writing `filename` failed: an OSError (so a full disk is still recognised as one) whose filename is
    the path the user named and whose message says nothing was written there."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror or 'cannot write'} (nothing was written to it)"


def write_error(exc: OSError, path: str | Path) -> WriteError:
    return WriteError(exc.errno, exc.strerror or str(exc), str(path))


@contextlib.contextmanager
def writing(path: str | Path, *, sealed: bool = False) -> Iterator[IO[str]]:
    """A text handle whose contents become `path` when the block ends without an error, and are thrown
    away otherwise. Readable like any file the user writes (the umask's mode), unless it holds sealed data
    (`sealed`: owner only, mkstemp's 0600)."""
    from workbench.paths import ordinary_file_mode

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise write_error(exc, path) from exc
    try:
        if not sealed:
            os.chmod(tmp, ordinary_file_mode())
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())  # on disk before the rename makes it the file
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise write_error(exc, path) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | Path, text: str, *, sealed: bool = False) -> Path:
    """Write `text` to `path` whole (see `writing`)."""
    with writing(path, sealed=sealed) as fh:
        fh.write(text)
    return Path(path)
