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
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


class CallLog:
    """Appends to one log file. Safe across processes (an exclusive flock around each append)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._tail: tuple[int, int, str] | None = None  # (file size, last seq, last hash) we wrote

    def append(self, record: dict[str, Any]) -> tuple[int, str]:
        """Append one record; returns (line number, hash)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+b") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                size = fh.seek(0, os.SEEK_END)
                if self._tail and self._tail[0] == size:
                    seq, prev = self._tail[1], self._tail[2]
                else:  # first append, or another process appended since: read the last line
                    seq, prev = _last_link(fh, size)
                entry = dict(record, seq=seq + 1, prev_hash=prev)
                entry["hash"] = line_hash(entry)
                data = canonical(entry) + b"\n"
                # One write() on an O_APPEND descriptor: a killed process leaves whole lines, not torn ones.
                view = memoryview(data)
                while view:
                    view = view[os.write(fh.fileno(), view):]
                self._tail = (size + len(data), seq + 1, entry["hash"])
                return seq + 1, entry["hash"]
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _last_link(fh, size: int) -> tuple[int, str]:
    """(seq, hash) of the file's last line, reading backwards from the end."""
    if size == 0:
        return 0, GENESIS
    block, pos, buf = 65536, size, b""
    while pos > 0:
        step = min(block, pos)
        pos -= step
        fh.seek(pos)
        buf = fh.read(step) + buf
        stripped = buf.rstrip(b"\n")
        nl = stripped.rfind(b"\n")
        if nl >= 0 or pos == 0:
            last = stripped[nl + 1:]
            entry = json.loads(last)
            return int(entry["seq"]), entry["hash"]
    return 0, GENESIS


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
