"""The one result type every statistic returns, and the shared missing-data helpers.

An :class:`Estimate` is either *defined* (a finite ``value``, optionally a
confidence interval) or *undefined* (``value is None`` and an
``undefined_reason`` a reader can act on). NaN never leaves this package: a
degenerate input (one rater, no variance, everything missing, n too small)
becomes an undefined estimate instead of a number that looks valid.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, is_dataclass
from typing import Any

import numpy as np


def _finite_or_none(x: Any, name: str) -> float | None:
    if x is None:
        return None
    f = float(x)
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite or None, got {f!r}")
    return f


@dataclass(frozen=True)
class Estimate:
    """A point estimate with an optional confidence interval.

    Invariants (checked on construction, so a bad number fails loudly here
    rather than in a report):

    * undefined  <=>  ``value is None``  <=>  ``undefined_reason`` is set;
    * every number is finite (never NaN or inf);
    * ``ci_low``/``ci_high`` are both set or both None; when None on a defined
      estimate, ``ci_undefined_reason`` says why (or the statistic has no CI).
    """

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    method: str = ""
    undefined_reason: str | None = None
    ci_undefined_reason: str | None = None
    confidence: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _finite_or_none(self.value, "value"))
        object.__setattr__(self, "ci_low", _finite_or_none(self.ci_low, "ci_low"))
        object.__setattr__(self, "ci_high", _finite_or_none(self.ci_high, "ci_high"))
        object.__setattr__(self, "n", int(self.n))
        if (self.value is None) != (self.undefined_reason is not None):
            raise ValueError("an Estimate is undefined exactly when it has no value and a reason")
        if (self.ci_low is None) != (self.ci_high is None):
            raise ValueError("ci_low and ci_high must both be set or both be None")
        if self.value is None and self.ci_low is not None:
            raise ValueError("an undefined Estimate cannot carry a confidence interval")
        if self.ci_low is not None and self.ci_low > self.ci_high:
            raise ValueError(f"ci_low {self.ci_low} > ci_high {self.ci_high}")

    @classmethod
    def undefined(
        cls,
        reason: str,
        *,
        n: int = 0,
        method: str = "",
        details: Mapping[str, Any] | None = None,
    ) -> Estimate:
        """An estimate that cannot be computed from these data, and why."""
        return cls(value=None, n=n, method=method, undefined_reason=reason, details=details or {})

    @property
    def defined(self) -> bool:
        return self.value is not None

    @property
    def has_ci(self) -> bool:
        return self.ci_low is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (``json.dumps`` works on it as is)."""
        return {
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "n": self.n,
            "method": self.method,
            "undefined_reason": self.undefined_reason,
            "ci_undefined_reason": self.ci_undefined_reason,
            "details": to_jsonable(dict(self.details)),
        }

    def __str__(self) -> str:
        if self.value is None:
            return f"undefined ({self.undefined_reason})"
        text = f"{self.value:.3f}"
        if self.has_ci:
            text += f" [{self.ci_low:.3f}, {self.ci_high:.3f}]"
        return f"{text} (n={self.n})"


def undefined(reason: str, **kwargs: Any) -> Estimate:
    """Shorthand for :meth:`Estimate.undefined`."""
    return Estimate.undefined(reason, **kwargs)


def to_jsonable(obj: Any) -> Any:
    """Convert results (Estimates, result dataclasses, numpy scalars/arrays) to JSON types.

    Non-finite floats raise: they would mean a statistic leaked NaN, which
    this package promises never to do.
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        if not math.isfinite(f):
            raise ValueError(f"non-finite number {f!r} in a result")
        return f
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if is_dataclass(obj):
        return {k: to_jsonable(v) for k, v in vars(obj).items()}
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, Iterable):
        return [to_jsonable(v) for v in obj]
    raise TypeError(f"cannot serialise {type(obj).__name__}")


# ---- missing data -------------------------------------------------------------------

def is_missing(v: Any) -> bool:
    """None and float NaN both mean "no observation"."""
    if v is None:
        return True
    try:
        return isinstance(v, (float, np.floating)) and math.isnan(v)
    except TypeError:
        return False


def clean_numeric(values: Iterable[Any]) -> tuple[np.ndarray, int]:
    """Drop missing values; return (float array, number dropped). Infinities are errors."""
    kept: list[float] = []
    dropped = 0
    for v in values:
        if is_missing(v):
            dropped += 1
            continue
        f = float(v)
        if math.isinf(f):
            raise ValueError("infinite value in input")
        kept.append(f)
    return np.asarray(kept, dtype=float), dropped


def clean_pairs(x: Sequence[Any], y: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, int]:
    """Pairwise deletion: keep positions where both x and y are present."""
    if len(x) != len(y):
        raise ValueError(f"paired inputs differ in length: {len(x)} vs {len(y)}")
    xs: list[float] = []
    ys: list[float] = []
    dropped = 0
    for a, b in zip(x, y):
        if is_missing(a) or is_missing(b):
            dropped += 1
            continue
        fa, fb = float(a), float(b)
        if math.isinf(fa) or math.isinf(fb):
            raise ValueError("infinite value in input")
        xs.append(fa)
        ys.append(fb)
    return np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), dropped


def z_critical(confidence: float) -> float:
    """Two-sided standard-normal critical value, without importing scipy."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2.0)
