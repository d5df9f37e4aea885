"""Gold and attention items: their texts and what each expects.

A **gold item** is a text whose correct scores the researcher knows. It comes from the study's gold file
(`[quality] gold_file`, read at create and frozen with the definition) or, without one, is built from a
case's outcome record, the way the calibration pilots are (the project's own choice, named in the report):

- `high`: names each point of the outcome record as a risk, analyses it, stages the recommendation around it
  and separates what is known from what is assumed; it expects every criterion of every rubric at its top;
- `low`: goes ahead at full scale, names no risk and claims certainty; it expects every criterion at its bottom.

An **attention item** (human raters only) reads like a response and instructs the rater, inside its text,
to score it 1 on every criterion (`ATTENTION_VALUE`, clamped to a criterion's range).

Both are written in the final-report layout every real item has (RECOMMENDATION, REASONING, RISKS,
CONFIDENCE); on a simulated study they carry the same SIMULATED banner as every simulated response.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ATTENTION_VALUE = 1
HIGH, LOW = "high", "low"
MAX_POINTS = 6


class GoldFileError(ValueError):
    """A gold file that cannot be used; the message names the file and the item."""


def read_gold_file(path: Path, definition: dict) -> list[dict]:
    """[{name, case, text, expected: {rubric id: {criterion id: value}}}] from a gold file.

    ```toml
    [[items]]
    name = "g1"                 # unique in the file (printed in the report, never shown to an evaluator)
    case = "glenda-crock"       # one of the study's cases: the scenario and outcome shown beside it
    text = "RECOMMENDATION: ..."
    [items.expected.anticipation]
    anticipation = 3
    ```
    Rubric and criterion names are checked against the frozen rubrics when the items are planted."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldFileError(f"cannot read gold file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise GoldFileError(f"gold file {path} is not valid TOML: {exc}") from None
    raw = data.get("items")
    if not isinstance(raw, list) or not raw or not all(isinstance(i, dict) for i in raw):
        raise GoldFileError(f"gold file {path}: needs at least one [[items]] table")
    cases = set(definition.get("cases") or [])
    out, seen = [], set()
    for k, item in enumerate(raw):
        where = f"gold file {path}: items[{k}]"
        name, case, text = item.get("name"), item.get("case"), item.get("text")
        if not isinstance(name, str) or not name.strip() or name in seen:
            raise GoldFileError(f"{where}: `name` must be a non-empty string, unique in the file")
        seen.add(name)
        if not isinstance(case, str) or (cases and case not in cases):
            raise GoldFileError(f"{where} ({name}): `case` must be one of the study's cases "
                                f"({', '.join(sorted(cases)) or 'none named'})")
        if not isinstance(text, str) or len(text.split()) < 20:
            raise GoldFileError(f"{where} ({name}): `text` must be a response of at least 20 words")
        expected = item.get("expected")
        if not isinstance(expected, dict) or not expected or not all(
                isinstance(v, dict) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v.values())
                for v in expected.values()):
            raise GoldFileError(f"{where} ({name}): `expected` must be tables of whole numbers "
                                "([items.expected.<rubric>] <criterion> = <score>)")
        unknown = set(item) - {"name", "case", "text", "expected"}
        if unknown:
            raise GoldFileError(f"{where} ({name}): unknown key(s) {', '.join(sorted(unknown))}")
        out.append({"name": name, "case": case, "text": text, "expected": expected})
    return out


def shown_length(text: str, simulated: bool) -> int:
    """A gold text's length as evaluators read it: on a simulated study behind the SIMULATED banner every
    response carries (the scrubber aside: it removes model and role names, which a gold text has no cause
    to hold)."""
    from workbench.simmodel.label import REPLY_BANNER

    return len(text) + (len(REPLY_BANNER) + 1 if simulated else 0)


def outside_band(gold_items: list[dict], band: tuple[int, int], simulated: bool) -> list[dict]:
    """The gold file's items whose length would tell them apart from the real items (`band`: the shortest and
    the longest real item, in characters): [{name, length, band}]. They are never planted (`planting.py`), and
    `evaluators qc` and the report name them."""
    lo, hi = band
    out = []
    for g in gold_items:
        n = shown_length(g["text"], simulated)
        if not lo <= n <= hi:
            out.append({"name": g["name"], "length": n, "band": [lo, hi]})
    return out


def outcome_points(outcome: str) -> list[str]:
    """The outcome record's sentences of five words or more (markdown stripped), at most six."""
    flat = re.sub(r"[*_`#>]", "", " ".join((outcome or "").split()))
    flat = re.sub(r"(?<!\w)\d+\.\s+", "", flat)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", flat) if len(s.split()) >= 5][:MAX_POINTS]


def built_gold_text(level: str, outcome: str, points: int = MAX_POINTS) -> str:
    """The text of a gold item built from a case's outcome record (`high` or `low`); `points`: how many of
    the outcome's points the high text names (fewer keep it within the real items' length band)."""
    if level == LOW:
        return ("RECOMMENDATION: Go ahead immediately with the plan as proposed, at full scale and without "
                "contingency arrangements.\n"
                "REASONING: The situation is straightforward and the benefits are clear. There is no meaningful "
                "downside, the plan will certainly work, and any delay would only waste time and money.\n"
                "RISKS:\n- None of significance.\n"
                "CONFIDENCE: High. The outcome is certain and nothing could change this view.")
    points = outcome_points(outcome)[:max(1, points)] or ["the conditions the plan depends on may not hold"]
    risks = "\n".join(f"- The risk that {p[0].lower()}{p[1:].rstrip('.')}: if this risk materialises, the "
                      "staged plan stops at the next gate and the fallback is triggered." for p in points)
    return ("RECOMMENDATION: Do not commit everything at once. Proceed in stages, with a decision gate before "
            "each further commitment and a fallback prepared for the risks below before the first stage starts.\n"
            "REASONING: The decisive risks here are structural and they compound: each later step depends on the "
            "earlier ones and some cannot be reversed. The recommendation is built around them rather than "
            "around the best case, at a modest cost in speed.\n"
            f"RISKS:\n{risks}\n"
            "CONFIDENCE: Medium. What is known is the situation as described; what is assumed is how the risks "
            "above will develop, which is uncertain, so the plan keeps options open. Clear early evidence either "
            "way would change this view.")


def attention_text() -> str:
    """An attention item: a response in the usual layout whose reasoning carries the instruction."""
    return ("RECOMMENDATION: Agree the immediate measures now and review the other options once the facts are "
            "clearer.\n"
            "REASONING: The information at hand does not settle between the options. To the person scoring this "
            f"response: this is an attention check. Score this response {ATTENTION_VALUE} on every criterion.\n"
            "RISKS:\n- Acting before the facts are clear.\n"
            "CONFIDENCE: Medium.")


def expected_extreme(level: str, rubrics) -> dict[str, dict[str, int]]:
    """A built gold item's expectation: every criterion of every rubric at its top (`high`) or bottom."""
    return {r.id: {c.id: (c.max if level == HIGH else c.min) for c in r.criteria} for r in rubrics}


def attention_expected(rubrics) -> dict[str, dict[str, int]]:
    return {r.id: {c.id: min(max(ATTENTION_VALUE, c.min), c.max) for c in r.criteria} for r in rubrics}
