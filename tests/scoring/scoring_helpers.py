"""Test helpers: score a rater's calibration pilots (in the store or in a packet), the expected way or the
wrong way round."""

from __future__ import annotations

from store import blind as blind_rows
from workbench import scoring


def score_pilots(db, sid: str, rater: str, *, right_way: bool = True) -> None:
    expectations = blind_rows.read_pilot_expectations(db, sid)  # the test may peek at the sealed key
    assert expectations, "blind the study first (scoring.open_rater)"
    for item, expectation in expectations.items():
        high = (expectation["direction"] == "high") == right_way
        scoring.record_score(db, sid, rater, item, "anticipation", "anticipation", 3 if high else 0)
        scoring.record_score(db, sid, rater, item, "epistemic-humility", "calibration", 3 if high else 1)


def fill_packet_pilots(packet: dict, expectations: dict, *, right_way: bool = True) -> None:
    """Answer a packet's pilot items at the ends of each criterion's range: the expected end, or the other."""
    ranges = {r: {c["id"]: (c["min"], c["max"]) for c in rubric["criteria"]}
              for r, rubric in packet["sealed"]["rubrics"].items()}
    for item, answer in packet["answers"].items():
        high = (expectations[item]["direction"] == "high") == right_way
        for rubric, by_crit in answer["scores"].items():
            for crit in by_crit:
                by_crit[crit] = ranges[rubric][crit][1 if high else 0]


def score_item(db, sid: str, rater: str, item: str, a: int = 2, c: int = 2) -> None:
    scoring.record_score(db, sid, rater, item, "anticipation", "anticipation", a)
    scoring.record_score(db, sid, rater, item, "epistemic-humility", "calibration", c)
