"""The judge's prompt, built from the content artifact alone, and the check that refuses a leaky one.

Prompt discipline (seed 004 Arm B) is enforced here, not hoped for: before a
prompt goes to the gateway, `check_prompt` looks for every excluded observable
field — its name in any spelling (`rework_count`, `Rework Count`,
`rework-count`, `reworkCount`) and its value for this interaction — and raises
`PromptLeak` if one is there. Nothing is sent then.

Values: a value is looked for as a whole token. Very short numbers (one or two
characters, such as `0`, `3` or `-1`) are ordinary in any text and would
refuse almost every artifact, so they are not looked for by value; their field
names still are. This threshold is the project's own choice.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from workbench.rubrics import Rubric

MIN_VALUE_CHARS = 3
# The only letters outside ASCII that re.IGNORECASE matches to ASCII ones (İ and ı to i, ſ to s, the Kelvin
# sign to k; tests/protocols/calibration/test_calibration_judge.py checks every code point).
CASELESS_ASCII_LOOKALIKES = "\u0130\u0131\u017f\u212a"
REPLY_FORMAT = ('Reply with one JSON object and nothing else: {"score": <a number from 0 to 1>, '
                '"reason": "<one sentence>"}.')


class PromptLeak(Exception):
    """A prompt would show the judge an excluded observable; it is not sent."""

    def __init__(self, field: str, how: str):
        super().__init__(f"the judge prompt contains the excluded field {field} ({how}); it was not sent")
        self.field, self.how = field, how


def rubric_text(rubric: Rubric) -> str:
    """The rubric as the judge reads it: instructions, the question, and the levels placed on [0, 1]."""
    criterion = rubric.criteria[0]
    span = criterion.max - criterion.min
    levels = "\n".join(f"- {(a.score - criterion.min) / span:.2f} — {a.label or a.score}: {a.text}"
                       for a in criterion.anchors)
    return (f"{rubric.name}\n\n{rubric.instructions.strip()}\n\n{criterion.question}\n\nLevels:\n{levels}\n\n"
            f"{REPLY_FORMAT}")


def judge_messages(rubric: Rubric, content: str) -> list[dict[str, str]]:
    """The whole prompt: the rubric (system) and the artifact (user). Nothing else of the record."""
    return [{"role": "system", "content": rubric_text(rubric)},
            {"role": "user", "content": f"Content artifact:\n<<<\n{content}\n>>>\n\n{REPLY_FORMAT}"}]


def retry_message(reason: str) -> dict[str, str]:
    return {"role": "user", "content": f"That reply could not be used ({reason}). {REPLY_FORMAT}"}


@functools.lru_cache(maxsize=1024)
def _name_pattern(field: str) -> tuple[tuple[str, ...] | None, re.Pattern]:
    """The field name's pattern, and its words in lower case (None unless all are ASCII) for `_names`."""
    # rework_count → words "rework", "count" joined by any separator or none (camelCase included)
    words = [w for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", field) if w]
    pattern = re.compile(r"(?<![A-Za-z0-9])" + r"[\s_\-]*".join(re.escape(w) for w in words) + r"(?![A-Za-z0-9])",
                         re.IGNORECASE)
    return (tuple(w.lower() for w in words) if all(w.isascii() for w in words) else None), pattern


def _names(field: str, text: str, lowered: str | None) -> bool:
    """Whether `text` shows the field's name. `lowered`: the text in lower case, unless it holds one of the
    CASELESS_ASCII_LOOKALIKES; then the name (ASCII words) can only be there if each of its words is in
    `lowered`. That substring test spares most prompts the pattern (every study runs it once per field and
    item); a text with a look-alike always gets the pattern."""
    words, pattern = _name_pattern(field)
    if lowered is not None and words is not None and not all(w in lowered for w in words):
        return False
    return pattern.search(text) is not None


def _value_forms(value: Any) -> list[str]:
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _value_forms(v)]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _value_forms(v)]
    forms = {str(value)}
    if isinstance(value, float):
        forms |= {repr(value), json.dumps(value)}
        if value.is_integer():
            forms.add(str(int(value)))
    return [f for f in forms if len(f.strip()) >= MIN_VALUE_CHARS]


def check_prompt(messages: list[dict[str, str]], observables: dict, excluded: list[str]) -> None:
    """Raise PromptLeak if any message shows an excluded field's name or (distinctive) value."""
    text = "\n".join(m.get("content", "") for m in messages)
    lowered = None if any(c in text for c in CASELESS_ASCII_LOOKALIKES) else text.lower()
    for field in excluded:
        if _names(field, text, lowered):
            raise PromptLeak(field, "its name")
        for form in _value_forms(observables.get(field)):
            form = form.strip()
            # the substring test first: a pattern per value (thousands of items) outgrows re's cache
            if form in text and re.search(r"(?<![\w.])" + re.escape(form) + r"(?![\w]|\.\d)", text):
                raise PromptLeak(field, f"its value {form!r}")
