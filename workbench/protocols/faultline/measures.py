"""Seed 002's six metrics on one debate (or one repeated debate, for CR), from vectors and stances.

Pure functions over unit-normalised embedding rows (numpy arrays) and stance
dicts, so each is checked against hand-computed fixtures. Every one returns an
`Estimate`; a case it cannot measure is `undefined` with the reason.
Choices the seed leaves open are marked "project's choice" and listed in the README.
"""

from __future__ import annotations

from collections import Counter
from statistics import pstdev

from workbench.metrics.estimate import Estimate, undefined

GROUNDING = 0.7       # BA: nearest belief node at or above this cosine → grounded (seed)
CR_MIN_RUNS = 3       # CR: a cluster is stable when it spans this many runs (seed)
THRESHOLDS = {"BA": ("> 0.6", lambda v: v > 0.6), "dSD": (">= 0", lambda v: v >= 0),
              "CG": ("> 0.55", lambda v: v > 0.55), "CR": ("> 0.4", lambda v: v > 0.4)}


def meets(metric: str, value: float | None) -> bool | None:
    if value is None or metric not in THRESHOLDS:
        return None
    return bool(THRESHOLDS[metric][1](value))


def _unit(v):
    import numpy as np

    v = np.atleast_2d(np.asarray(v, dtype=float))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# --- 1. belief adherence ---------------------------------------------------------------------------
def belief_adherence(claims, nodes, threshold: float = GROUNDING) -> Estimate:
    """BA = grounded claims / claims; a claim is grounded when its nearest node has cosine ≥ threshold."""
    if nodes is None or len(nodes) == 0:
        return undefined("no belief-graph nodes to measure against", method="BA")
    if claims is None or len(claims) == 0:
        return undefined("no extracted claims", method="BA")
    best = (_unit(claims) @ _unit(nodes).T).max(axis=1)
    grounded = int((best >= threshold - 1e-12).sum())
    return Estimate(grounded / len(best), n=len(best), method=f"BA: nearest node cosine >= {threshold}",
                    details={"grounded": grounded, "claims": len(best)})


# --- 2. stance diversity ---------------------------------------------------------------------------
def delta_sd(opening: dict, closing: dict, claim_ids: list[str]) -> Estimate:
    """ΔSD = SD(closing stances) − SD(opening stances) across personas, per contested claim, then the mean
    over claims. SD is the population SD (project's choice); a claim counts when ≥ 2 personas have a
    stance on it at both opening and closing (the same personas at both)."""
    per_claim, skipped = {}, 0
    personas = [p for p in opening if opening.get(p) is not None and closing.get(p) is not None]
    for cid in claim_ids:
        both = [p for p in personas if opening[p].get(cid) is not None and closing[p].get(cid) is not None]
        if len(both) < 2:
            skipped += 1
            continue
        per_claim[cid] = pstdev([closing[p][cid] for p in both]) - pstdev([opening[p][cid] for p in both])
    if not per_claim:
        why = ("fewer than two personas have opening and closing stances" if len(personas) < 2 else
               "no contested claim has stances from two personas at both opening and closing")
        return undefined(why, method="dSD", details={"claims_skipped": skipped})
    return Estimate(sum(per_claim.values()) / len(per_claim), n=len(per_claim), method="dSD: mean over claims",
                    details={"per_claim": per_claim, "claims_skipped": skipped})


# --- 3. semantic spread ----------------------------------------------------------------------------
def spread(vectors, personas: list[str]) -> Estimate:
    """spread(round) = mean(1 − cos) over pairs of messages from different personas in that round."""
    v = _unit(vectors) if len(vectors) else []
    dists = [1.0 - float(v[i] @ v[j]) for i in range(len(personas)) for j in range(i + 1, len(personas))
             if personas[i] != personas[j]]
    if not dists:
        return undefined("fewer than two personas spoke in this round", method="spread")
    return Estimate(sum(dists) / len(dists), n=len(dists), method="spread: mean cross-persona cosine distance")


def spread_trend(per_round: list[Estimate]) -> Estimate:
    """Last measured round's spread minus the first's (negative: the personas homogenised)."""
    defined = [e for e in per_round if e.defined]
    if len(defined) < 2:
        return undefined("fewer than two rounds with a measurable spread: no trend", method="spread trend")
    return Estimate(defined[-1].value - defined[0].value, n=len(defined), method="spread: last round − first")


# --- 4. crux grounding ------------------------------------------------------------------------------
def crux_grounding(cards, sources: list) -> Estimate:
    """CG = mean over cards of cos(card, source); the card is its question + diagnosis, the source is the
    centroid of the cited messages' unit vectors (project's choice). Cards citing no known message are left
    out and counted."""
    import numpy as np

    sims, unsourced = [], 0
    for card, src in zip(cards, sources):
        if src is None or len(src) == 0:
            unsourced += 1
            continue
        centroid = _unit(_unit(src).mean(axis=0))[0]
        sims.append(float(_unit(card)[0] @ centroid))
    if not sims:
        return undefined("no crux card cites a message of the debate" if unsourced else "no crux cards",
                         method="CG", details={"cards_without_sources": unsourced})
    return Estimate(float(np.mean(sims)), n=len(sims), method="CG: mean card-source cosine",
                    details={"per_card": sims, "cards_without_sources": unsourced})


# --- 5. crux recurrence -----------------------------------------------------------------------------
def crux_recurrence(questions, runs: list[str], *, min_cluster_size: int = 2, min_runs: int = CR_MIN_RUNS
                    ) -> Estimate:
    """CR = clusters spanning ≥ min_runs runs / clusters, clustering the crux questions of the repeats of
    one debate with scikit-learn's HDBSCAN (euclidean on unit vectors, library defaults otherwise; noise
    points form no cluster). HDBSCAN by default never returns one cluster holding everything: a set whose
    questions all agree is then reported as noise, and CR is undefined with that reason."""
    n_runs = len(set(runs))
    if n_runs < min_runs:
        return undefined(f"{n_runs} run(s) of this debate have crux cards; a stable cluster spans {min_runs}",
                         method="CR", details={"runs": n_runs})
    if len(runs) < min_cluster_size:
        return undefined("too few crux questions to cluster", method="CR")
    from sklearn.cluster import HDBSCAN

    labels = HDBSCAN(min_cluster_size=min_cluster_size, copy=True).fit_predict(_unit(questions))
    clusters: dict[int, set[str]] = {}
    for label, run in zip(labels, runs):
        if label >= 0:
            clusters.setdefault(int(label), set()).add(run)
    if not clusters:
        return undefined("HDBSCAN found no cluster: every crux question is noise (as it is, by HDBSCAN's design, "
                         "when all the questions form one single group)", method="CR",
                         details={"questions": len(runs), "runs": n_runs})
    stable = sum(1 for members in clusters.values() if len(members) >= min_runs)
    return Estimate(stable / len(clusters), n=len(clusters), method="CR: HDBSCAN clusters spanning >= 3 runs",
                    details={"stable": stable, "clusters": len(clusters), "questions": len(runs), "runs": n_runs,
                             "noise": int((labels < 0).sum())})


# --- 6. accuracy ------------------------------------------------------------------------------------
def sign(v: int | None) -> int | None:
    return None if v is None else (v > 0) - (v < 0)


def majority(values: list[int | None]) -> int | None:
    """The most common stance sign (+1, 0, −1) among those given; None on a tie or when none was given."""
    counts = Counter(s for s in (sign(v) for v in values) if s is not None).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def accuracy(verdicts: dict[str, int | None], truths: dict[str, bool], extracted: set[str]) -> Estimate:
    """ACC = claims whose majority stance matches the truth / verifiable claims. A tie or a neutral
    majority is not correct; a claim with no extracted stance at all is left out and counted."""
    if not truths:
        return undefined("the topic has no verifiable claims", method="ACC")
    counted = [c for c in truths if c in extracted]
    if not counted:
        return undefined("no stance on a verifiable claim could be extracted", method="ACC",
                         details={"unextracted": len(truths)})
    correct = sum(1 for c in counted if verdicts.get(c) == (1 if truths[c] else -1))
    return Estimate(correct / len(counted), n=len(counted), method="ACC: majority stance vs ground truth",
                    details={"correct": correct, "unextracted": len(truths) - len(counted)})
