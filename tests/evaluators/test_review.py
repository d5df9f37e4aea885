"""A blind review of judge verdicts: a correction keeps the original; the tables read corrected verdicts only
when the study pre-registered it; the report shows the judge's agreement with the review."""

from __future__ import annotations

import json

import pytest

from store import verdicts as verdict_rows
from store.quality import reviews
from tests.evaluators.helpers import quality_study
from workbench.blinding.context import load_study
from workbench.blinding.items import prepare_study
from workbench.evaluators.report import quality_text
from workbench.evaluators.review import ReviewError, agreement, mark, sample
from workbench.evaluators.study import study_quality
from workbench.metrics.ratings import load_ratings

JUDGE = {"name": "judge-a", "model": "openai/j", "api_base": "", "temperature": 0.0, "pipeline": "direct", "runs": 1}


def judged(db, verdicts: str = "original") -> str:
    """A study whose judge gave 2 on every criterion of every item, with a quote and reasoning."""
    sid = quality_study(db, judges=[JUDGE], quality={"verdicts": verdicts, "attention_rate": 0.0})
    prepare_study(db, sid)
    study = load_study(db, sid)
    rows = []
    from store.blind import blind_items

    for item in blind_items(db, sid):
        for rubric in study.rubrics_for_case(item["case_id"]):
            for c in rubric.criteria:
                rows.append({"study_id": sid, "judge": "judge-a", "model": "openai/j", "item_id": item["id"],
                             "rubric_hash": rubric.hash, "criterion": c.id, "value": 2, "status": "ok",
                             "justification": "It names the contraction.", "detail": {"quote": "Contraction of"}})
    verdict_rows.append_verdicts(db, rows)
    return sid


def test_the_sample_shows_what_the_judge_saw_and_never_the_condition(db):
    sid = judged(db)
    units = sample(db, load_study(db, sid), "judge-a", 5)
    assert len(units) == 5
    assert units == sample(db, load_study(db, sid), "judge-a", 5)  # one seeded order for every reviewer
    u = units[0]
    assert u.quote == "Contraction of" and u.reasoning == "It names the contraction." and u.value == 2
    assert u.response and u.scenario and u.anchors and u.question
    text = json.dumps([x.to_dict() for x in units])
    for word in ("run-", '"condition"', "B1", "C2", "gold", "planted"):
        assert word not in text
    with pytest.raises(ReviewError, match="not a judge"):
        sample(db, load_study(db, sid), "nobody")


def test_a_correction_keeps_the_original_and_the_tables_read_the_originals_by_default(db):
    sid = judged(db)
    study = load_study(db, sid)
    units = sample(db, study, "judge-a", 3)
    before = verdict_rows.verdict_rows(db, sid, "judge-a")
    with pytest.raises(ReviewError, match="reason"):
        mark(db, study, units[0].verdict_id, right=False, corrected=0, reason="", by="ana")
    with pytest.raises(ReviewError, match="whole score"):
        mark(db, study, units[0].verdict_id, right=False, corrected=7, reason="x", by="ana")
    mark(db, study, units[0].verdict_id, right=False, corrected=0, reason="the quote names no risk", by="ana")
    mark(db, study, units[1].verdict_id, right=True, by="ana")
    assert verdict_rows.verdict_rows(db, sid, "judge-a") == before  # the verdicts are untouched
    row = reviews(db, sid)[0]
    assert (row["original"], row["corrected"], row["mark"], row["by"], row["reason"]) == \
           (2.0, 0.0, "corrected", "ana", "the quote names no risk") and row["at"]
    values = {v.row_id: v.value for v in load_ratings(db, sid).verdicts}
    assert values[units[0].verdict_id] == 2.0  # "original" pre-registered
    a = agreement(db, sid, "judge-a")
    assert (a.reviewed, a.right, a.corrected, a.agreement, a.mean_abs_correction) == (2, 1, 1, 0.5, 2.0)
    assert "judge-a: 2 reviewed, 1 right, 1 corrected; agreement 0.50" in quality_text(study_quality(db, sid))
    # a second mark of the same verdict supersedes the first for the agreement; both rows are kept
    mark(db, study, units[0].verdict_id, right=True, by="bo")
    assert len(reviews(db, sid)) == 3 and agreement(db, sid, "judge-a").agreement == 1.0


def test_pre_registered_corrected_verdicts_reach_the_tables(db):
    sid = judged(db, verdicts="corrected")
    study = load_study(db, sid)
    unit = sample(db, study, "judge-a", 1)[0]
    mark(db, study, unit.verdict_id, right=False, corrected=1, reason="peripheral only", by="ana")
    values = {v.row_id: v.value for v in load_ratings(db, sid).verdicts}
    assert values[unit.verdict_id] == 1.0
    assert sum(v == 2.0 for v in values.values()) == len(values) - 1
