"""Reading a case file: TOML front matter between `+++` lines, then `## Section` prose.

Every problem carries the file, the line and the field so a researcher can go
straight to it. Parsing never raises on bad content; it returns problems.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from workbench.cases.model import CRITERIA, PRESERVES, SECTIONS, Case, Probe, Transposition
from workbench.problems import Problem, key_lines, line_of

FENCE = "+++"
HEADING = re.compile(r"^##\s+(.+?)\s*$")
TOML_LINE = re.compile(r"at line (\d+)")

TOP_KEYS = {
    "id", "title", "type", "domain", "status", "strategies", "decision_date",
    "complexity", "concern_domain", "rubric", "source", "criteria", "transposition", "probes",
}
TRANSPOSITION_KEYS = {"original", "mapping", "verifiers", "preserves"}
PROBE_KEYS = {"model", "date", "verdict", "scenario_hash", "note"}
STRING_KEYS = ("id", "title", "type", "domain", "status", "decision_date", "complexity",
               "concern_domain", "rubric", "source")
SECTION_BY_TITLE = {title.lower(): key for key, title in SECTIONS.items()}


@dataclass
class Parsed:
    """A parsed case (None when the file could not be read at all) and where each field sits."""

    path: str
    case: Case | None
    problems: list[Problem] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, field_name: str) -> int:
        """The line of a field, or of its nearest enclosing table, or 1."""
        return line_of(self.lines, field_name)


def parse_file(path: str | Path) -> Parsed:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Parsed(str(path), None, [Problem(str(path), 1, "file", f"cannot read: {exc}")])
    return parse_text(text, str(path))


def parse_text(text: str, name: str = "<case>") -> Parsed:
    lines = text.splitlines()
    parsed = Parsed(name, None)
    problem = lambda line, fld, msg: parsed.problems.append(Problem(name, line, fld, msg))  # noqa: E731

    if not lines or lines[0].strip() != FENCE:
        problem(1, "front matter", f"a case file starts with a '{FENCE}' line opening its TOML front matter")
        return parsed
    try:
        close = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        problem(1, "front matter", f"the front matter opened on line 1 is never closed with '{FENCE}'")
        return parsed

    front_text = "\n".join(lines[1:close])
    try:
        front = tomllib.loads(front_text)
    except tomllib.TOMLDecodeError as exc:
        match = TOML_LINE.search(str(exc))
        line = int(match.group(1)) + 1 if match else 2
        problem(line, "front matter", f"invalid TOML: {exc}")
        return parsed
    parsed.lines = key_lines(front_text, first_line=2)
    sections = _read_sections(lines, close + 1, parsed)
    parsed.case = _build_case(front, sections, parsed)
    return parsed


def _read_sections(lines: list[str], start: int, parsed: Parsed) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for i in range(start, len(lines)):
        line_no = i + 1
        m = HEADING.match(lines[i])
        if m:
            title = m.group(1).lower()
            key = SECTION_BY_TITLE.get(title)
            if key is None:
                known = ", ".join(f"'## {t}'" for t in SECTIONS.values())
                parsed.problems.append(Problem(parsed.path, line_no, m.group(1),
                                               f"unknown section; expected one of {known}"))
                current = None
                continue
            if key in sections:
                parsed.problems.append(Problem(parsed.path, line_no, key,
                                               f"section '{SECTIONS[key]}' appears twice"))
            sections[key] = []
            parsed.lines[key] = line_no
            current = key
            continue
        if current is None:
            if lines[i].strip():
                parsed.problems.append(Problem(parsed.path, line_no, "body",
                                               "text outside a '## Section' heading"))
            continue
        sections[current].append(lines[i])
    return {key: "\n".join(body).strip() for key, body in sections.items()}


def _build_case(front: dict, sections: dict[str, str], parsed: Parsed) -> Case | None:
    def bad(fld: str, msg: str) -> None:
        parsed.problems.append(Problem(parsed.path, parsed.line_of(fld), fld, msg))

    for key in front:
        if key not in TOP_KEYS:
            bad(key, f"unknown field; known fields are {', '.join(sorted(TOP_KEYS))}")

    values: dict = {}
    for key in STRING_KEYS:
        if key in front:
            if isinstance(front[key], str):
                values[key] = front[key].strip()
            elif key == "decision_date" and hasattr(front[key], "isoformat"):
                values[key] = front[key].isoformat()  # an unquoted TOML date
            else:
                bad(key, f"must be a string, got {type(front[key]).__name__}")
    if "id" not in values:
        bad("id", "is required")
    if "title" not in values:
        bad("title", "is required")

    strategies = front.get("strategies", [])
    if isinstance(strategies, str):
        strategies = [strategies]
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
        bad("strategies", "must be a list of strategy letters, e.g. [\"B\", \"C\"]")
        strategies = []
    values["strategies"] = [s.strip().upper() for s in strategies]

    values["criteria"] = _bool_table(front.get("criteria", {}), "criteria", CRITERIA, bad)
    values["transposition"] = _transposition(front.get("transposition", {}), bad)
    values["probes"] = _probes(front.get("probes", []), bad)
    values.update(sections)

    if "id" not in values or "title" not in values:
        return None
    return Case(**values)


def _bool_table(table, name: str, known: dict, bad) -> dict[str, bool]:
    result = {k: False for k in known}
    if not isinstance(table, dict):
        bad(name, "must be a table of true/false values")
        return result
    for key, value in table.items():
        if key not in known:
            bad(f"{name}.{key}", f"unknown item; expected one of {', '.join(known)}")
        elif not isinstance(value, bool):
            bad(f"{name}.{key}", "must be true or false")
        else:
            result[key] = value
    return result


def _transposition(table, bad) -> Transposition:
    if not isinstance(table, dict):
        bad("transposition", "must be a table")
        return Transposition()
    for key in table:
        if key not in TRANSPOSITION_KEYS:
            bad(f"transposition.{key}", f"unknown field; expected one of {', '.join(sorted(TRANSPOSITION_KEYS))}")
    original = table.get("original", "")
    if not isinstance(original, str):
        bad("transposition.original", "must be a string")
        original = ""
    mapping = []
    for i, item in enumerate(table.get("mapping", []) or []):
        if not (isinstance(item, dict) and isinstance(item.get("from"), str) and isinstance(item.get("to"), str)
                and set(item) <= {"from", "to"}):
            bad(f"transposition.mapping[{i}]", "each mapping entry has exactly a 'from' and a 'to' string")
            continue
        mapping.append({"from": item["from"], "to": item["to"]})
    verifiers = table.get("verifiers", [])
    if not isinstance(verifiers, list) or not all(isinstance(v, str) for v in verifiers):
        bad("transposition.verifiers", "must be a list of names")
        verifiers = []
    preserves = _bool_table(table.get("preserves", {}), "transposition.preserves", PRESERVES, bad)
    return Transposition(original=original.strip(), mapping=mapping,
                         verifiers=[v.strip() for v in verifiers if v.strip()], preserves=preserves)


def _probes(items, bad) -> list[Probe]:
    if not isinstance(items, list):
        bad("probes", "must be an array of [[probes]] tables")
        return []
    probes = []
    for i, item in enumerate(items):
        name = f"probes[{i}]"
        if not isinstance(item, dict):
            bad(name, "must be a table")
            continue
        unknown = set(item) - PROBE_KEYS
        if unknown:
            bad(f"{name}.{sorted(unknown)[0]}", f"unknown field; expected {', '.join(sorted(PROBE_KEYS))}")
        missing = [k for k in ("model", "date", "verdict") if not item.get(k)]
        if missing:
            bad(f"{name}.{missing[0]}", "is required for a probe record")
            continue
        date = item["date"]
        probes.append(Probe(model=str(item["model"]), date=date.isoformat() if hasattr(date, "isoformat") else str(date),
                            verdict=str(item["verdict"]), scenario_hash=str(item.get("scenario_hash", "")),
                            note=str(item.get("note", ""))))
    return probes
