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
SAME_CRUX = 0.7       # CR: questions at or above this cosine can be one crux (project's choice: the seed's BA 0.7)
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
def crux_clusters(questions, *, min_cluster_size: int = 2, same: float = SAME_CRUX):
    """scikit-learn HDBSCAN labels (−1: noise) for unit question vectors, with an absolute line for "the same
    crux" (project's choice; README): two questions at or above cosine `same` are near, at one distance
    below HDBSCAN's `cluster_selection_epsilon`, and any other pair is at the largest cosine distance, 2.
    Below its epsilon HDBSCAN selects clusters as DBSCAN* does, so a cluster is a set of at least
    `min_cluster_size` questions linked by near pairs, and a question without min_cluster_size − 1 near
    neighbours is noise; questions that are not the same crux never share a cluster, however their runs
    fall. `allow_single_cluster` lets one crux asked in every repeat be one cluster (HDBSCAN's default never
    returns a single cluster). Near pairs share one distance because sklearn 1.9's epsilon search fails when
    it climbs from a cluster born below epsilon (and would merge it upwards anyway). Far-apart questions
    all at distance 2 can still come out as a cluster (ties in the linkage tree), so each cluster is split
    into its parts linked by near pairs, and a part smaller than `min_cluster_size` is noise."""
    import numpy as np
    from scipy.sparse.csgraph import connected_components
    from sklearn.cluster import HDBSCAN

    v = _unit(questions)
    near = (v @ v.T) >= same - 1e-12
    epsilon = 1.0 - same
    distance = np.where(near, epsilon / 2, 2.0)
    np.fill_diagonal(distance, 0.0)
    labels = HDBSCAN(min_cluster_size=min_cluster_size, metric="precomputed", allow_single_cluster=True,
                     cluster_selection_epsilon=epsilon, copy=True).fit_predict(distance)
    out, next_label = np.full(len(labels), -1), 0
    for label in sorted(set(labels.tolist()) - {-1}):
        members = np.flatnonzero(labels == label)
        _, parts = connected_components(near[np.ix_(members, members)], directed=False)
        for part in set(parts.tolist()):
            idx = members[parts == part]
            if len(idx) >= min_cluster_size:
                out[idx] = next_label
                next_label += 1
    return out


def crux_recurrence(questions, runs: list[str], *, min_cluster_size: int = 2, min_runs: int = CR_MIN_RUNS,
                    same: float = SAME_CRUX, labels=None, method: str = "") -> Estimate:
    """CR = stable clusters / clusters over the crux questions of the repeats of one debate. Clusters are
    `labels` when given (equivalence.py's methods, named by `method`), else `crux_clusters` (a study stored
    before crux equivalence existed); a noise point is a crux no other question restates, a cluster of its
    own that spans one run (project's choice: so a set where nothing recurs reads 0, not undefined). A
    cluster is stable when it spans ≥ `min_runs` runs (seed: 3+). Every question recurring in ≥ 3 runs → 1;
    none → 0. A min_cluster_size above `min_runs` is refused: a crux asked in exactly `min_runs` runs would
    be noise, and CR would read it as not recurring."""
    if min_cluster_size > min_runs:
        raise ValueError(f"HDBSCAN min_cluster_size {min_cluster_size} is above {min_runs}: a crux asked in "
                         f"exactly {min_runs} runs (stable, by the seed) would be noise")
    n_runs = len(set(runs))
    if n_runs < min_runs:
        return undefined(f"{n_runs} run(s) of this debate have crux cards; a stable cluster spans {min_runs}",
                         method="CR", details={"runs": n_runs})
    if len(runs) < min_cluster_size:
        return undefined(f"{len(runs)} crux question(s), fewer than HDBSCAN's min_cluster_size {min_cluster_size}",
                         method="CR", details={"runs": n_runs, "questions": len(runs)})
    if labels is None:
        labels = crux_clusters(questions, min_cluster_size=min_cluster_size, same=same)
        method = (f"HDBSCAN clusters (min_cluster_size {min_cluster_size}, same crux at cosine >= {same})")
    import numpy as np

    labels = np.asarray(labels)
    clusters: dict[int, set[str]] = {}
    for label, run in zip(labels, runs):
        if label >= 0:
            clusters.setdefault(int(label), set()).add(run)
    noise = int((labels < 0).sum())
    stable = sum(1 for members in clusters.values() if len(members) >= min_runs)
    total = len(clusters) + noise
    return Estimate(stable / total, n=total,
                    method=f"CR: {method} spanning >= {min_runs} runs; noise points count as one-run clusters",
                    details={"stable": stable, "clusters": len(clusters), "noise": noise, "questions": len(runs),
                             "runs": n_runs})


# --- 6. accuracy ------------------------------------------------------------------------------------
COIN, HALF, STRICT = "coin", "half", "strict"
TIE_RULES = (COIN, HALF, STRICT)   # study key `acc_tie`; COIN is the default (README: accuracy on equal terms)
EQUAL_VOTES, FIVE_VOTES = "equal-votes", "five-votes"
HEADLINES = (EQUAL_VOTES, FIVE_VOTES)   # study key `acc_headline`; EQUAL_VOTES is the default


def tie_rule(section: dict) -> str:
    """A study's ACC rule for a split vote. One stored before `acc_tie` existed was measured strictly and
    keeps that rule (its definition, and so its hash, has no such key)."""
    return section.get("acc_tie", STRICT)


def headline_rule(section: dict) -> str:
    """Which self-consistency the study's headline compares the debates with. One stored before
    `acc_headline` existed has the seed's five-vote majority as its verdict and keeps it."""
    return section.get("acc_headline", FIVE_VOTES)


def sign(v: int | None) -> int | None:
    return None if v is None else (v > 0) - (v < 0)


def majority(values: list[int | None]) -> int | None:
    """The most common stance sign (+1, 0, −1) among those given; None on a tie or when none was given."""
    counts = Counter(s for s in (sign(v) for v in values) if s is not None).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def coin(key: str, k: int) -> int:
    """A fair, reproducible draw from 0…k−1 for the tie named `key` (the run and the claim): the same
    stored run always settles the same way, and different runs or claims settle independently."""
    import hashlib

    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % k


def vote_credit(values: list[int | None], truth: bool, tie: str = COIN, key: str = "") -> float:
    """What a vote (a pair's closing stances, or the self-consistency samples) earns on one verifiable claim:
    1 when the most common stance sign is the true one, 0 when it is another sign or nobody took a stance.
    A tie between the top signs is settled under `coin` by a fair coin among the k tied signs (`coin(key,
    k)`; `key` names the run and the claim): a two-voter vote is then right with chance p² + p(1 − p) = p
    and earns 0 or 1, exactly as one answer does, so with equal per-agent accuracy a debate, a single answer
    and a two-sample vote have the same distribution (what Mann-Whitney compares). Under `half` a tie earns
    1/k when the true sign is among them (the coin's expectation: the same mean, a narrower spread); under
    `strict` it earns 0 (a tie is no majority)."""
    counts = Counter(s for s in (sign(v) for v in values) if s is not None)
    if not counts:
        return 0.0
    top = max(counts.values())
    tied = sorted(s for s, n in counts.items() if n == top)
    right = 1 if truth else -1
    if right not in tied:
        return 0.0
    if len(tied) == 1:
        return 1.0
    if tie == COIN:
        return 1.0 if tied[coin(key, len(tied))] == right else 0.0
    return 1.0 / len(tied) if tie == HALF else 0.0


def accuracy(credits: dict[str, float | None], truths: dict[str, bool]) -> Estimate:
    """ACC = the credit earned on the verifiable claims / verifiable claims (`vote_credit` per claim). A claim
    whose voters' stance extractions all failed has None: it is left out and counted (a failure is never
    scored); a claim the voters took no stance on earns 0 and stays in the denominator (project's choice)."""
    if not truths:
        return undefined("the topic has no verifiable claims", method="ACC")
    counted = {c: credits[c] for c in truths if credits.get(c) is not None}
    if not counted:
        return undefined("no stance on a verifiable claim could be extracted", method="ACC",
                         details={"unextracted": len(truths)})
    correct = sum(counted.values())
    return Estimate(correct / len(counted), n=len(counted), method="ACC: majority stance vs ground truth",
                    details={"correct": correct, "unextracted": len(truths) - len(counted)})
