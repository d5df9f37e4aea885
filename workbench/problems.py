"""Problems in the files a researcher writes (cases, rubrics, studies, protocol items): each names
the file, the line and the field, and one TOML locator finds the line of a dotted key."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    field: str
    message: str
    severity: str = "error"  # error | warning

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "severity": self.severity,
        }


class CaseError(Exception):
    """Raised when case or rubric files are invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


_TABLE = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"]+)\s*=")


def key_lines(text: str, *, first_line: int = 1) -> dict[str, int]:
    """Map dotted key paths of TOML text to line numbers: `model.temperature`, `judges[1].model`, and
    an array of tables' own name (`judges`) to its first entry. `first_line`: the number of the text's
    first line in its file (a case's front matter starts on line 2)."""
    lines: dict[str, int] = {}
    counters: dict[str, int] = {}
    current = ""
    for number, line in enumerate(text.splitlines(), start=first_line):
        m = _TABLE.match(line)
        if m:
            name = m.group(2).replace('"', "")
            if m.group(1) == "[[":
                index = counters.get(name, 0)
                counters[name] = index + 1
                lines.setdefault(name, number)
                current = f"{name}[{index}]"
            else:
                current = name
            lines.setdefault(current, number)
            continue
        m = _KEY.match(line)
        if m:
            key = m.group(1).replace('"', "")
            lines.setdefault(f"{current}.{key}" if current else key, number)
    return lines


def line_of(lines: dict[str, int], key: str) -> int:
    """The key's line, else its nearest enclosing table's (`a.b[2].c` → `a.b[2]` → `a.b` → `a`), else 1."""
    while key:
        if key in lines:
            return lines[key]
        parent = re.sub(r"(\[\d+\]|\.[^.\[\]]+)$", "", key)
        key = "" if parent == key else parent
    return 1
