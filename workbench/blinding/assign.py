"""Raters' queues: who scores which items, in what order, on which side.

Each rater gets their own seeded random order. Items of one case are paired
so the side-by-side screen can show two responses under one scenario and
outcome; within a pair a coin flip decides which response is on the left
(stored in `assignments.side`; the left one always comes first). Pairs are then
shuffled across cases. The two calibration pilots are always every rater's
first pair.

Overlap (`[blinding] overlap`, default 1.0): that fraction of the non-pilot
items, drawn with the study's blinding seed, goes to every rater (the items
agreement is computed on); the rest are dealt out round-robin, one rater
each. With one rater, or overlap 1.0, every rater gets every item.

Items added later (a resumed run finished after scoring began) are appended
to each queue the same way.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

LEFT, RIGHT = "left", "right"


@dataclass(frozen=True)
class ItemRef:
    id: str
    case_id: str
    pilot: bool = False
    # What orders an item before the seeded shuffle: its content (`content_key`), the same in every store, so
    # a study's seed gives every store one order (issue 42); the opaque id is random, and ordering by it made
    # two fresh stores deal one study's items differently. Empty: the id (callers without the text).
    key: str = ""

    @property
    def stable(self) -> str:
        return self.key or self.id


def content_key(case_id: str, text: str) -> str:
    """An item's store-independent key: a digest of its case and scrubbed text (it names no condition)."""
    return hashlib.sha256(f"{case_id}\0{text}".encode("utf-8")).hexdigest()


def rater_seed(blinding_seed: int, rater: str) -> int:
    digest = hashlib.sha256(f"{blinding_seed}:{rater}".encode("utf-8")).hexdigest()
    return int(digest[:12], 16)


def _rng(seed: int, items: list[ItemRef], salt: str) -> random.Random:
    # Seeded by the rater's seed and the batch's item keys: the same batch always orders the same way.
    return random.Random(f"{seed}:{salt}:{','.join(sorted(i.stable for i in items))}")


def share_out(items: list[ItemRef], raters: list[str], overlap: float, blinding_seed: int
              ) -> dict[str, list[ItemRef]]:
    """Which non-pilot items each rater gets."""
    if not raters:
        return {}
    if len(raters) == 1 or overlap >= 1.0:
        return {r: list(items) for r in raters}
    pool = sorted(items, key=lambda i: (i.stable, i.id))
    rng = _rng(blinding_seed, pool, "overlap")
    rng.shuffle(pool)
    n_shared = round(overlap * len(pool))
    shared, rest = pool[:n_shared], pool[n_shared:]
    out = {r: list(shared) for r in raters}
    order = sorted(raters)
    start = rng.randrange(len(order))
    for k, item in enumerate(rest):
        out[order[(start + k) % len(order)]].append(item)
    return out


def order_queue(items: list[ItemRef], seed: int, *, start: int = 0) -> list[dict]:
    """Assignment rows (item_id, position, side, pilot) for one rater's new items.

    Pilots come first as their own pair; other items are paired within a case.
    """
    rng = _rng(seed, items, "order")
    pilots = sorted((i for i in items if i.pilot), key=lambda i: (i.stable, i.id))
    rest = [i for i in items if not i.pilot]
    by_case: dict[str, list[ItemRef]] = {}
    for item in sorted(rest, key=lambda i: (i.case_id, i.stable, i.id)):
        by_case.setdefault(item.case_id, []).append(item)
    groups: list[list[ItemRef]] = []
    for case_id in sorted(by_case):
        case_items = by_case[case_id]
        rng.shuffle(case_items)
        groups += [case_items[k:k + 2] for k in range(0, len(case_items), 2)]
    rng.shuffle(groups)
    if pilots:
        rng.shuffle(pilots)
        # More than one pair of pilots (a study's pilot cases, issue 13): pairs within a case, all first.
        pairs = [pilots] if len(pilots) <= 2 else [
            grp[k:k + 2] for grp in ([p for p in pilots if p.case_id == c]
                                     for c in dict.fromkeys(p.case_id for p in pilots)) for k in range(0, len(grp), 2)]
        groups[0:0] = pairs
    rows = []
    position = start
    for group in groups:
        if len(group) == 2 and rng.random() < 0.5:
            group = [group[1], group[0]]
        sides = [LEFT, RIGHT] if len(group) == 2 else [LEFT]
        for item, side in zip(group, sides):
            rows.append({"item_id": item.id, "position": position, "side": side, "pilot": int(item.pilot)})
            position += 1
    return rows


def partner_positions(queue: list[dict]) -> dict[int, int]:
    """position -> its pair partner's position (a left item followed by a right one is a pair)."""
    by_pos = {q["position"]: q for q in queue}
    out = {}
    for q in queue:
        nxt = by_pos.get(q["position"] + 1)
        if q["side"] == LEFT and nxt is not None and nxt["side"] == RIGHT:
            out[q["position"]] = nxt["position"]
            out[nxt["position"]] = q["position"]
    return out
