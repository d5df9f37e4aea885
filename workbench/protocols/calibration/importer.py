"""Bringing interactions into a study's items: batched, idempotent, with progress.

Good records load and bad ones are reported (file, line, column). Items are
keyed `run_id:interaction_id`; importing the same file again adds nothing, and
a record whose id is already stored with different content is reported and the
stored one kept. A frozen study's interactions are fixed: importing into one is
refused, because its Arm B sample is drawn from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import sqlite_utils

from workbench.problems import Problem
from workbench.protocols.calibration.records import (ReadResult, count_records, item_id, payload_hash,
                                                     read_records)

KIND = "interaction"
CHUNK = 5000
MAX_KEPT_PROBLEMS = 1000   # a file of 100,000 bad rows is reported by count beyond this many


class ImportRefused(Exception):
    """The import cannot start (frozen study, unknown study, wrong protocol)."""


@dataclass
class ImportSummary:
    file: str
    records: int = 0          # records read (good + bad)
    added: int = 0
    already_present: int = 0
    conflicting: int = 0
    bad: int = 0
    problems: list[Problem] = field(default_factory=list)
    problems_total: int = 0

    @property
    def ok(self) -> bool:
        """Every record read and loaded (or already there): no problem, and not an empty or unreadable file."""
        return self.records > 0 and self.problems_total == 0

    def to_dict(self) -> dict:
        return {"file": self.file, "records": self.records, "added": self.added,
                "already_present": self.already_present, "conflicting": self.conflicting, "bad": self.bad,
                "problems_total": self.problems_total, "problems": [p.to_dict() for p in self.problems]}


Progress = Callable[[int, int], None]   # (records read, records expected)


def import_file(db: sqlite_utils.Database, study_id: str, path: str | Path, *,
                progress: Progress | None = None, check_frozen: bool = True) -> ImportSummary:
    """Import one CSV/JSONL file into the study's items."""
    from store import studies as study_rows

    path = Path(path)
    study = study_rows.get_study(db, study_id)
    if study is None:
        raise ImportRefused(f"no study '{study_id}' in the store")
    if study["protocol"] != "calibration":
        raise ImportRefused(f"study '{study_id}' is a {study['protocol']} study, not a calibration study")
    if check_frozen and study["frozen_at"]:
        raise ImportRefused(f"study '{study_id}' is frozen (at {study['frozen_at']}): its interactions are fixed "
                            "with it; create a new study to import more")
    if not path.is_file():
        raise ImportRefused(f"{path}: no such file")
    total = count_records(path)
    result = ReadResult()
    tick = (lambda seen: progress(seen, max(total, seen))) if progress else None
    records = ((line, p) for line, p in read_records(path, result, progress=tick))
    summary = add_records(db, study_id, records, source=str(path))
    summary.records, summary.bad = result.good + result.bad, result.bad
    if summary.records == 0 and not result.problems:
        result.problems.append(Problem(str(path), 1, "file", "holds no records"))
    summary.problems_total = len(result.problems) + summary.conflicting
    summary.problems = (result.problems + summary.problems)[:MAX_KEPT_PROBLEMS]
    return summary


def add_records(db: sqlite_utils.Database, study_id: str, records: Iterable[tuple[int, dict]], *,
                source: str) -> ImportSummary:
    """Store (line, payload) records in chunks; duplicates of stored ids are counted, never rewritten."""
    from store.items import add_items, item_hashes

    stored = dict(item_hashes(db, study_id))
    summary = ImportSummary(file=source)
    chunk: list[dict] = []
    seen_here: set[str] = set()

    def flush() -> None:
        summary.added += add_items(db, study_id, chunk, kind=KIND)
        chunk.clear()

    for line, payload in records:
        iid, digest = item_id(payload), payload_hash(payload)
        if iid in seen_here or iid in stored:
            summary.already_present += 1
            previous = stored.get(iid)
            if previous is not None and previous != digest:
                summary.conflicting += 1
                if len(summary.problems) < MAX_KEPT_PROBLEMS:
                    summary.problems.append(Problem(source, line, "interaction_id", (
                        f"'{iid}' is already stored with different content; the stored record is kept")))
            continue
        seen_here.add(iid)
        stored[iid] = digest
        chunk.append({"id": iid, "payload": payload, "content_hash": digest, "source": f"{source}:{line}"})
        if len(chunk) >= CHUNK:
            flush()
    flush()
    return summary


def record_import(db: sqlite_utils.Database, study_id: str, summary: ImportSummary) -> None:
    """Keep the import's outcome with the study (the report and the TUI show it)."""
    from store.items import put_artifact

    put_artifact(db, study_id, "calibration_import", summary.file, summary.to_dict())


def import_history(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    from store.items import artifacts

    return [a["payload"] for a in artifacts(db, study_id, "calibration_import")]
