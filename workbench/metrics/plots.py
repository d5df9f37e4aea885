"""The points a plot draws, as plain data: a protocol's analysis builds the series, a screen only draws them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A value with its CI (either end None when undefined); `group` colours or labels a family of them."""

    label: str
    value: float
    low: float | None
    high: float | None
    group: str = ""


@dataclass(frozen=True)
class ReliabilityPoint:
    """One bin of a reliability diagram: mean predicted probability, observed frequency, items in it."""

    predicted: float
    observed: float
    count: int
