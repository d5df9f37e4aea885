"""Adjudication (seed 000 §X Phase 3, "resolve disagreements"): items where the human raters'
scores of one criterion differ by more than the study's pre-registered margin
(`[hindsight] adjudication_margin`, default 1 point) enter a queue. Each is
resolved by a third rater's score or by the two raters' recorded consensus;
the adjudication is appended with who, how and when. Metrics then report the
raw results and the adjudicated ones side by side: an adjudicated criterion
takes the adjudicated value for every rater of that item, so composites and
rater means are computed exactly as on the raw scores. Inter-rater agreement
is always computed on the raw scores.

The queue names items by their opaque id and never by condition; a third
rater gets the item without the other raters' scores (`queue(..., with_scores=False)`).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass

DEFAULT_MARGIN = 1.0
METHODS = ("third_rater", "consensus")


class AdjudicationError(ValueError):
    """An adjudication that cannot be recorded; the message says why."""


@dataclass(frozen=True)
class Disagreement:
    item_id: str
    case_id: str
    rubric_id: str
    criterion: str
    raters: tuple[str, ...]
    scores: tuple[float, ...]       # in `raters` order; withheld from a third rater
    spread: float
    adjudicated: float | None       # the current adjudicated value, if any

    def to_dict(self, with_scores: bool = True) -> dict:
        d = dataclasses.asdict(self)
        if not with_scores:
            d.pop("scores")
            d.pop("spread")
        return d


def margin_of(definition: dict) -> float:
    return float((definition.get("hindsight") or {}).get("adjudication_margin", DEFAULT_MARGIN))


def _current_human(data) -> dict[tuple[str, str, str], dict[str, float]]:
    """(item, rubric, criterion) -> rater -> value, non-pilot items, the latest rubric version a rater used."""
    cells: dict[tuple[str, str, str], dict[str, tuple[int, float]]] = defaultdict(dict)
    for r in data.scores:
        item = data.items.get(r.item_id)
        if r.kind != "human" or r.status != "ok" or r.value is None or item is None or item.pilot:
            continue
        key = (r.item_id, r.rubric_id, r.criterion)
        if r.evaluator not in cells[key] or r.row_id > cells[key][r.evaluator][0]:
            cells[key][r.evaluator] = (r.row_id, float(r.value))
    return {k: {rater: v for rater, (_, v) in by.items()} for k, by in cells.items()}


def disagreements(data, margin: float, adjudicated: dict | None = None) -> list[Disagreement]:
    adjudicated = adjudicated or {}
    out = []
    for (item, rubric, criterion), by in sorted(_current_human(data).items()):
        if len(by) < 2:
            continue
        spread = max(by.values()) - min(by.values())
        if spread > margin:
            raters = tuple(sorted(by))
            adj = adjudicated.get((item, rubric, criterion))
            out.append(Disagreement(item, data.items[item].case_id, rubric, criterion, raters,
                                    tuple(by[r] for r in raters), spread, adj["value"] if adj else None))
    return out


def queue(db, study_id: str) -> list[Disagreement]:
    """Every disagreement beyond the margin, resolved or not, in item order."""
    from store.adjudication import adjudications
    from workbench.metrics.ratings import load_ratings

    data = load_ratings(db, study_id)
    return disagreements(data, margin_of(data.definition), adjudications(db, study_id))


def adjudicate(db, study_id: str, *, item_id: str, rubric_id: str, criterion: str, value: float, method: str,
               adjudicator: str, note: str | None = None) -> dict:
    """Record the adjudicated value of one disagreement; returns the stored row."""
    from store.adjudication import add_adjudication, adjudications
    from workbench.metrics.ratings import load_ratings

    if method not in METHODS:
        raise AdjudicationError(f"method must be one of {', '.join(METHODS)}")
    data = load_ratings(db, study_id)
    open_items = {(d.item_id, d.rubric_id, d.criterion): d
                  for d in disagreements(data, margin_of(data.definition))}
    d = open_items.get((item_id, rubric_id, criterion))
    if d is None:
        raise AdjudicationError(f"item {item_id} {rubric_id}.{criterion} is not in the adjudication queue (its "
                                f"raters differ by no more than the margin {margin_of(data.definition):g})")
    scale = _scale(data, rubric_id, criterion)
    if scale is not None and not (scale[0] <= value <= scale[1]):
        raise AdjudicationError(f"value {value:g} is outside {rubric_id}.{criterion}'s scale {scale[0]}-{scale[1]}")
    who = (adjudicator or "").strip()
    if method == "third_rater":
        if not who or who in d.raters:
            raise AdjudicationError(f"a third rater must be someone other than {', '.join(d.raters)}")
    else:
        named = {p.strip() for p in who.replace("&", "+").split("+")}
        if not set(d.raters) <= named:
            raise AdjudicationError(f"a consensus is recorded by the raters who disagreed: name them all, "
                                    f"e.g. \"{' + '.join(d.raters)}\"")
    add_adjudication(db, study_id=study_id, item_id=item_id, rubric_id=rubric_id, criterion=criterion,
                     value=float(value), method=method, adjudicator=who, note=note)
    return adjudications(db, study_id)[(item_id, rubric_id, criterion)]


def _scale(data, rubric_id: str, criterion: str) -> tuple[int, int] | None:
    for info in data.rubrics.values():
        if info.rubric_id == rubric_id:
            for c in info.criteria:
                if c.id == criterion:
                    return (c.min, c.max)
    return None


def adjudicated_data(data, adjudicated: dict):
    """A copy of the study's data whose human scores take the adjudicated value where there is one."""
    scores = []
    for r in data.scores:
        adj = adjudicated.get((r.item_id, r.rubric_id, r.criterion))
        if adj is not None and r.kind == "human" and r.status == "ok":
            r = dataclasses.replace(r, value=float(adj["value"]))
        scores.append(r)
    return dataclasses.replace(data, scores=scores)
