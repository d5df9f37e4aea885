"""The append-only, hash-chained JSONL call log: one file per study beside the store.

Each line is one JSON object: the call record plus `seq` (its 1-based line
number), `prev_hash` (the previous line's hash; 64 zeros on the first line)
and `hash` = sha256 of the line's canonical JSON without the `hash` field
(sorted keys, no spaces, UTF-8). Changing, removing or reordering any line
breaks the chain at that line, which `verify_log` names.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Container

GENESIS = "0" * 64


def canonical(record: dict[str, Any]) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def line_hash(entry: dict[str, Any]) -> str:
    return hashlib.sha256(canonical({k: v for k, v in entry.items() if k != "hash"})).hexdigest()


def log_name(study_id: str | None) -> str:
    """The file name for a study's log; calls outside any study go to `_global.jsonl`."""
    if not study_id:
        return "_global.jsonl"
    return re.sub(r"[^A-Za-z0-9._-]", "_", study_id) + ".jsonl"


class TornTail(Exception):
    """The log ends in a partial line (a full disk or a crash mid-write): `line` is its number, `keep` the
    length of the file up to the last whole line, `size` the file's length when it was read."""

    def __init__(self, path: Path, line: int, keep: int, size: int) -> None:
        super().__init__(f"{path}: line {line} is torn ({size - keep} bytes without an end)")
        self.path, self.line, self.keep, self.size = path, line, keep, size

    @property
    def bytes(self) -> int:
        return self.size - self.keep


class CallLog:
    """Appends to one log file. Safe across processes (an exclusive flock around each append).

    A torn last line is never appended after: `append` raises TornTail, and the gateway decides (cut the
    line away if the store never recorded it, stop if it did) before any request is made."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._tail: tuple[int, int, str] | None = None  # (file size, last seq, last hash) we wrote

    def check_tail(self) -> None:
        """Raise TornTail if the log ends in a partial line."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(found.st_mode):
            return
        if self._tail and self._tail[0] == found.st_size:
            return  # it ends where our last whole-line write left it (another writer's would change its size)
        with open(self.path, "rb") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH)
            try:
                size = fh.seek(0, os.SEEK_END)
                if self._tail and self._tail[0] == size:
                    return
                _last_link(fh, size, self.path)
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def cut_tail(self, torn: TornTail) -> None:
        """Remove a torn last line (the caller checked that the store never recorded it)."""
        with open(self.path, "r+b") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                if fh.seek(0, os.SEEK_END) != torn.size:  # another process changed it since: look again
                    raise TornTail(self.path, torn.line, torn.keep, torn.size)
                fh.truncate(torn.keep)
                os.fsync(fh.fileno())
                self._tail = None
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def append(self, record: dict[str, Any]) -> tuple[int, str]:
        """Append one record; returns (line number, hash)."""
        return self.append_many([record])[0]

    def append_many(self, records: list[dict[str, Any]]) -> list[tuple[int, str]]:
        """Append records in order, chained, with one write; returns each one's (line number, hash)."""
        with self._opened() as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                size = fh.seek(0, os.SEEK_END)
                if self._tail and self._tail[0] == size:
                    seq, prev = self._tail[1], self._tail[2]
                else:  # first append, or another process appended since: read the last line
                    seq, prev = _last_link(fh, size, self.path)
                links, lines = [], []
                for record in records:
                    seq += 1
                    entry = dict(record, seq=seq, prev_hash=prev)
                    entry["hash"] = prev = line_hash(entry)
                    lines.append(canonical(entry) + b"\n")
                    links.append((seq, prev))
                data = b"".join(lines)
                # One write() on an O_APPEND descriptor: a killed process leaves whole lines, not torn ones.
                view = memoryview(data)
                while view:
                    view = view[os.write(fh.fileno(), view):]
                self._tail = (size + len(data), seq, prev)
                return links
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def entries_except(self, lines: Container[int]) -> list[dict[str, Any]]:
        """The log's whole records (those that parse) but those at the given line numbers, in order."""
        if not self.path.is_file():
            return []
        out = []
        with open(self.path, "rb") as fh:
            for n, raw in enumerate(fh, start=1):
                if n not in lines and raw.endswith(b"\n"):
                    try:
                        entry = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(entry, dict):
                        out.append(entry)
        return out

    def _opened(self):
        """The log open for appending; its folder is made on the first append (or when it went away)."""
        try:
            return open(self.path, "a+b")
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return open(self.path, "a+b")


def _last_link(fh, size: int, path: Path) -> tuple[int, str]:
    """(seq, hash) of the file's last line, reading backwards from the end. Raises TornTail when the file
    does not end in a whole line (no final newline, or a last line that is not a JSON record)."""
    if size == 0:
        return 0, GENESIS
    block, pos, buf = 65536, size, b""
    fh.seek(size - 1)
    if fh.read(1) != b"\n":
        keep = _start_of_last_line(fh, size)
        seq = _link_before(fh, keep, path)[0]
        raise TornTail(path, seq + 1, keep, size)
    while pos > 0:
        step = min(block, pos)
        pos -= step
        fh.seek(pos)
        buf = fh.read(step) + buf
        stripped = buf[:-1]
        nl = stripped.rfind(b"\n")
        if nl >= 0 or pos == 0:
            try:
                entry = json.loads(stripped[nl + 1:])
                return int(entry["seq"]), entry["hash"]
            except (ValueError, KeyError, TypeError):
                keep = pos + nl + 1 if nl >= 0 else 0
                raise TornTail(path, _link_before(fh, keep, path)[0] + 1, keep, size) from None
    return 0, GENESIS


def _start_of_last_line(fh, size: int) -> int:
    """The offset just after the last newline before `size` (0 when there is none)."""
    pos = size
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        fh.seek(pos)
        chunk = fh.read(step)
        nl = chunk.rfind(b"\n", 0, size - pos)
        if nl >= 0:
            return pos + nl + 1
    return 0


def _link_before(fh, end: int, path: Path) -> tuple[int, str]:
    """(seq, hash) of the last whole line ending at `end`."""
    if end == 0:
        return 0, GENESIS
    return _last_link(fh, end, path)


@dataclass
class VerifyResult:
    ok: bool
    lines: int
    broken_line: int | None = None
    reason: str | None = None

    def message(self, path: Path | str) -> str:
        if self.ok:
            return f"{path}: {self.lines} lines, chain intact"
        return f"{path}: line {self.broken_line}: {self.reason}"


def verify_log(path: str | Path) -> VerifyResult:
    """Re-walk the chain; the result names the first line that does not link or hash."""
    path = Path(path)
    prev, n = GENESIS, 0
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:
                entry = json.loads(raw)
            except ValueError as exc:
                return VerifyResult(False, n, n, f"not valid JSON ({exc.msg})")
            if not isinstance(entry, dict) or "hash" not in entry or "prev_hash" not in entry:
                return VerifyResult(False, n, n, "missing hash or prev_hash")
            if entry.get("seq") != n:
                return VerifyResult(False, n, n, f"seq is {entry.get('seq')!r}, expected {n} (a line removed or moved)")
            if entry["prev_hash"] != prev:
                return VerifyResult(False, n, n, "prev_hash does not match the previous line's hash")
            if line_hash(entry) != entry["hash"]:
                return VerifyResult(False, n, n, "content does not match its hash (the line was altered)")
            prev = entry["hash"]
    return VerifyResult(True, n)
