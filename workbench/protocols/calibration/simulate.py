"""The calibration protocol's simulator: what the offline `sim` model answers to a judge's call.

Planted judge model (from the study's `[simulation]` table, see workbench/simmodel/params.py):
- an interaction's true quality is the probability its proxy stands for, t = logistic(v_hat) (the
  project's choice: the planted judges read what the proxy measures, so proxy and judges agree when
  the judges are reliable);
- judge j scores t + offset_j + e, e ~ N(0, σ²) drawn per (judge, interaction, attempt), with
  σ = SD(t over the study's p grid) · sqrt((1 − judge_icc) / judge_icc), so judge_icc is each judge's
  planted reliability (ICC(1)); the score is kept in [0, 1] and given with two decimals.
The judge never sees the record (its prompt holds the content artifact only); the simulator looks the
interaction up in the store by the call's item id, as a planted truth would. Every reply is one JSON
object after the SIMULATED banner, so `program.parse_score` reads it.
"""

from __future__ import annotations

import json
import math
from statistics import pstdev

from workbench.simmodel import draws
from workbench.simmodel.label import REPLY_BANNER


def true_quality(v_hat: float) -> float:
    return 1.0 / (1.0 + math.exp(-v_hat))


def spread(p_grid: list[float] | None) -> float:
    """The SD of the true quality across the p grid the sample is stratified over (0.29, a uniform's,
    when the study has no grid)."""
    grid = [p for p in (p_grid or []) if 0 < p < 1]
    return pstdev(grid) if len(grid) >= 2 else (1 / 12) ** 0.5


def score(t: float, offset: float, icc: float, sd_true: float, z: float) -> float:
    noise = sd_true * ((1 - icc) / icc) ** 0.5 * z
    return round(min(1.0, max(0.0, t + offset + noise)), 2)


class CalibrationSimulator:
    roles = ("judge",)  # its judges are the protocol's own runs, not the shared judges over blind items

    def reply(self, request, params: dict, db) -> str:
        from store.items import get_item
        from store.studies import get_study

        meta = request.metadata or {}
        item_id, judge = str(meta.get("item") or ""), str(meta.get("condition") or request.agent or "")
        item = get_item(db, request.study_id, item_id) if db is not None and request.study_id else None
        if item is None:
            return (f"{REPLY_BANNER}\nNo interaction '{item_id}' to score; this text stands for a reply and "
                    "carries no score.")
        study = get_study(db, request.study_id) or {}
        grid = ((study.get("definition") or {}).get("calibration") or {}).get("p_grid")
        t = true_quality(float(item["payload"]["v_hat"]))
        z = draws.normal(params["seed"], "calibration-judge", judge, item_id, request.turn, request.sample)
        value = score(t, (params.get("judge_offsets") or {}).get(judge, 0.0), params["judge_icc"], spread(grid), z)
        reason = f"Simulated judge: the planted quality {t:.2f} as this judge reads it."
        return f"{REPLY_BANNER}\n{json.dumps({'score': value, 'reason': reason})}"


SIMULATOR = CalibrationSimulator()
