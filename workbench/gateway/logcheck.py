"""Is a study's call log whole? The chain proves order; the store's own record proves completeness.

The hash chain alone passes a log whose last lines were cut off, an emptied
log, and a log rewritten with a forged response and every hash after it
recomputed. So the log is also checked against what the store recorded when
each call was made (every call row keeps its line number and that line's
hash) and against the heads kept when runs, judging and reports ended
(`record_head`): a log shorter than that record, or whose line at a recorded
position hashes differently, is refused.

Lines past the store's last record are allowed and counted: a process killed
(or a disk filled) between the log append and the store insert leaves one.
Requests journaled as sent and never answered (a crash: workbench/gateway/journal.py) have no line; the
check names them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import sqlite_utils

from store import calls as call_rows
from workbench.gateway.calllog import GENESIS, verify_log
from workbench.gateway.journal import lost_calls


@dataclass
class LogCheck:
    ok: bool
    path: str
    lines: int                      # lines in the log file
    recorded: int                   # calls the store recorded in this log
    head: str                       # the hash of the log's last line (64 zeros when empty)
    broken_line: int | None = None  # the first line that fails the chain or the store's record
    reason: str | None = None       # why, for that line (or the log as a whole)
    problems: list[str] = field(default_factory=list)
    unrecorded: int = 0             # lines past the store's last record
    repairs: list[str] = field(default_factory=list)   # torn tails cut away before a call, as recorded
    lost: str | None = None         # requests journaled as sent and never answered, lost in a crash (no line)

    def message(self) -> str:
        repaired = "".join(f"; {r}" for r in [*self.repairs, *([self.lost] if self.lost else [])])
        if self.ok:
            extra = (f"; {self.unrecorded} line(s) past the store's record (a call interrupted between log and "
                     "store)" if self.unrecorded else "")
            return (f"{self.path}: {self.lines} lines, chain intact, all {self.recorded} calls the store "
                    f"recorded are in it and match it line by line; head {self.head}{extra}{repaired}")
        return f"{self.path}: " + "; ".join(self.problems) + repaired

    def to_dict(self) -> dict:
        return asdict(self)


def log_entries(path: Path) -> list[dict | None]:
    """Each line as a record, in order (None for a line that does not parse)."""
    out: list[dict | None] = []
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                entry = json.loads(raw)
                out.append(entry if isinstance(entry, dict) else None)
            except ValueError:
                out.append(None)
    return out


def log_hashes(path: Path) -> list[str]:
    """Each line's stated hash, in order ('' for a line that does not parse)."""
    return [str(e.get("hash", "")) if e else "" for e in log_entries(path)]


def check_log(db: sqlite_utils.Database, study_id: str | None, path: str | Path) -> LogCheck:
    """The chain, then every call the store recorded, then every recorded head."""
    path = Path(path)
    record = call_rows.log_record(db, study_id)
    heads = call_rows.log_heads(db, study_id)
    entries = log_entries(path) if path.is_file() else []
    hashes = [str(e.get("hash", "")) if e else "" for e in entries]
    check = LogCheck(ok=True, path=str(path), lines=len(hashes), recorded=len(record),
                     head=hashes[-1] if hashes else GENESIS)
    check.lost = lost_calls(db, study_id).text()
    check.repairs = [f"tail repaired at line {r['line']}: {r['bytes']} bytes of an unrecorded line removed "
                     f"({r['at']})" for r in call_rows.log_repairs(db, study_id)]

    def problem(line: int | None, reason: str) -> None:
        check.problems.append(f"line {line}: {reason}" if line else reason)
        if check.broken_line is None and check.reason is None:
            check.broken_line, check.reason = line, reason

    if not path.is_file():
        problem(None, f"the log file is missing, but the store recorded {len(record)} calls in it")
    else:
        chain = verify_log(path)
        if not chain.ok:
            problem(chain.broken_line, chain.reason or "the chain is broken")

    last_recorded = max(record, default=0)
    if last_recorded > len(hashes):
        missing = sum(1 for line in record if line > len(hashes))
        problem(len(hashes) + 1 if hashes else None,
                f"the log has {len(hashes)} lines but the store recorded calls up to line {last_recorded} "
                f"({missing} recorded line(s) missing: the log was truncated or emptied)")
    forged = sorted(line for line, digest in record.items() if line <= len(hashes) and hashes[line - 1] != digest)
    if forged:
        problem(forged[0], f"{len(forged)} line(s) differ from the store's record of the call made there "
                           f"(first: line {forged[0]}): rewritten, with the chain recomputed")
    # Both directions, line by line: the store's copy of each call against the log's line, and each log line
    # (up to the store's last record) against a call the store holds.
    rows = call_rows.log_rows(db, study_id)
    for line in sorted(rows):
        if line > len(entries):
            continue
        entry, row = entries[line - 1] or {}, rows[line]
        differs = [k for k in ("call_key", "status", "response") if (entry.get(k) or None) != (row[k] or None)]
        if differs:
            problem(line, f"the store's call {row['id']} differs from its log line in {', '.join(differs)} "
                          "(the store was edited, or the log)")
            break
    orphan = next((n for n in range(1, min(last_recorded, len(entries)) + 1) if n not in rows), None)
    if orphan is not None:
        problem(orphan, "this log line is not in the store (a call the store lost, or a line added to the log)")
    for h in heads:
        if h["lines"] > len(hashes):
            problem(None, f"the log is shorter ({len(hashes)} lines) than the head kept by the {h['recorded_by']} "
                          f"of {h['recorded_at']} ({h['lines']} lines)")
        elif h["lines"] and hashes[h["lines"] - 1] != h["head"]:
            problem(h["lines"], f"differs from the head kept by the {h['recorded_by']} of {h['recorded_at']}")
    check.unrecorded = max(len(hashes) - last_recorded, 0)
    check.ok = not check.problems
    return check


def current_head(db: sqlite_utils.Database, study_id: str | None) -> tuple[int, str]:
    """(lines, head hash) of the log as the store recorded it: its last recorded call."""
    record = call_rows.log_record(db, study_id)
    if not record:
        return 0, GENESIS
    last = max(record)
    return last, record[last]


def record_head(db: sqlite_utils.Database, study_id: str | None, by: str) -> tuple[int, str]:
    """Keep the log's head as the store knows it (after a run, judging, a report). Returns it."""
    lines, head = current_head(db, study_id)
    if lines:
        call_rows.record_log_head(db, study_id, lines, head, by)
    return lines, head
