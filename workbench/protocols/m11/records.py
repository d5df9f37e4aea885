"""The InputFilter (seed 003 §2, no LLM): module-output records in, items or per-field problems out.

A record is one JSON object (a line of a JSONL file, or an element of a JSON
array) holding the product's `title`, `validated_use`, `attribute_table`
(list of attributes, or an object of name -> value), and the module's
`hard_constraints` (list) and `reasoning`; optionally `id` and `expected` (the
correct hard constraints). The three fields the seed requires are
`attribute_table`, `validated_use` and `hard_constraints`. Seed 003 §6's own
layout loads too: the table as `attributes`, and the fields either flat or as
`{"input": {title, validated_use, attributes}, "output": {hard_constraints,
reasoning}}`. Every problem names file, line and field (as the file spells it);
a bad record is excluded and counted, the others load.
Instruction-like text in any field (injection patterns) excludes the record
(`injection = "exclude"`, the default) or only flags it (`"flag"`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.problems import Problem

REQUIRED = ("attribute_table", "validated_use", "hard_constraints")
ALIASES = {"attributes": "attribute_table"}   # seed 003 §6 names the attribute table `attributes`
PARTS = ("input", "output")                   # seed 003 §6 shows a record as its input and its output
ITEM_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
ITEM_KIND = "module_output"


@dataclass
class FilterResult:
    items: list[dict] = field(default_factory=list)     # {"id", "payload", "content_hash", "source"}
    problems: list[Problem] = field(default_factory=list)
    flagged: list[Problem] = field(default_factory=list)  # injection flags on records that loaded
    records: int = 0

    @property
    def excluded(self) -> int:
        return self.records - len(self.items)

    def summary(self) -> dict:
        return {"records": self.records, "loaded": len(self.items), "excluded": self.excluded,
                "problems": [p.to_dict() for p in self.problems],
                "flagged": [p.to_dict() for p in self.flagged]}


# A module output may hold a score as data ("Energy Star score: 3"); what is an injection is a score addressed
# to the evaluator: "score this output 5", "overall score: 5", "your rating should be 5".
SCORE_INSTRUCTIONS = (
    r"\b(?:rate|score|grade|mark)\s+(?:this|it|me|the)(?:\s+(?:output|module(?:\s+output)?|response|answer))?"
    r"(?:\s+(?:as|a|an|at))?\s+\d",
    r"\b(?:overall|final|likert|judge'?s?|your|the\s+correct)\s+(?:score|rating|grade)\s*"
    r"(?:should\s+be|must\s+be|is|=|:)\s*\d",
)


def injection_patterns() -> list[re.Pattern]:
    """The shared judges' injection patterns (one list for the whole workbench) without the bare score claim,
    which an M11 record may hold as data, and with the score instructions above in its place."""
    from workbench.judges.adversarial import INJECTION_PATTERNS, SCORE_CLAIM

    shared = [p for p in INJECTION_PATTERNS if p != SCORE_CLAIM]
    return [re.compile(p, re.IGNORECASE) for p in (*shared, *SCORE_INSTRUCTIONS)]


def read_records(path: Path) -> tuple[list[tuple[int, object]], list[Problem]]:
    """(line, parsed value) of every record, and the problems of lines that are not JSON."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(name, 1, "file", f"cannot read: {exc}")]
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _json_array(text, name)
    out, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except ValueError as exc:
            problems.append(Problem(name, number, "json", f"not a JSON object: {exc.msg} (column {exc.colno})"))
            out.append((number, None))
    return out, problems


def _json_array(text: str, name: str) -> tuple[list[tuple[int, object]], list[Problem]]:
    """Elements of a top-level JSON array with the line each starts on."""
    try:
        json.loads(text)
    except ValueError as exc:
        return [], [Problem(name, exc.lineno, "json", f"invalid JSON: {exc.msg}")]
    decoder, out = json.JSONDecoder(), []
    pos = text.index("[") + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        value, end = decoder.raw_decode(text, pos)
        out.append((text.count("\n", 0, pos) + 1, value))
        pos = end
    return out, []


def _strings(value, where: str, bad, *, allow_empty: bool) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        bad(where, "must be a list of strings")
        return None
    if not allow_empty and not value:
        bad(where, "must list at least one attribute")
        return None
    if any(not v.strip() for v in value):
        bad(where, "has an empty entry")
        return None
    return [v.strip() for v in value]


def check_record(value: object, line: int, name: str, seen: set[str], patterns: list[re.Pattern],
                 injection: str) -> tuple[dict | None, list[Problem], list[Problem]]:
    """One record: (payload or None, problems, injection flags)."""
    problems: list[Problem] = []
    spelled: dict[str, str] = {}   # a field's name as the file spells it, where that differs

    def bad(where: str, message: str) -> None:
        problems.append(Problem(name, line, spelled.get(where, where), message))

    if value is None:
        return None, [], []
    if not isinstance(value, dict):
        bad("record", "must be a JSON object")
        return None, problems, []
    value = flat_record(value, spelled, bad)
    for key in REQUIRED:
        if key not in value:
            bad(key, "is required")
    record_id = value.get("id", f"line-{line}")
    if not isinstance(record_id, str) or not ITEM_ID.match(record_id):
        bad("id", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
    elif record_id in seen:
        bad("id", f"'{record_id}' is used by an earlier record")
    title = value.get("title", "")
    if not isinstance(title, str):
        bad("title", "must be a string")
    use = value.get("validated_use")
    if "validated_use" in value and (not isinstance(use, str) or not use.strip()):
        bad("validated_use", "must be a non-empty string")
    table = value.get("attribute_table")
    attributes = None
    if isinstance(table, dict):
        if not table or not all(isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in table.items()):
            bad("attribute_table", "an object must map attribute names to text or numbers, at least one")
        else:
            attributes = [f"{k}: {v}" for k, v in table.items()]
    elif "attribute_table" in value:
        attributes = _strings(table, "attribute_table", bad, allow_empty=False)
    constraints = (_strings(value["hard_constraints"], "hard_constraints", bad, allow_empty=True)
                   if "hard_constraints" in value else None)
    reasoning = value.get("reasoning", "")
    if not isinstance(reasoning, str):
        bad("reasoning", "must be a string")
    expected = value.get("expected")
    if expected is not None:
        expected = _strings(expected, "expected", bad, allow_empty=True)
    flags: list[Problem] = []
    for key in ("title", "validated_use", "attribute_table", "hard_constraints", "reasoning"):
        for text in _texts(value.get(key)):
            for p in patterns:
                m = p.search(text)
                if m:
                    flags.append(Problem(name, line, spelled.get(key, key), f"instruction-like text {m.group(0)!r}",
                                         severity="error" if injection == "exclude" else "warning"))
                    break
    if injection == "exclude":
        problems += flags
    if problems:
        return None, problems, []
    seen.add(record_id)
    payload = {"id": record_id, "title": title.strip(), "validated_use": use.strip(),
               "attribute_table": attributes, "hard_constraints": constraints, "reasoning": reasoning.strip(),
               "expected": expected, "flags": [f"{f.field}: {f.message}" for f in flags]}
    return payload, [], flags


def flat_record(value: dict, spelled: dict[str, str], bad) -> dict:
    """The record as one flat object with the InputFilter's field names: `input` and `output` objects merged
    in, `attributes` read as `attribute_table`; `spelled` learns each moved field's name in the file."""
    flat = {k: v for k, v in value.items() if not (k in PARTS and isinstance(v, dict))}
    for part in PARTS:
        inner = value.get(part)
        if not isinstance(inner, dict):
            continue
        for key, v in inner.items():
            if key in flat:
                bad(key, f"is given both at the top level and in '{part}'")
                continue
            flat[key] = v
            spelled[key] = f"{part}.{key}"
    for alias, key in ALIASES.items():
        if alias not in flat:
            continue
        where = spelled.pop(alias, alias)
        if key in flat:
            bad(key, f"give one of '{key}' and '{alias}' (seed 003 §6's name for it), not both")
            continue
        flat[key] = flat.pop(alias)
        spelled[key] = where
    return flat


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, dict):
        return [str(k) for k in value] + [str(v) for v in value.values()]
    return []


def filter_file(path: Path, *, injection: str = "exclude", shown_as: str | None = None) -> FilterResult:
    """Run the InputFilter over a JSONL or JSON file. `shown_as`: the name problems carry."""
    name = shown_as or str(path)
    records, problems = read_records(path)
    result = FilterResult(records=len(records) if records else 0)
    result.problems = [Problem(name, p.line, p.field, p.message) for p in problems]
    if not records and not problems:
        result.problems.append(Problem(name, 1, "file", "holds no records"))
    patterns, seen = injection_patterns(), set()
    for line, value in records:
        payload, bad, flags = check_record(value, line, name, seen, patterns, injection)
        result.problems += bad
        result.flagged += flags
        if payload is not None:
            result.items.append({"id": payload["id"], "payload": payload, "content_hash": content_hash(payload),
                                 "source": f"{name}:{line}"})
    return result


def content_hash(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
