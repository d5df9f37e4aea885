"""Validation problems that name the file, the line and the field."""

from __future__ import annotations

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
    """Raised when case files are invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
