"""Multiple-comparison correction: Holm's step-down adjustment of a family of p-values.

Holm (1979): sort the m defined p-values ascending, p_(1) ≤ … ≤ p_(m); the adjusted p_(i) is
max_{j ≤ i} min(1, (m − j + 1)·p_(j)). It controls the family-wise error rate under any dependence, and is
uniformly more powerful than Bonferroni. A missing p (None or NaN: a comparison with nothing to test) is left
out of the family and stays None; m counts the defined ones. The adjusted values come back in input order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HOLM = "Holm"


def holm_adjusted(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the order given (None where the input p is None or NaN)."""
    defined = [(p, i) for i, p in enumerate(p_values) if p is not None and not math.isnan(p)]
    for p, _ in defined:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a p-value must lie in [0, 1], got {p}")
    m = len(defined)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(defined)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out
