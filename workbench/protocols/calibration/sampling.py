"""Arm B's stratified sample of accepted interactions, and the proxy's p for each.

Strata are (scenario, p bin), with `strata_bins` equal-width bins of
p = sigmoid(k · v_hat) over [0, 1]. The project's own allocation (the seed
says only "stratified across scenarios and p bins"): as equal a share per
stratum as the strata allow, so the tails are represented as well as the
middle — a stratum with fewer interactions than its share gives all it has and
the remainder is shared among the others. Within a stratum the pick is a
seeded shuffle of the ids in sorted order, so one study gives one sample.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict


def proxy_p(v_hat: float, k: float) -> float:
    x = max(-500.0, min(500.0, k * v_hat))
    return 1.0 / (1.0 + math.exp(-x))


def p_bin(p: float, n_bins: int) -> int:
    """Equal-width bin of [0, 1]; 1.0 falls in the last bin (as the shared reliability bins do)."""
    return min(int(p * n_bins), n_bins - 1)


def bin_label(b: int, n_bins: int) -> str:
    return edges_label(b / n_bins, (b + 1) / n_bins, last=b == n_bins - 1)


def edges_label(lower: float, upper: float, *, last: bool = False) -> str:
    """A bin's real edges to three decimals ("[0.667, 0.833)"; the last bin closed): tenths made sixths'
    edges read "[0.7, 0.8)" for a bin holding a mean p of 0.800 (issue 42)."""
    def edge(x: float) -> str:
        return f"{x:.3f}".rstrip("0").rstrip(".") or "0"
    return f"[{edge(lower)}, {edge(upper)}{']' if last else ')'}"


def allocate(sizes: dict, total: int) -> dict:
    """Shares per stratum summing to min(total, all): equal shares, water-filled past small strata."""
    left = min(total, sum(sizes.values()))
    out = {s: 0 for s in sizes}
    open_ = sorted(s for s in sizes if sizes[s] > 0)
    while left > 0 and open_:
        share, extra = divmod(left, len(open_))
        still = []
        for i, s in enumerate(open_):
            want = share + (1 if i < extra else 0)
            take = min(want, sizes[s] - out[s])
            out[s] += take
            left -= take
            if out[s] < sizes[s]:
                still.append(s)
        if len(still) == len(open_) and share == 0 and extra == 0:
            break
        open_ = still
    return out


def stratified_sample(interactions: list[tuple[str, str, float]], *, size: int, seed: int, k: float,
                      n_bins: int) -> list[str]:
    """Ids of the sample, sorted. `interactions`: (id, scenario, v_hat) of every accepted interaction."""
    strata: dict[tuple[str, int], list[str]] = defaultdict(list)
    for iid, scenario, v_hat in interactions:
        strata[(scenario, p_bin(proxy_p(v_hat, k), n_bins))].append(iid)
    shares = allocate({s: len(ids) for s, ids in strata.items()}, size)
    rng = random.Random(seed)
    chosen: list[str] = []
    for stratum in sorted(strata):
        ids = sorted(strata[stratum])
        rng.shuffle(ids)
        chosen += ids[:shares[stratum]]
    return sorted(chosen)
