"""Rubric files (`rubrics/*.toml`): criteria with score anchors, versioned by content hash.

A rubric's identity for a study is the sha256 of its file's bytes: a study
records the hashes it froze, and scores and verdicts carry the hash they used.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from workbench.problems import CaseError, Problem, key_lines, line_of


@dataclass
class Anchor:
    score: int
    label: str
    text: str


@dataclass
class Criterion:
    id: str
    name: str
    question: str
    min: int
    max: int
    anchors: list[Anchor] = field(default_factory=list)


@dataclass
class Rubric:
    id: str
    name: str
    source: str
    instructions: str
    composite: str  # "sum" | "none": how criteria combine into one score
    criteria: list[Criterion]
    text: str
    path: str = ""
    procedure: list[str] = field(default_factory=list)  # ordered steps, e.g. Epistemic Humility

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def max_composite(self) -> int | None:
        """The composite's maximum, or None when the rubric has no composite ("none")."""
        return sum(c.max for c in self.criteria) if self.composite == "sum" else None

    def criterion(self, criterion_id: str) -> Criterion:
        for c in self.criteria:
            if c.id == criterion_id:
                return c
        raise KeyError(f"rubric '{self.id}' has no criterion '{criterion_id}'")

    def definition(self) -> dict:
        d = asdict(self)
        d.pop("text")
        d.pop("path")
        return d


TOP_KEYS = {"id", "name", "source", "instructions", "composite", "procedure", "criteria"}
CRITERION_KEYS = {"id", "name", "question", "min", "max", "anchors"}
COMPOSITES = ("sum", "none")


def parse_rubric(text: str, name: str = "<rubric>") -> Rubric:
    problems: list[Problem] = []
    lines = key_lines(text)

    def bad(fld: str, msg: str) -> None:
        problems.append(Problem(name, line_of(lines, fld), fld, msg))

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CaseError([Problem(name, 1, "toml", f"invalid TOML: {exc}")]) from exc
    for key in sorted(set(data) - TOP_KEYS):
        bad(key, f"unknown field; known fields are {', '.join(sorted(TOP_KEYS))}")
    for key in ("id", "name", "criteria"):
        if key not in data:
            bad(key, "is required")
    composite = data.get("composite", "sum")
    if composite not in COMPOSITES:
        bad("composite", f"'{composite}' is not allowed; use one of {', '.join(COMPOSITES)}")
    procedure = data.get("procedure", [])
    if not (isinstance(procedure, list) and all(isinstance(step, str) for step in procedure)):
        bad("procedure", "must be a list of steps (strings)")
        procedure = []
    raw_criteria = data.get("criteria", [])
    if "criteria" in data and not raw_criteria:
        bad("criteria", "needs at least one [[criteria]] table")
    criteria = []
    for i, c in enumerate(raw_criteria):
        unknown = set(c) - CRITERION_KEYS if isinstance(c, dict) else set()
        for key in sorted(unknown):
            bad(f"criteria[{i}]", f"unknown field '{key}'; known fields are {', '.join(sorted(CRITERION_KEYS))}")
        try:
            anchors = [Anchor(int(a["score"]), str(a.get("label", "")), str(a["text"])) for a in c.get("anchors", [])]
            crit = Criterion(str(c["id"]), str(c["name"]), str(c.get("question", "")),
                             int(c["min"]), int(c["max"]), anchors)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            bad(f"criteria[{i}]", f"needs id, name, min, max and anchors with score and text ({exc})")
            continue
        if any(crit.id == other.id for other in criteria):
            bad(f"criteria[{i}]", f"criterion id '{crit.id}' is used twice")
        if crit.min >= crit.max:
            bad(f"criteria[{i}]", "max must be greater than min")
        scores = sorted(a.score for a in crit.anchors)
        if scores != list(range(crit.min, crit.max + 1)):
            bad(f"criteria[{i}]", f"needs one anchor per score {crit.min}..{crit.max}")
        criteria.append(crit)
    if problems:
        raise CaseError(problems)
    return Rubric(
        id=data["id"], name=data["name"], source=data.get("source", ""),
        instructions=data.get("instructions", "").strip(), composite=composite,
        criteria=criteria, text=text, procedure=list(procedure),
    )


def load_rubric(path: str | Path) -> Rubric:
    path = Path(path)
    rubric = parse_rubric(path.read_text(encoding="utf-8"), str(path))
    rubric.path = str(path)
    return rubric


def load_rubrics(directory: str | Path) -> dict[str, Rubric]:
    """Every rubric in a directory by id; a duplicate id is an error."""
    rubrics: dict[str, Rubric] = {}
    problems: list[Problem] = []
    for path in sorted(Path(directory).glob("*.toml")):
        try:
            rubric = load_rubric(path)
        except CaseError as exc:
            problems.extend(exc.problems)
            continue
        if rubric.id in rubrics:
            problems.append(Problem(str(path), 1, "id", f"duplicate rubric id '{rubric.id}'"))
        rubrics[rubric.id] = rubric
    if problems:
        raise CaseError(problems)
    return rubrics
