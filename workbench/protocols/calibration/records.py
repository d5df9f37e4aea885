"""Reading interaction records from CSV or JSONL: every bad record named by file, line and column.

A record needs `run_id`, `interaction_id`, `scenario`, `v_hat`, `ground_truth`
(+1 or -1) and the content artifact (`content`; `text` or `output` are read as
the same column). `accepted` (true/false, default true) is optional. Every other
column (CSV) or key (JSONL, top level or inside an `observables` object) is a
proxy observable, kept with the record and never shown to a judge.

`read_records` yields (line, payload) for good records and collects a Problem
for each bad one; one bad field makes the whole record bad, and the rest of
the file still loads. A field longer than `MAX_FIELD_CHARS` makes its record
bad in either format (every judge would be sent it whole). A CSV may start
with a UTF-8 byte-order mark (Excel's "CSV UTF-8").
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from workbench.problems import Problem

REQUIRED = ("run_id", "interaction_id", "scenario", "v_hat", "ground_truth")
CONTENT_ALIASES = ("content", "text", "output")
KNOWN = set(REQUIRED) | set(CONTENT_ALIASES) | {"accepted", "observables"}
TRUE, FALSE = {"true", "1", "yes"}, {"false", "0", "no"}
MAX_FIELD_CHARS = 100_000   # the project's limit on one field (CSV cell or JSON value), in characters
# csv's own limit (131,072 by default) is raised while reading, so that a long cell meets the limit above, with
# its column named, as a JSONL value does, and not the csv module's row-level error
CSV_READ_LIMIT = 1 << 30


class RecordError(ValueError):
    def __init__(self, column: str, message: str):
        super().__init__(message)
        self.column = column


@dataclass
class ReadResult:
    problems: list[Problem] = field(default_factory=list)
    good: int = 0
    bad: int = 0


def item_id(payload: dict) -> str:
    """An interaction's id in the study: unique across the static-baseline runs it came from."""
    return f"{payload['run_id']}:{payload['interaction_id']}"


def file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    raise RecordError("file", f"unknown format '{suffix}': use .csv or .jsonl")


def count_records(path: Path) -> int:
    """About how many records the file has (its line count, less a CSV header): the progress total."""
    with open(path, "rb") as f:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    return max(0, lines - (1 if path.suffix.lower() == ".csv" else 0))


def read_records(path: Path, result: ReadResult, *, progress: Callable[[int], None] | None = None,
                 every: int = 5000) -> Iterator[tuple[int, dict]]:
    """Good records as (line, payload); problems go to `result`. `progress(records_seen)` every `every`."""
    name = str(path)
    try:
        fmt = file_format(path)
    except RecordError as exc:
        result.problems.append(Problem(name, 1, exc.column, str(exc)))
        return
    seen = 0
    rows = _csv_rows(path, name, result) if fmt == "csv" else _jsonl_rows(path, name, result)
    for line, raw in rows:
        seen += 1
        if progress is not None and seen % every == 0:
            progress(seen)
        if raw is None:
            result.bad += 1
            continue
        try:
            payload = normalise(raw)
        except RecordError as exc:
            result.problems.append(Problem(name, line, exc.column, str(exc)))
            result.bad += 1
            continue
        result.good += 1
        yield line, payload
    if progress is not None:
        progress(seen)


def _csv_rows(path: Path, name: str, result: ReadResult) -> Iterator[tuple[int, dict | None]]:
    try:
        f = open(path, encoding="utf-8-sig", newline="")  # -sig: a byte-order mark is not part of the header
    except OSError as exc:
        result.problems.append(Problem(name, 1, "file", f"cannot read: {exc}"))
        return
    previous = csv.field_size_limit(CSV_READ_LIMIT)
    try:
        yield from _csv_body(f, name, result)
    finally:
        csv.field_size_limit(previous)


def _csv_body(f, name: str, result: ReadResult) -> Iterator[tuple[int, dict | None]]:
    with f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            result.problems.append(Problem(name, 1, "file", "is empty (a CSV needs a header row)"))
            return
        except (csv.Error, UnicodeDecodeError) as exc:
            result.problems.append(Problem(name, 1, "header", f"cannot be read: {exc}"))
            return
        header = [h.strip() for h in header]
        missing = [c for c in REQUIRED if c not in header]
        if not any(a in header for a in CONTENT_ALIASES):
            missing.append("content")
        if missing:
            result.problems.append(Problem(name, 1, "header", f"lacks the column(s) {', '.join(missing)}"))
            return
        start = reader.line_num + 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except (csv.Error, UnicodeDecodeError) as exc:
                result.problems.append(Problem(name, start, "row", f"cannot be read: {exc}"))
                yield start, None
                start = reader.line_num + 1
                continue
            line, start = start, reader.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # a blank line is not a record
            if len(row) != len(header):
                result.problems.append(Problem(name, line, "row", f"has {len(row)} fields; the header has "
                                                                 f"{len(header)}"))
                yield line, None
                continue
            yield line, dict(zip(header, row))


def _jsonl_rows(path: Path, name: str, result: ReadResult) -> Iterator[tuple[int, dict | None]]:
    try:
        f = open(path, "rb")
    except OSError as exc:
        result.problems.append(Problem(name, 1, "file", f"cannot read: {exc}"))
        return
    with f:
        for line, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                result.problems.append(Problem(name, line, "json", f"is not valid JSON: {exc}"))
                yield line, None
                continue
            if not isinstance(obj, dict):
                result.problems.append(Problem(name, line, "json", "must be a JSON object"))
                yield line, None
                continue
            yield line, obj


def normalise(raw: dict) -> dict:
    """One record as the store keeps it; raises RecordError naming the first bad column."""
    for col in REQUIRED:
        if col not in raw:
            raise RecordError(col, "is missing")
    for col, value in raw.items():
        _within_limit(col, value)
    out: dict[str, Any] = {
        "run_id": _text(raw, "run_id"),
        "interaction_id": _text(raw, "interaction_id"),
        "scenario": _text(raw, "scenario"),
        "v_hat": _finite(raw, "v_hat"),
        "ground_truth": _label(raw, "ground_truth"),
    }
    content_col = next((c for c in CONTENT_ALIASES if c in raw and raw[c] not in (None, "")), None)
    if content_col is None:
        raise RecordError("content", "is missing or empty (the content artifact the judges read)")
    out["content"] = _text(raw, content_col)
    out["accepted"] = _flag(raw, "accepted") if "accepted" in raw and raw["accepted"] not in ("", None) else True
    observables: dict[str, Any] = {}
    nested = raw.get("observables")
    if nested is not None:
        if not isinstance(nested, dict):
            raise RecordError("observables", "must be an object of observable fields")
        observables.update(nested)
    for key, value in raw.items():
        if key not in KNOWN:
            observables[key] = _observable(value)
    out["observables"] = observables
    return out


def _within_limit(col: str, value: Any) -> None:
    """One field's size, the same in every format: a string's length, another value's JSON text."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _within_limit(f"{col}.{key}", inner)
        return
    if isinstance(value, str):
        size = len(value)
    elif isinstance(value, list):
        size = len(json.dumps(value, ensure_ascii=False, default=str))
    else:
        return   # a number, a flag or null: short by nature
    if size > MAX_FIELD_CHARS:
        raise RecordError(col, f"is {size:,} characters long; the limit is {MAX_FIELD_CHARS:,} (a field is sent "
                               "whole to every judge)")


def _text(raw: dict, col: str) -> str:
    v = raw[col]
    if isinstance(v, (int, float)) and not isinstance(v, bool) and col != "content":
        v = str(v)
    if not isinstance(v, str) or not v.strip():
        raise RecordError(col, "must be a non-empty string")
    return v.strip() if col != "content" else v


def _finite(raw: dict, col: str) -> float:
    v = raw[col]
    try:
        if isinstance(v, bool):
            raise ValueError
        f = float(v)
    except (TypeError, ValueError):
        raise RecordError(col, f"must be a number (got {v!r})") from None
    if not math.isfinite(f):
        raise RecordError(col, f"must be finite (got {v!r})")
    return f


def _label(raw: dict, col: str) -> int:
    v = raw[col]
    if isinstance(v, str):
        v = v.strip()
        mapping = {"1": 1, "+1": 1, "-1": -1, "1.0": 1, "-1.0": -1}
        if v in mapping:
            return mapping[v]
    elif not isinstance(v, bool) and isinstance(v, (int, float)) and v in (1, -1):
        return int(v)
    raise RecordError(col, f"must be +1 or -1 (got {v!r})")


def _flag(raw: dict, col: str) -> bool:
    v = raw[col]
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in TRUE | FALSE:
        return v.strip().lower() in TRUE
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    raise RecordError(col, f"must be true or false (got {v!r})")


def _observable(value: Any) -> Any:
    """CSV cells arrive as text: numbers are kept as numbers."""
    if isinstance(value, str):
        try:
            f = float(value)
        except ValueError:
            return value
        if not math.isfinite(f):
            return value
        return int(f) if f.is_integer() and "." not in value and "e" not in value.lower() else f
    return value


def payload_hash(payload: dict) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                          .encode("utf-8")).hexdigest()
