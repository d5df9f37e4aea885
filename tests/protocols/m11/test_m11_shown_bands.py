"""A band is decided on the overall score as it is shown (issue 31, item 8): a sample averaging 3.467 over
its runs is shown "3.5" and is PASS, never "3.5" beside Borderline."""

from __future__ import annotations

import itertools

from screens.m11.render import sample_label
from tests.protocols.m11.test_m11_tables import _item, _run
from workbench.protocols.m11.metrics import public
from workbench.protocols.m11.report import samples_section
from workbench.protocols.m11.results import aggregate
from workbench.protocols.m11.scoring import score_text

# Seed 003 §7's table as it is printed: each band's Likert range, read on a score written to a tenth
SEED_RANGES = [("Strong PASS", 4.5, 5.0), ("PASS", 3.5, 4.4), ("Borderline", 2.5, 3.4), ("FAIL", 0.0, 2.4)]


def seed_band(text: str) -> str:
    value = float(text)
    [name] = [n for n, lo, hi in SEED_RANGES if lo <= value <= hi]
    return name


def _sample(criteria_per_run: list[list[int]]) -> dict:
    runs = [_run(i, c) for i, c in enumerate(criteria_per_run)]
    result = aggregate(_item("s"), runs, None)
    result["run_reports"], result["binary_report"] = runs, None
    return result


def test_3467_is_shown_as_35_and_is_pass():
    r = _sample([[4, 3, 4, 3, 3], [4, 3, 4, 3, 3], [4, 4, 4, 3, 3]])   # 3.4, 3.4, 3.6: mean 3.467
    assert r["run_overalls"] == [3.4, 3.4, 3.6]
    assert r["overall"] == 3.5 and r["band"] == "PASS"
    assert sample_label(public(r)).plain.endswith("3.5")
    assert "| s | 3.5 | PASS |" in samples_section({"samples": [public(r)]})


def test_every_shown_score_is_in_the_seeds_range_of_its_band():
    """All three-run samples over a grid of criterion profiles: the text shown and the band agree, by the seed's
    printed ranges (an independent reading of the shown text)."""
    profiles = [[a, b, c, 3, 3] for a in range(6) for b in range(6) for c in (2, 4)]
    checked = 0
    for runs in itertools.combinations(profiles[::7], 3):
        r = _sample([list(p) for p in runs])
        text = score_text(r["overall"])
        assert seed_band(text) == r["band"], (runs, text, r["band"])
        checked += 1
    assert checked > 100
