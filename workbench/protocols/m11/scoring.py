"""The M11 numbers every view shares: the five criteria, the overall score, the bands, confidence.

Seed 003 §5-§7: five criteria scored 0-5, overall = their MEAN (Example A:
5,4,5,4,4 -> 4.4; Example B: 1,2,3,3,1 -> 2.0), read in four bands.

An overall score is shown to a tenth, as the seed writes its scores and its
ranges (4.4, 2.0; 3.5-4.4), and its band is decided on that shown value, never
on more digits: a sample averaging 3.467 over its runs is shown "3.5" and is
PASS, as the seed's table reads "3.5" (README, "Project choices").
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from statistics import mean

CRITERIA = ("accuracy", "relevance", "completeness", "clarity", "reasoning")

# (band, lower bound, expected share from seed 003 §7 as (low %, high %)). The seed's ranges leave
# gaps (4.4 to 4.5, ...); the project closes them downward: a band starts at its lower bound and
# runs up to the next band's (see README, "Project choices").
BANDS = (
    ("Strong PASS", 4.5, (40, 50)),
    ("PASS", 3.5, (25, 35)),
    ("Borderline", 2.5, (10, 15)),
    ("FAIL", 0.0, (5, 15)),
)
BAND_NAMES = tuple(b[0] for b in BANDS)


def likert_range(name: str) -> str:
    """A band's Likert range as seed 003 §7 writes it, e.g. "3.5–4.4": from its lower bound to a tenth
    below the next band's (scores are read to a tenth there); the top band runs to 5.0."""
    names = [b[0] for b in BANDS]
    i = names.index(name)
    upper = 5.0 if i == 0 else BANDS[i - 1][1] - 0.1
    return f"{BANDS[i][1]:.1f}–{upper:.1f}"
PASSING = ("Strong PASS", "PASS")

# Confidence from the spread (max - min) of the overall score across a sample's pipeline runs.
# One criterion point moves the overall by 0.2; HIGH allows two such points of disagreement.
HIGH_SPREAD = 0.4
MEDIUM_SPREAD = 1.0
CONFIDENCE_LEVELS = ("HIGH", "MEDIUM", "LOW")


def shown(value: float) -> float:
    """An overall score as every view shows it and its band is read: to a tenth, halves up."""
    return float(Decimal(repr(float(value))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def score_text(value: float | None) -> str:
    """The shown overall score as text ("-" when there is none)."""
    return "-" if value is None else f"{shown(value):.1f}"


def overall(scores: dict[str, int | float]) -> float:
    """The mean of the five criteria, as shown (a multiple of 0.2 for whole-number scores: exact)."""
    missing = [c for c in CRITERIA if c not in scores]
    if missing:
        raise ValueError(f"scores lack {', '.join(missing)}")
    return shown(mean(float(scores[c]) for c in CRITERIA))


def band(value: float) -> str:
    """The band of the value as shown (to a tenth), so a shown "3.5" is never called Borderline."""
    value = shown(value)
    for name, lower, _ in BANDS:
        if value >= lower - 1e-9:
            return name
    return BANDS[-1][0]


def passes(value: float) -> bool:
    return band(value) in PASSING


def confidence(overalls: list[float]) -> str | None:
    """HIGH / MEDIUM / LOW from the runs' spread; None for a single run (no spread to read)."""
    if len(overalls) < 2:
        return None
    spread = max(overalls) - min(overalls)
    same_band = len({band(v) for v in overalls}) == 1
    if spread <= HIGH_SPREAD + 1e-9 and same_band:
        return "HIGH"
    if spread <= MEDIUM_SPREAD + 1e-9:
        return "MEDIUM"
    return "LOW"
