"""The study's primary evaluator: whose scores its tables are computed from (`evaluator` in the study file).

Seed 000 §VI.3: "The evaluator is a fresh LLM instance (or human rater)". A study says which:

    evaluator = "raters"          the human raters (an item's score: the mean over the raters who scored it)
    evaluator = "judge:<name>"    the LLM judge <name> of [[judges]] (its verdicts; judge_errors left out)
    evaluator = "both"            the raters, then each judge: one block of tables per evaluator, then their
                                  agreement

Left out, it defaults to the raters when the study names any, else to its one judge; a study with no raters
and several judges must name one. The key is part of the definition, so it is frozen and hashed with the
study; a file without it keeps the definition it had (the default follows from `raters` and `[[judges]]`,
which are frozen too). `evaluators_of(definition)` is the one reading of it, for any package.
"""

from __future__ import annotations

from dataclasses import dataclass

KEY = "evaluator"
RATERS = "raters"
BOTH = "both"
JUDGE_PREFIX = "judge:"


@dataclass(frozen=True)
class Evaluator:
    """One evaluator whose scores fill a block of tables: the human raters together, or one LLM judge."""

    kind: str                 # "raters" | "judge"
    name: str | None = None   # the judge's name

    @property
    def key(self) -> str:
        """As the study file writes it: "raters" or "judge:<name>"."""
        return RATERS if self.kind == RATERS else f"{JUDGE_PREFIX}{self.name}"

    @property
    def label(self) -> str:
        return "human raters" if self.kind == RATERS else f"LLM judge {self.name}"

    @property
    def is_judge(self) -> bool:
        return self.kind == "judge"


def _judge_names(definition: dict) -> list[str]:
    return [j.get("name") for j in definition.get("judges") or [] if j.get("name")]


def choice_problem(value: str, definition: dict) -> str | None:
    """Why `value` cannot be this study's evaluator, or None."""
    raters, judges = list(definition.get("raters") or []), _judge_names(definition)
    if value == RATERS:
        return None if raters else "\"raters\" needs raters (the study names none)"
    if value == BOTH:
        if not raters or not judges:
            return "\"both\" needs raters and at least one [[judges]] table"
        return None
    if value.startswith(JUDGE_PREFIX):
        name = value[len(JUDGE_PREFIX):]
        if name in judges:
            return None
        return f"no judge named '{name}' (judges: {', '.join(judges) or 'none'})"
    return (f"must be \"raters\", \"judge:<name>\" or \"both\" (got {value!r}); the tables are computed from "
            "this evaluator")


def default_choice(definition: dict) -> str | None:
    """The evaluator of a study file that names none: its raters, else its one judge (None: it must say)."""
    judges = _judge_names(definition)
    if definition.get("raters"):
        return RATERS
    if len(judges) == 1:
        return f"{JUDGE_PREFIX}{judges[0]}"
    return None


def check_evaluator(c, data: dict, definition: dict) -> str | None:
    """`c`: the StudyChecker. The value the file gives (checked), or None when it gives none."""
    if KEY not in data:
        if default_choice(definition) is None and len(_judge_names(definition)) > 1:
            c.bad(KEY, "the study has no raters and several judges: name the one its tables come from, "
                       f"e.g. evaluator = \"{JUDGE_PREFIX}{_judge_names(definition)[0]}\"")
        return None
    value = c.string(data, KEY, KEY, None)
    if isinstance(value, str):
        problem = choice_problem(value, definition)
        if problem:
            c.bad(KEY, problem)
            return None
    return value


def evaluators_of(definition: dict) -> list[Evaluator]:
    """The study's evaluators in block order, the primary first: [] when it has none at all."""
    choice = definition.get(KEY) or default_choice(definition)
    if choice is None:
        return []
    if choice == BOTH:
        return [Evaluator(RATERS), *(Evaluator("judge", j) for j in _judge_names(definition))]
    if choice == RATERS:
        return [Evaluator(RATERS)]
    return [Evaluator("judge", choice[len(JUDGE_PREFIX):])]


def describe(definition: dict) -> str:
    """What the tables will be computed from, in words (`study create`, `study show`, the report)."""
    evaluators = evaluators_of(definition)
    if not evaluators:
        return "tables from: no evaluator (the study names no raters and no judge)"
    given = "" if definition.get(KEY) else " (the default)"
    if len(evaluators) == 1:
        return f"tables from: the {evaluators[0].label}{given}"
    return ("tables from: " + ", then ".join(f"the {e.label}" for e in evaluators)
            + ", one block each, then their agreement")
