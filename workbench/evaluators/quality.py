"""Per-evaluator quality, for human raters and LLM judges alike, computed without unblinding.

The one definition of every figure (the Studies screen's evaluator panel, `evaluators qc` and the report
print these numbers). An evaluator's **cells** are their current values, one per (item, rubric, criterion);
their **order** is the order they met the items: a rater's queue position (dealt by the blinding seed over the
items' content, the same in every store) and, for a judge, whose calls run at once and finish in no order of its
own, an order drawn from the blinding seed over the items' content (`study.judge_order`). So 'longest run' and
'drift' are one study's figures in every fresh store (issue 42: they followed each store's shuffle).

- gold_exact / gold_within_one: over the criteria a gold item expects, the share of the evaluator's values
  equal to the expected value / within one point of it;
- attention_pass: the share of attention items (human raters) whose every scored criterion has the
  instructed value;
- median_seconds / under_floor: over items with a recorded time (a rater's open-to-save time on the desk,
  or the seconds a packet reports; judges have none), the median, and the share under the study's
  `time_floor_seconds`; an item's time is that of its last saved criterion;
- longest_run / modal_share: the evaluator's values in their order (items in order, criteria in rubric and
  criterion order; attention items left out) as one sequence: the longest run of one value, and the share
  of the most common value;
- loo_agreement: Spearman's rho (SciPy) between the evaluator's values and the mean of every other
  evaluator's values, over the real items' cells both have (planted items left out); undefined under three
  cells or when either side does not vary;
- drift: gold_exact over the second half of the evaluator's gold items (in their order) minus over the
  first half (the first half has the smaller half when the count is odd); undefined under two gold items.

Planted items (`store.quality.planted`) and the figures never reach a rater.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field

HUMAN, JUDGE = "human", "judge"
Cell = tuple[str, str, str]   # (item id, rubric id, criterion id)


@dataclass
class Evaluations:
    """One evaluator's current values, the order they met the items, and the seconds per item."""

    evaluator: str
    kind: str                                              # human | judge
    values: dict[Cell, float] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)   # item -> rank
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class EvaluatorQuality:
    evaluator: str
    kind: str
    items: int = 0                       # items with at least one value (planted included)
    gold_items: int = 0
    gold_cells: int = 0
    gold_exact: float | None = None
    gold_within_one: float | None = None
    attention_items: int = 0
    attention_passed: int = 0
    attention_pass: float | None = None
    timed_items: int = 0
    median_seconds: float | None = None
    under_floor: float | None = None
    longest_run: int | None = None
    modal_share: float | None = None
    loo_cells: int = 0
    loo_agreement: float | None = None
    drift: float | None = None

    def figure(self, name: str) -> float | None:
        value = getattr(self, name)
        return None if value is None else float(value)

    def to_dict(self) -> dict:
        return asdict(self)


def evaluator_quality(evals: list[Evaluations], planted: dict[str, dict], floor: float) -> list[EvaluatorQuality]:
    """Every evaluator's figures. `planted`: item -> {kind: gold|attention, expected: {rubric: {criterion: v}}}."""
    return [_one(e, evals, planted, floor) for e in evals]


def _one(e: Evaluations, everyone: list[Evaluations], planted: dict[str, dict], floor: float) -> EvaluatorQuality:
    q = EvaluatorQuality(e.evaluator, e.kind)
    by_item: dict[str, dict[tuple[str, str], float]] = {}
    for (item, rubric, crit), v in e.values.items():
        by_item.setdefault(item, {})[(rubric, crit)] = v
    q.items = len(by_item)
    ordered = sorted(by_item, key=lambda i: (e.order.get(i, 1 << 30), i))
    _gold(q, [i for i in ordered if planted.get(i, {}).get("kind") == "gold"], by_item, planted)
    _attention(q, [i for i in ordered if planted.get(i, {}).get("kind") == "attention"], by_item, planted)
    _time(q, [e.seconds[i] for i in ordered if i in e.seconds], floor)
    sequence = [by_item[i][k] for i in ordered if planted.get(i, {}).get("kind") != "attention"
                for k in sorted(by_item[i])]
    if sequence:
        q.longest_run = _longest_run(sequence)
        q.modal_share = Counter(sequence).most_common(1)[0][1] / len(sequence)
    _agreement(q, e, everyone, planted)
    return q


def _gold_hits(items: list[str], by_item: dict, planted: dict) -> list[tuple[float, float]]:
    """(value, expected) for every expected criterion the evaluator scored on these gold items."""
    out = []
    for item in items:
        for rubric, crits in planted[item]["expected"].items():
            for crit, expected in crits.items():
                if (rubric, crit) in by_item[item]:
                    out.append((by_item[item][(rubric, crit)], float(expected)))
    return out


def _exact(pairs: list[tuple[float, float]]) -> float | None:
    return sum(v == x for v, x in pairs) / len(pairs) if pairs else None


def _gold(q: EvaluatorQuality, items: list[str], by_item: dict, planted: dict) -> None:
    pairs = _gold_hits(items, by_item, planted)
    q.gold_items, q.gold_cells = len(items), len(pairs)
    if pairs:
        q.gold_exact = _exact(pairs)
        q.gold_within_one = sum(abs(v - x) <= 1 for v, x in pairs) / len(pairs)
    if len(items) >= 2:
        half = len(items) // 2
        first, second = (_exact(_gold_hits(part, by_item, planted)) for part in (items[:half], items[half:]))
        if first is not None and second is not None:
            q.drift = second - first


def _attention(q: EvaluatorQuality, items: list[str], by_item: dict, planted: dict) -> None:
    q.attention_items = len(items)
    for item in items:
        expected = planted[item]["expected"]
        scored = [(v, expected.get(r, {}).get(c)) for (r, c), v in by_item[item].items()]
        q.attention_passed += all(x is not None and v == x for v, x in scored)
    if items:
        q.attention_pass = q.attention_passed / len(items)


def _time(q: EvaluatorQuality, seconds: list[float], floor: float) -> None:
    q.timed_items = len(seconds)
    if seconds:
        q.median_seconds = float(statistics.median(seconds))
        q.under_floor = sum(s < floor for s in seconds) / len(seconds)


def _longest_run(values: list[float]) -> int:
    best = run = 1
    for a, b in zip(values, values[1:]):
        run = run + 1 if a == b else 1
        best = max(best, run)
    return best


def _agreement(q: EvaluatorQuality, e: Evaluations, everyone: list[Evaluations], planted: dict) -> None:
    mine, others = [], []
    for cell, v in e.values.items():
        if cell[0] in planted:
            continue
        theirs = [o.values[cell] for o in everyone if o is not e and cell in o.values]
        if theirs:
            mine.append(v)
            others.append(sum(theirs) / len(theirs))
    q.loo_cells = len(mine)
    if len(mine) >= 3 and len(set(mine)) > 1 and len(set(others)) > 1:
        from scipy.stats import spearmanr

        q.loo_agreement = float(spearmanr(mine, others).statistic)
