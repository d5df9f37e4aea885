"""The rules a case must follow, and the stricter ones a ready case must meet."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from workbench.cases.model import (
    CASE_TYPES, COMPLEXITIES, CONCERN_DOMAINS, CRITERIA, DOMAINS, PRESERVES, STATUSES, STRATEGIES, Case,
)
from workbench.cases.parse import Parsed, parse_file, parse_text
from workbench.problems import Problem

CASE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")
# A year, year-month or full date, or a range of two of them ("2020..2022").
PARTIAL_DATE = r"\d{4}(-\d{2}(-\d{2})?)?"
DECISION_DATE = re.compile(rf"^{PARTIAL_DATE}(\.\.{PARTIAL_DATE})?$")
PROBE_VERDICTS = ("recognized", "partial", "not_recognized")
CASE_SUFFIX = ".md"
# A case is prose read by models and people: a file larger than this is refused unread (a runaway paste,
# a wrong file, or text meant to exhaust a context window or a terminal). Documented in the README.
MAX_CASE_BYTES = 256 * 1024
# Draft prose opens with one of these; a ready case must have replaced it.
PLACEHOLDER_MARKERS = ("[DRAFT OUTLINE", "[TO RESEARCH")


def check(parsed: Parsed, known_rubrics: Iterable[str] | None = None) -> list[Problem]:
    """All problems of one parsed file: parse problems first, then rule problems."""
    problems = list(parsed.problems)
    case = parsed.case
    if case is None:
        return problems

    def bad(fld: str, msg: str, severity: str = "error") -> None:
        problems.append(Problem(parsed.path, parsed.line_of(fld), fld, msg, severity))

    if not CASE_ID.match(case.id):
        bad("id", "must be 2-63 characters of lowercase letters, digits and '-', starting with a letter or digit")
    if not case.title.strip():
        bad("title", "must not be empty")
    _one_of(bad, "type", case.type, CASE_TYPES)
    _one_of(bad, "domain", case.domain, DOMAINS)
    _one_of(bad, "status", case.status, STATUSES)
    _one_of(bad, "complexity", case.complexity, COMPLEXITIES)
    _one_of(bad, "concern_domain", case.concern_domain, CONCERN_DOMAINS)
    for s in case.strategies:
        if s not in STRATEGIES:
            bad("strategies", f"'{s}' is not a contamination strategy; use A (post-cutoff), "
                              "B (structural transposition) or C (granularity below training data)")
    if len(set(case.strategies)) != len(case.strategies):
        bad("strategies", "lists a strategy twice")
    if case.decision_date:
        date_problem = decision_date_problem(case.decision_date, historical=case.type == "historical")
        if date_problem:
            bad("decision_date", date_problem)
    if known_rubrics is not None and case.rubric and case.rubric not in set(known_rubrics):
        bad("rubric", f"no rubric with id '{case.rubric}' in rubrics/")
    for i, probe in enumerate(case.probes):
        if probe.verdict not in PROBE_VERDICTS:
            bad(f"probes[{i}].verdict", f"must be one of {', '.join(PROBE_VERDICTS)}")
    tr = case.transposition
    if len(set(v.lower() for v in tr.verifiers)) != len(tr.verifiers):
        bad("transposition.verifiers", "the two verifiers must be two different people")

    stem = Path(parsed.path).stem
    if parsed.path.endswith(CASE_SUFFIX) and stem != case.id:
        bad("id", f"the file is named '{stem}{CASE_SUFFIX}' but the id is '{case.id}'; name the file after the id",
            severity="warning")
    if case.status == "ready":
        problems.extend(_ready_problems(case, parsed))
    return problems


def date_span(value: str) -> tuple[date, date]:
    """First and last day of a decision date or range ("2021", "2021-06", "2020..2022"); ValueError if unreal."""
    spans = [_bounds(p) for p in value.split("..")]
    return spans[0][0], spans[-1][1]


def _bounds(part: str) -> tuple[date, date]:
    """The first and last calendar day a partial date covers; ValueError for a date that does not exist."""
    bits = [int(b) for b in part.split("-")]
    if len(bits) == 1:
        return date(bits[0], 1, 1), date(bits[0], 12, 31)
    if len(bits) == 2:
        first = date(bits[0], bits[1], 1)
        nxt = date(bits[0] + (bits[1] == 12), bits[1] % 12 + 1, 1)
        return first, date.fromordinal(nxt.toordinal() - 1)
    day = date(*bits)
    return day, day


def decision_date_problem(value: str, *, historical: bool, today: date | None = None) -> str:
    """Why a decision date is unusable, or "" when it is fine: the shape, a real calendar date, a range
    that runs forward, and (historical cases) a decision that has already happened."""
    if not DECISION_DATE.match(value):
        return "must be YYYY, YYYY-MM or YYYY-MM-DD, or a range such as 2020..2022"
    parts = value.split("..")
    try:
        spans = [_bounds(p) for p in parts]
    except ValueError:
        return f"'{value}' is not a real calendar date (month 01-12, a day that month has)"
    if len(spans) == 2 and spans[1][1] < spans[0][0]:
        return f"the range '{value}' runs backwards; write the earlier date first"
    if historical and spans[0][0] > (today or date.today()):
        return f"'{value}' is in the future; a historical case's decision has already been made"
    return ""


def _one_of(bad, fld: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        bad(fld, f"'{value}' is not allowed; use one of {', '.join(allowed)}")


def _ready_problems(case: Case, parsed: Parsed) -> list[Problem]:
    """A ready case can enter a study: it needs everything seed 000 §III–IV asks for."""
    out: list[Problem] = []

    def bad(fld: str, msg: str) -> None:
        out.append(Problem(parsed.path, parsed.line_of(fld), fld, f"{msg} (required when status = \"ready\")"))

    if not case.scenario:
        bad("scenario", "the '## Scenario' section must hold the knowledge-bounded scenario text")
    elif case.scenario.lstrip().startswith(PLACEHOLDER_MARKERS):
        bad("scenario", "still a draft outline; write the knowledge-bounded scenario")
    if not case.outcome:
        bad("outcome", "the '## Outcome' section must hold the outcome record evaluators score against")
    elif case.outcome.lstrip().startswith(PLACEHOLDER_MARKERS):
        bad("outcome", "still marked as to be researched; write the outcome record")
    for key in CRITERIA:
        if not case.criteria.get(key):
            bad(f"criteria.{key}", "every selection criterion must be checked")
    if case.type == "historical":
        if not case.strategies:
            bad("strategies", "a historical case needs at least one contamination strategy")
        if not case.decision_date:
            bad("decision_date", "a historical case needs its decision date")
    if "B" in case.strategies:
        tr = case.transposition
        if not tr.original:
            bad("transposition.original", "strategy B needs the original case it transposes")
        if not tr.mapping:
            bad("transposition.mapping", "strategy B needs the documented mapping")
        if len(tr.verifiers) < 2:
            bad("transposition.verifiers", "strategy B needs two independent verifiers")
        for key, what in PRESERVES.items():
            if not tr.preserves.get(key):
                bad(f"transposition.preserves.{key}", f"both verifiers must confirm the transposition preserves {what}")
    for probe in case.contamination_flags():
        what = "recognized this scenario" if probe.verdict == "recognized" else "predicted part of its outcome"
        bad("probes", f"the probe on {probe.model} ({probe.date}) {what} ({probe.verdict}): "
                      "transpose it (strategy B) or exclude it")
    return out


def size_problem(name: str, size: int) -> Problem | None:
    if size <= MAX_CASE_BYTES:
        return None
    return Problem(name, 1, "file", f"is {size / 1024:.0f} KiB; a case file may hold at most "
                                    f"{MAX_CASE_BYTES // 1024} KiB")


def validate_text(text: str, name: str = "<case>", known_rubrics: Iterable[str] | None = None
                  ) -> tuple[Case | None, list[Problem]]:
    too_big = size_problem(name, len(text.encode("utf-8")))
    if too_big:
        return None, [too_big]
    parsed = parse_text(text, name)
    return parsed.case, check(parsed, known_rubrics)


def case_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[Problem]]:
    """Expand directories to their `*.md` case files (README.md excluded)."""
    files: list[Path] = []
    problems: list[Problem] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(f for f in p.glob(f"*{CASE_SUFFIX}") if f.name.lower() != "readme.md"))
        elif p.is_file():
            files.append(p)
        else:
            problems.append(Problem(str(p), 0, "path", "no such file or directory"))
    return files, problems


def validate_paths(paths: Iterable[str | Path], known_rubrics: Iterable[str] | None = None
                   ) -> tuple[list[tuple[Path, Case]], list[Problem]]:
    """Validate every case file under `paths`; duplicate ids across files are refused."""
    files, problems = case_files(paths)
    known = list(known_rubrics) if known_rubrics is not None else None
    cases: list[tuple[Path, Case]] = []
    seen: dict[str, tuple[Path, int]] = {}
    for f in files:
        too_big = size_problem(str(f), f.stat().st_size)
        if too_big:
            problems.append(too_big)
            continue
        parsed = parse_file(f)
        file_problems = check(parsed, known)
        problems.extend(file_problems)
        case = parsed.case
        if case is None:
            continue
        if case.id in seen:
            other, other_line = seen[case.id]
            problems.append(Problem(str(f), parsed.line_of("id"), "id",
                                    f"duplicate id '{case.id}', already used by {other}:{other_line}"))
            continue
        seen[case.id] = (f, parsed.line_of("id"))
        if not any(p.severity == "error" for p in file_problems):
            cases.append((f, case))
    return cases, problems
