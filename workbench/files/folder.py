"""A folder of files the tool writes (exports, saved metrics): nothing in it the workbench did not write is
ever replaced or deleted.

Every writer of folders goes through `write_folder`. The folder keeps a manifest (MANIFEST: each file the
workbench wrote there, with its SHA-256). Writing again into a folder that holds anything needs `replace`
(the TUI asks first and names what would be replaced; a batch command needs --force); even then only the
files the manifest lists, unchanged since, are replaced or removed. A file the user put there, or edited
since, is never touched: a new file of the same name is refused, naming it.

Each file is written whole: the new files are filled in a temporary sibling folder and flushed to disk
before the first is moved in. The manifest lists the old and the new files while they are moved, so an
interrupted write leaves every file it moved in recorded as the workbench's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from workbench.files.whole import WriteError, write_error, write_text

MANIFEST = ".workbench-files"  # JSON inside; no extension, so a tool globbing *.json or *.csv never reads it
WRITER = "hindsight-workbench"


@dataclass(frozen=True)
class FolderState:
    """What an output folder holds: the files the workbench wrote there (`ours`: listed in its manifest and
    unchanged since) and everything else (`theirs`: never replaced, never deleted)."""

    path: Path
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.ours and not self.theirs

    def text(self) -> str:
        """`holds 3 files the workbench wrote (a, b, c), replaced; 1 other (notes.txt), kept`."""
        parts = []
        if self.ours:
            parts.append(f"{len(self.ours)} file(s) the workbench wrote here, replaced: {_names(self.ours)}")
        if self.theirs:
            parts.append(f"{len(self.theirs)} other(s), kept as they are: {_names(self.theirs)}")
        return f"{self.path} holds " + "; ".join(parts) if parts else f"{self.path} is empty"


class FolderNotEmpty(WriteError):
    """The folder already holds files, and replacing the workbench's own among them was not asked for."""

    def __init__(self, state: FolderState) -> None:
        super().__init__(39, "not empty", str(state.path))  # ENOTEMPTY
        self.state = state

    def __str__(self) -> str:
        return f"{self.state.text()}; nothing was written"


class ForeignFile(WriteError):
    """A file to be written has the name of a file the workbench did not write (or one edited since)."""

    def __str__(self) -> str:
        return (f"{self.filename}: a file the workbench did not write (or edited since) has this name; it is "
                "never replaced: choose another folder or move it (nothing was written)")


def _names(names: tuple[str, ...], at_most: int = 6) -> str:
    shown = ", ".join(names[:at_most])
    return shown + (f" and {len(names) - at_most} more" if len(names) > at_most else "")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _manifest(out: Path) -> dict[str, str]:
    try:
        doc = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = doc.get("files") if isinstance(doc, dict) and doc.get("writer") == WRITER else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def _entries(out: Path) -> list[str]:
    """Every file below `out` (relative, `/`-separated), the manifest left out."""
    found = []
    for root, dirs, files in os.walk(out):
        dirs.sort()
        for name in sorted(files):
            rel = Path(root, name).relative_to(out).as_posix()
            if rel != MANIFEST:
                found.append(rel)
    return found


def folder_state(out: str | Path) -> FolderState:
    """What `out` holds now (an absent folder is empty); a path that is not a folder raises WriteError."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise WriteError(20, "exists and is not a folder", str(out))  # ENOTDIR
    if not out.exists():
        return FolderState(out, (), ())
    listed = _manifest(out)
    ours, theirs = [], []
    for rel in _entries(out):
        same = rel in listed and _sha256(out / rel) == listed[rel]
        (ours if same else theirs).append(rel)
    return FolderState(out, tuple(ours), tuple(theirs))


def _write_manifest(out: Path, files: dict[str, str]) -> None:
    write_text(out / MANIFEST, json.dumps({"writer": WRITER, "files": dict(sorted(files.items()))}, indent=2) + "\n")


def write_folder(out: str | Path, fill: Callable[[Path], list[Path]], *, replace: bool = False) -> list[Path]:
    """`fill(tmp)` writes the files into a temporary folder and returns them; they are moved into `out`, whose
    earlier files of the workbench are replaced or removed (only with `replace` when `out` holds anything:
    else FolderNotEmpty). Returns their final paths. Raises WriteError naming `out` or the file that failed,
    ForeignFile when a new file would replace one the workbench did not write."""
    from workbench.paths import ordinary_file_mode

    out = Path(out)
    state = folder_state(out)
    if not state.empty and not replace:
        raise FolderNotEmpty(state)
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
        os.chmod(tmp, ordinary_file_mode() | 0o111)  # a folder the user shares like any other (mkdtemp: 0700)
    except OSError as exc:
        raise write_error(exc, out) from exc
    try:
        written = [Path(p).relative_to(tmp).as_posix() for p in fill(tmp)]
        clash = [rel for rel in written if rel in state.theirs or rel == MANIFEST]
        if clash:
            raise ForeignFile(17, "not written by the workbench", str(out / clash[0]))  # EEXIST
        hashes = {}
        for rel in written:
            with open(tmp / rel, "rb") as fh:
                os.fsync(fh.fileno())
            hashes[rel] = _sha256(tmp / rel)
        out.mkdir(parents=True, exist_ok=True)
        before = _manifest(out)
        _write_manifest(out, {**{k: v for k, v in before.items() if k in state.ours}, **hashes})
        for rel in written:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / rel, out / rel)
        for rel in state.ours:
            if rel not in hashes:  # the workbench's file of an earlier write that this one no longer has
                (out / rel).unlink(missing_ok=True)
        _write_manifest(out, hashes)
    except OSError as exc:
        failed = out
        if exc.filename and Path(exc.filename).is_relative_to(tmp):  # the file inside that failed, as it would be named
            failed = out / Path(exc.filename).relative_to(tmp)
        if isinstance(exc, WriteError):
            raise
        raise write_error(exc, failed) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [out / rel for rel in written]
