"""A cost as every place prints it (the Runs screen, the batch display and summary, `study show`, the report).

A call without a known price adds nothing to the sum, so the sum is only a lower bound once such a call
exists, and no figure at all when no call had a price: then the cost reads "unknown", never "$0.0000".
"""

from __future__ import annotations


def cost_text(cost: float | None, unknown: bool | int, *, priced: int | None = None) -> str:
    """`cost`: the sum over calls with a known price. `unknown`: whether (or how many) calls had none.
    `priced`: how many calls had a price, when known; without it a zero sum with unknown calls is taken
    as "no call had a price"."""
    cost = cost or 0.0
    if not unknown:
        return f"${cost:.4f}"
    if priced == 0 or (priced is None and cost == 0):
        return "unknown"
    extra = f" (+ {unknown} calls of unknown price)" if not isinstance(unknown, bool) else ""
    return f"≥${cost:.4f}{extra}"
