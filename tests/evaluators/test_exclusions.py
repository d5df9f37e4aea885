"""Pre-registered exclusions: applied before unblinding, recorded, the same as removing the evaluator by
hand; overrides kept with their reason and printed as deviations."""

from __future__ import annotations

import json
import sqlite3

import pytest

from store import open_store
from store.metrics_data import current_scores
from store.quality import decisions, planted
from tests.evaluators.helpers import quality_study
from tests.scoring.scoring_helpers import score_pilots
from workbench import scoring
from workbench.blinding.items import prepare_study
from workbench.exports.metrics_files import json_text, study_metrics
from workbench.evaluators.exclusions import ExclusionError, apply_rules, override
from workbench.evaluators.report import quality_text
from workbench.evaluators.study import study_quality
from workbench.metrics.ratings import load_ratings
from workbench.scoring.unblind import unblind

RATERS = ("rater-a", "rater-b", "rater-c")


def score_everything(db, sid: str) -> None:
    """rater-a and rater-b read (gold right, attention followed, 40 s an item); rater-c clicks 2 everywhere
    in 2 s an item (gold wrong, attention failed)."""
    sealed = planted(db, sid)
    for rater in RATERS:
        score_pilots(db, sid, rater)
        for q in scoring.queue(db, sid, rater):
            if q.item_id not in sealed and not q.available:
                continue
            item = sealed.get(q.item_id)
            view = scoring.item_view(db, sid, rater, q.item_id)
            if all(v is not None for r in view.scores.values() for v in r.values()):
                continue  # the pilots
            for rubric in view.rubrics:
                for c in rubric.criteria:
                    if rater == "rater-c":
                        value, seconds = 2, 2.0
                    elif item is not None:
                        value, seconds = item["expected"][rubric.id][c.id], 40.0
                    else:
                        value, seconds = (1 if rater == "rater-a" else 2) + (q.position % 2), 40.0
                    scoring.RaterDesk(db, sid, rater).record_score(q.item_id, rubric.id, c.id, value,
                                                                   seconds=seconds)


@pytest.fixture
def scored(tmp_path):
    path = tmp_path / "a.db"
    db = open_store(path)
    sid = quality_study(db, raters=RATERS, judges=[])
    prepare_study(db, sid)
    score_everything(db, sid)
    return db, sid, path


def test_the_rules_decide_and_the_unblinding_records_them_first(scored):
    db, sid, _ = scored
    sq = study_quality(db, sid)
    by = {q.evaluator: q for q in sq.evaluators}
    assert by["rater-c"].gold_exact == 0.0 and by["rater-c"].under_floor == 1.0
    assert by["rater-a"].gold_exact == 1.0 and by["rater-a"].attention_pass == 1.0
    assert [sq.decision(q)[0] for q in sq.evaluators] == ["kept (provisional)", "kept (provisional)", "would exclude"]
    assert load_ratings(db, sid).excluded == {}  # nothing leaves a table before a decision is recorded
    unblind(db, sid, by="ana")
    rows = decisions(db, sid)
    assert {r["evaluator"]: r["excluded"] for r in rows} == {"rater-a": False, "rater-b": False, "rater-c": True}
    assert next(r for r in rows if r["evaluator"] == "rater-c")["rules"] == ["gold_exact < 0.7",
                                                                            "raters: under_floor > 0.2"]
    assert all(r["by"] == "ana" and r["act"] == "rules" for r in rows)
    with pytest.raises(ExclusionError, match="unblinded"):
        apply_rules(db, sid, by="ana")
    assert "EXCLUDED" in quality_text(study_quality(db, sid))


def _metrics(db, sid) -> dict:
    """What `metrics --json` prints (workbench.exports.metrics_files.study_metrics), as plain JSON."""
    doc, protocol = study_metrics(db, sid, csv=False)
    return json.loads(json_text(sid, protocol, doc))


def test_an_exclusion_changes_the_tables_exactly_as_removing_the_rater_by_hand(scored, tmp_path):
    db, sid, path = scored
    manual = tmp_path / "manual.db"
    with sqlite3.connect(path) as src, sqlite3.connect(manual) as dst:
        src.backup(dst)
    # by hand, in the copy: rater-c's scores deleted and rater-c taken off the study's raters
    other = open_store(manual)
    other.execute("DELETE FROM scores WHERE rater = 'rater-c'")
    definition = json.loads(other["studies"].get(sid)["definition"])
    definition["raters"] = ["rater-a", "rater-b"]
    definition["quality"]["exclude_if"] = []
    other["studies"].update(sid, {"definition": json.dumps(definition)})
    other.conn.commit()
    unblind(other, sid, by="ana", force=True)
    apply = unblind(db, sid, by="ana")
    assert not apply["already"]
    by_rule, by_hand = load_ratings(db, sid), load_ratings(other, sid)
    assert by_rule.excluded == {"rater-c": "human"} and by_hand.excluded == {}
    assert by_rule.scores == by_hand.scores and by_rule.raters == by_hand.raters == ("rater-a", "rater-b")
    ours, theirs = _metrics(db, sid), _metrics(other, sid)
    tables = ("counts", "table1", "table2", "table3", "table4", "agreement", "adjudication")
    assert ours["counts"]["raters_with_scores"] == 2 and ours["table1"]["rows"]
    assert {k: ours[k] for k in tables} == {k: theirs[k] for k in tables}
    # rater-c's scores are still in the store, untouched: the rule left them out of the tables only
    assert {r["rater"] for r in current_scores(db, sid)} == set(RATERS)


def test_an_override_is_recorded_with_its_reason_and_printed_as_a_deviation(scored):
    db, sid, _ = scored
    apply_rules(db, sid, by="ana")
    with pytest.raises(ExclusionError, match="reason"):
        override(db, sid, "rater-c", exclude=False, reason=" ", by="ana")
    with pytest.raises(ExclusionError, match="not an evaluator"):
        override(db, sid, "nobody", exclude=True, reason="x", by="ana")
    override(db, sid, "rater-c", exclude=False, reason="their timer was broken", by="bo")
    assert load_ratings(db, sid).excluded == {}
    apply_rules(db, sid, by="ana")  # the rules again: the override stands
    sq = study_quality(db, sid)
    assert sq.decision(next(q for q in sq.evaluators if q.evaluator == "rater-c"))[0] == "kept (override)"
    text = quality_text(sq)
    assert "DEVIATIONS" in text and "rater-c: kept by bo against the pre-registered rules" in text
    assert "their timer was broken" in text
    assert [r["act"] for r in decisions(db, sid) if r["evaluator"] == "rater-c"] == ["rules", "override"]
