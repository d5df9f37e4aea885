"""The units judging is counted in, named once for every place that prints a count (issue 24 item 7).

- An **item-rubric pair** is one judge's judging of one blind item on one rubric. It is the unit of
  judging work: it is asked as a whole (one call, or one per criterion, times the judge's runs), and a
  reply that never validates makes the whole pair a judge error. Pilot items are items like the others.
  Judge progress, the judging summary, `judge --json`, the TUI, `study show`, the report's counts and its
  Judge errors table all count pairs.
- A **verdict** is one criterion of one judged pair: the row metrics read. A pair gives as many verdicts
  as its rubric has criteria (Anticipation 1, Glenda/Crock 3), so verdicts are never added to pairs.
"""

from __future__ import annotations

PAIR, PAIRS = "item-rubric pair", "item-rubric pairs"
VERDICT, VERDICTS = "verdict", "verdicts"

# Which items a count of judged pairs covers, said beside it (issue 43: 72 in `study show`, 60 in Metrics, no
# label). The study's counts (`study show`, the Studies detail, the report's counts) cover every item a judge
# was given; the metrics tables leave the planted gold and attention items out (`workbench.metrics.ratings`).
EVERY_ITEM = "counting pilot, gold and attention items"
TABLES_ITEMS = "counting pilot items, not gold or attention items"


def pairs(n: int) -> str:
    """`1 item-rubric pair`, `54 item-rubric pairs`."""
    return f"{n} {PAIR if n == 1 else PAIRS}"


def judge_errors(n: int) -> str:
    """`1 judge error`, `33 judge errors` (each one an item-rubric pair)."""
    return f"{n} judge error{'' if n == 1 else 's'}"


def judged_text(judged: int, errors: int, of: int | None = None, items: str | None = None) -> str:
    """`60/60 item-rubric pairs judged: 60 ok, 0 judge errors` (or `60 item-rubric pairs judged: …` when
    the planned number is not known): how many pairs were judged, and how their judging ended. `items`:
    which items the count covers (EVERY_ITEM, TABLES_ITEMS), said last in brackets."""
    done = f"{judged}/{of} {PAIRS}" if of is not None else pairs(judged)
    return f"{done} judged: {judged - errors} ok, {judge_errors(errors)}" + (f" ({items})" if items else "")
