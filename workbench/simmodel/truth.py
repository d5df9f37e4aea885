"""The planted truth of a simulated response, as judges and raters perceive it.

A simulated final report names some of the case's outcome points as risks
(`- Foreseen (outcome point 2): ...`) and hedges with some of the caveat
sentences below. The true score of a criterion is the share of outcome points
foreseen (anticipation and every other criterion) or of caveats given
(criteria about humility or confidence), mapped onto the criterion's range.
Judges and raters see this truth plus their own planted bias and noise.
"""

from __future__ import annotations

import re

CAVEATS = (
    "This assessment could be wrong if the main assumption behind it fails.",
    "Evidence that costs are rising faster than planned would change this view.",
    "The outcome depends on decisions by others that cannot be known yet.",
)
MAX_POINTS = 6
_POINT = re.compile(r"outcome point (\d+)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def outcome_points(outcome: str) -> list[str]:
    """The outcome record's sentences of five words or more, at most six: what could be foreseen."""
    text = " ".join((outcome or "").split())
    sentences = [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 5]
    return sentences[:MAX_POINTS]


def risk_line(index: int, sentence: str) -> str:
    words = re.sub(r"[^\w\s'-]", "", sentence).split()[:14]
    return f"Foreseen (outcome point {index + 1}): the risk that {' '.join(words).lower()}."


# A text the simulator did not write (a calibration pilot, an imported response) is read by its words:
# hedges for humility, and the outcome's own words for anticipation.
HEDGES = ("uncertain", "would change", "assum", "may not", "keeps options open")
# ...and the words of a risk analysed rather than waved away
RISK_CUES = ("risk here", "materialis", "materializ", "early signal", "fallback", "if this risk")
_WORD = re.compile(r"[a-z]{5,}")


def foreseen_share(response: str, outcome: str) -> float:
    points = outcome_points(outcome)
    if not points:
        return 0.0
    hits = {int(m.group(1)) for m in _POINT.finditer(response or "") if 1 <= int(m.group(1)) <= len(points)}
    if hits:
        return len(hits) / len(points)
    lower = (response or "").lower()
    said = set(_WORD.findall(lower))
    shares = [len(w & said) / len(w) for w in (set(_WORD.findall(p.lower())) for p in points) if w]
    lexical = min(1.0, 2 * sum(shares) / len(shares)) if shares else 0.0
    return max(lexical, min(1.0, sum(c in lower for c in RISK_CUES) / 3))


def caveat_share(response: str) -> float:
    flat = " ".join((response or "").split())
    given = sum(c in flat for c in CAVEATS)
    if given:
        return given / len(CAVEATS)
    lower = flat.lower()
    return min(1.0, sum(h in lower for h in HEDGES) / 3)


def is_humility(rubric: str, criterion: str, name: str = "") -> bool:
    text = f"{rubric} {criterion} {name}".lower()
    return "humility" in text or "confidence" in text or "uncertain" in text


def true_score(response: str, outcome: str, rubric: str, criterion: str, lo: int, hi: int, name: str = "") -> float:
    share = caveat_share(response) if is_humility(rubric, criterion, name) else foreseen_share(response, outcome)
    return lo + (hi - lo) * share


def perceived(true: float, lo: int, hi: int, icc: float, bias: float, z: float) -> int:
    """What an evaluator with reliability `icc` and `bias` scores, given a standard normal draw `z`.
    The true score's spread is taken as a quarter of the range (the project's choice), so the noise
    SD is that times sqrt((1 - icc) / icc)."""
    sd_true = (hi - lo) / 4
    noise = sd_true * ((1 - icc) / icc) ** 0.5 * z
    return int(min(hi, max(lo, round(true + bias + noise))))
