"""Planting gold and attention items among a study's real items, at the pre-registered rates.

Called once, by the blinding's first pass (`blinding/items.py`), with the real items it has just made:

    gold items      = ceil(gold_rate x real items), drawn (blinding seed) from the gold file's items or the
                      items built from the study's cases (`gold.py`), at most as many as there are; a gold
                      file's item longer or shorter than every real item is left out of the draw (its length
                      alone would tell it apart; `evaluators qc` and the report name it);
    attention items = ceil(attention_rate x real items), one per case in turn (human raters only).

A planted item is a blind item like any other: a random opaque id, `pilot` 0, its case, its text scrubbed
by the same scrubber, on a simulated study the same banner. What it is and what it expects is sealed in
`planted_items`. The blinding deals it to every rater (and, when gold, every judge), and each rater's own
order shuffles it among the real items.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from workbench.evaluators.gold import (
    HIGH,
    LOW,
    MAX_POINTS,
    attention_expected,
    attention_text,
    built_gold_text,
    expected_extreme,
    outside_band,
)
from workbench.evaluators.settings import quality_of

GOLD, ATTENTION = "gold", "attention"


class PlantingError(ValueError):
    """A gold item that does not fit the study (a rubric or criterion it does not score)."""


@dataclass(frozen=True)
class Planted:
    case_id: str
    text: str
    kind: str          # gold | attention
    expected: dict     # {rubric id: {criterion id: value}}
    source: str        # the gold file's item name, or outcome:<case>:<level>, or attention:<case>


def plan(study, real_items: list[dict]) -> list[Planted]:
    """What to plant for `study` (a blinding StudyContext: definition, cases, rubrics_for_case) given the
    real items of its first blinding ([{case_id, ...}]). Texts are raw: the caller scrubs them."""
    settings = quality_of(study.definition)
    n_real = len(real_items)
    if not n_real:
        return []
    cases = [c for c in dict.fromkeys(i["case_id"] for i in real_items) if c in study.cases]
    rng = random.Random(f"{int(study.blinding.get('seed') or 0)}:planted")
    out: list[Planted] = []
    if settings["gold_rate"] > 0:
        longest = max(len(i.get("text") or "") for i in real_items)
        pool = _gold_pool(study, settings, cases, longest, real_band(real_items))
        rng.shuffle(pool)
        out += pool[:math.ceil(settings["gold_rate"] * n_real)]
    if settings["attention_rate"] > 0 and study.rater_names and cases:
        for k in range(math.ceil(settings["attention_rate"] * n_real)):
            case_id = cases[k % len(cases)]
            out.append(Planted(case_id, attention_text(), ATTENTION,
                               attention_expected(study.rubrics_for_case(case_id)), f"attention:{case_id}"))
    return out


def real_band(real_items: list[dict]) -> tuple[int, int]:
    """The shortest and the longest real item (characters, as blinded), pilots aside: the length band."""
    lengths = [len(i.get("text") or "") for i in real_items if not i.get("pilot")] or \
        [len(i.get("text") or "") for i in real_items]
    return min(lengths), max(lengths)


def _gold_pool(study, settings: dict, cases: list[str], longest: int, band: tuple[int, int]) -> list[Planted]:
    if settings.get("gold_items"):
        from workbench.simmodel.label import is_simulated

        pool = [_from_file(study, g) for g in settings["gold_items"]]  # every item checked, fitting or not
        left_out = {o["name"] for o in outside_band(settings["gold_items"], band, is_simulated(study.definition))}
        return [p for p in pool if p.source not in left_out]
    pool = []
    for case_id in cases:
        rubrics = study.rubrics_for_case(case_id)
        for level in (HIGH, LOW):
            pool.append(Planted(case_id, _fitting(level, study.cases[case_id].outcome, longest), GOLD,
                                expected_extreme(level, rubrics), f"outcome:{case_id}:{level}"))
    return pool


def _fitting(level: str, outcome: str, longest: int) -> str:
    """The built text naming as many outcome points as fit within the longest real item (at least one):
    a planted item longer than every real one would stand out by its length alone."""
    texts = [built_gold_text(level, outcome, k) for k in range(MAX_POINTS, 0, -1)]
    return next((t for t in texts if len(t) <= longest), texts[-1])


def _from_file(study, g: dict) -> Planted:
    rubrics = {r.id: r for r in study.rubrics_for_case(g["case"])}
    for rubric_id, by_crit in g["expected"].items():
        rubric = rubrics.get(rubric_id)
        if rubric is None:
            raise PlantingError(f"gold item {g['name']}: case {g['case']} is not scored on rubric '{rubric_id}' "
                                f"(its rubrics: {', '.join(rubrics)})")
        crits = {c.id: c for c in rubric.criteria}
        for crit_id, value in by_crit.items():
            crit = crits.get(crit_id)
            if crit is None or not crit.min <= value <= crit.max:
                raise PlantingError(f"gold item {g['name']}: {rubric_id}.{crit_id} = {value} is not a criterion "
                                    f"score of rubric '{rubric_id}'")
    return Planted(g["case"], g["text"], GOLD, g["expected"], g["name"])
