"""Human validation (seed 003 §8): 20 samples for human raters, and their agreement with the pipeline.

The sample is drawn from the scored samples, stratified by band: each band
gets a share proportional to its size (largest remainders), at least one for
every band that has samples, drawn with the study's `human_seed`. A rater
reads the product and the module's output only (`rater_text`): no pipeline
score, no expected answer. A sample's human score is the mean over raters of
each rater's mean of the five criteria (a rater who left a criterion blank is
left out for that sample); it is set against the pipeline's overall score.
Target (pre-registered): Pearson r > `[thresholds] human_r` (0.85); pass means the
point estimate is above it, and the CI's lower bound is shown beside it.
"""

from __future__ import annotations

import random
from statistics import mean

from workbench.protocols.m11.prompts import item_text
from workbench.protocols.m11.scoring import BANDS, CRITERIA


def select_sample(results: list[dict], n: int, seed: int) -> list[str]:
    scored = [r for r in results if r["band"] is not None]
    if len(scored) <= n:
        return [r["id"] for r in scored]
    strata = {name: sorted(r["id"] for r in scored if r["band"] == name) for name, _, _ in BANDS}
    strata = {k: v for k, v in strata.items() if v}
    quotas = {k: n * len(v) / len(scored) for k, v in strata.items()}
    take = {k: max(1, int(q)) for k, q in quotas.items()}
    while sum(take.values()) > n:  # the minimum of one overshot: trim the largest stratum
        biggest = max(take, key=lambda k: (take[k], k))
        take[biggest] -= 1
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - int(quotas[k])), k)):
        if sum(take.values()) >= n:
            break
        if take[k] < len(strata[k]):
            take[k] += 1
    rng = random.Random(seed)
    chosen = []
    for name, _, _ in BANDS:
        if name in strata:
            chosen += rng.sample(strata[name], min(take[name], len(strata[name])))
    return sorted(chosen)


def rater_text(item: dict) -> str:
    return item_text(item)


def human_scores(ratings: list[tuple[str, str, str, float]]) -> dict[str, float]:
    """(item id, rater, criterion, value) -> item id -> mean over raters of their five-criteria mean."""
    per: dict[tuple[str, str], dict[str, float]] = {}
    for item_id, rater, criterion, value in ratings:
        if criterion in CRITERIA and value is not None:
            per.setdefault((item_id, rater), {})[criterion] = float(value)
    by_item: dict[str, list[float]] = {}
    for (item_id, _), scores in per.items():
        if len(scores) == len(CRITERIA):
            by_item.setdefault(item_id, []).append(mean(scores[c] for c in CRITERIA))
    return {i: mean(v) for i, v in by_item.items()}


def agreement(human: dict[str, float], pipeline: dict[str, float], target: float) -> dict:
    from workbench.metrics.correlation import pearson_r, spearman_rho

    ids = sorted(i for i in human if pipeline.get(i) is not None)
    x, y = [human[i] for i in ids], [pipeline[i] for i in ids]
    r, rho = pearson_r(x, y), spearman_rho(x, y)
    return {"n": len(ids), "pairs": [{"item": i, "human": round(h, 4), "pipeline": p} for i, h, p in zip(ids, x, y)],
            "pearson": r.to_dict(), "spearman": rho.to_dict(), "target_r": target,
            "passed": None if r.value is None else r.value > target,
            "ci_above_target": None if r.ci_low is None else r.ci_low > target}


def study_ratings(db, study_id: str) -> list[tuple[str, str, str, float]]:
    """Current human scores of the study's blind items, keyed by the M11 item each blind item shows."""
    from workbench.metrics.ratings import load_ratings as load_study_data

    data = load_study_data(db, study_id)
    return [(data.items[s.item_id].case_id, s.evaluator, s.criterion, s.value) for s in data.scores
            if s.value is not None and s.item_id in data.items]


def human_validation(db, study_id: str, results: list[dict], options: dict, target: float = 0.85) -> dict:
    sample = select_sample(results, options.get("human_sample", 20), options.get("human_seed", 0))
    human = human_scores(study_ratings(db, study_id))
    pipeline = {r["id"]: r["overall"] for r in results}
    return {"sample": sample, "sample_size": options.get("human_sample", 20), "seed": options.get("human_seed", 0),
            "rated": sorted(human), **agreement(human, pipeline, target)}
