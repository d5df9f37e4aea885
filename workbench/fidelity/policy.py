"""The study file's `on_missing_treatment`: what the tables do with runs whose defining step did not happen.

- "mark" (default): they stay in every table; each cell that stands on one carries the mark (MARK)
- "exclude": they leave every table of the protocol (the fidelity table still counts them)
- "refuse": a run that ends without its treatment stops the study (`run --resume` continues); runs stored
  before stay in the tables, marked
"""

from __future__ import annotations

KEY = "on_missing_treatment"
MARK = "†"  # a table cell, or a Runs grid cell, that stands on runs whose defining step did not happen
CHOICES = ("mark", "exclude", "refuse")
DEFAULT = "mark"

WORDS = {
    "mark": "runs whose defining step did not happen stay in every table, and each cell that stands on one is marked",
    "exclude": "runs whose defining step did not happen leave every table (the fidelity table still counts them)",
    "refuse": "a run that ends without its defining step stops the study; runs stored before stay in the tables, "
              "marked",
}


def check(data: dict, bad) -> str | None:
    """The file's choice (None when it names none: the default applies and the definition stays as it was,
    so no study frozen before this key changes its hash). `bad(key, message)` reports a wrong value."""
    if KEY not in data:
        return None
    value = data[KEY]
    if value not in CHOICES:
        bad(KEY, f"must be one of {', '.join(repr(c) for c in CHOICES)} (got {value!r})")
        return None
    return value


def policy_of(definition: dict) -> str:
    return definition.get(KEY) or DEFAULT


def sentence(policy: str) -> str:
    """What the report says of the study's choice."""
    named = "the default" if policy == DEFAULT else "pre-registered in the study file"
    return f"`{KEY} = \"{policy}\"` ({named}): {WORDS[policy]}."
