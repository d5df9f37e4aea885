"""Blindness is a security property: walk everything a rater can reach and look for leaks.

Every rater-view function the scoring screen uses, every action's receipt and
message, and the rater packet (as built and as written to disk) are collected
as text, for a study whose final outputs are full of condition tells and
model names; none of it may contain a condition id or name, a model name, a
run id, a timestamp, the sealed key's words, or the other rater's scores.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from store import blind as blind_rows
from tests.blinding.study_fixture import JUDGE_MODEL, STUDY_MODEL, TELL_TEXTS
from tests.evaluators.helpers import quality_study
from tests.scoring.scoring_helpers import score_pilots
from workbench import scoring
from workbench.scoring.packets import build_packet, export_packet

CONDITION_ID = re.compile(r"\b(?:B1|B2|B3|C1|C2|C3|P1)\b")
FORBIDDEN_WORDS = [
    # condition names and their machinery
    "single prompt", "chain-of-thought", "chain of thought", "multi-perspective", "hub-and-spoke", "committee",
    "peer-agent", "adversarial", "deliberated choice", "fan-out", "probe", "respondent", "coordinator",
    "robert's rules", "resolved", "motion", "seconded", "4-1", "5-0", "in favour", "chair", "devil's advocate",
    "risk analyst",
    # model names (the study's and the judge's) and the mock banner
    STUDY_MODEL, STUDY_MODEL.split("/")[-1], JUDGE_MODEL, JUDGE_MODEL.split("/")[-1], "openai", "anthropic",
    "claude", "mock",
    # sealed-key and run words
    "run-", '"run_id"', '"condition"', '"replicate"', "pilot_expectation", '"direction"', "scrub_log",
    "sealed_at", "judge", "verdict",
    # planted items (gold and attention) and the evaluator quality figures
    "gold", "planted", '"expected"', '"kind"', "outcome:", "attention:", "quality", "exclude", "straight-lin", "loo_",
]
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
OTHER_NOTE = "RATER-B-PRIVATE-7731"


def _text(obj) -> str:
    if dataclasses.is_dataclass(obj):
        obj = dataclasses.asdict(obj)
    return json.dumps(obj, default=str, ensure_ascii=False) if not isinstance(obj, str) else obj


def _assert_clean(label: str, text: str) -> None:
    hit = CONDITION_ID.search(text)
    assert hit is None, f"{label}: condition id {hit.group(0)!r} in {text[max(0, hit.start() - 80):hit.end() + 80]!r}"
    lowered = text.lower()
    for word in FORBIDDEN_WORDS:
        assert word.lower() not in lowered, f"{label}: {word!r} leaks"
    assert TIMESTAMP.search(text) is None, f"{label}: a timestamp leaks"
    assert OTHER_NOTE not in text, f"{label}: the other rater's note leaks"


@pytest.fixture
def walked(db, tmp_path):
    """Everything rater-a can reach, after rater-b has scored with extreme values and a private note. The
    study plants gold and attention items (issue 32): nothing may mark them either."""
    sid = quality_study(db, texts=TELL_TEXTS)
    seen: list[tuple[str, str]] = []
    seen.append(("open_rater", _text(scoring.open_rater(db, sid, "rater-a"))))
    seen.append(("packet during calibration", _text(build_packet(db, sid, "rater-a"))))
    held = blind_rows.assignments(db, sid, "rater-a")[5]["item_id"]
    with pytest.raises(scoring.ScoringError) as err:
        scoring.item_view(db, sid, "rater-a", held)
    seen.append(("calibration hold message", str(err.value)))

    scoring.open_rater(db, sid, "rater-b")
    score_pilots(db, sid, "rater-b")
    for q in scoring.queue(db, sid, "rater-b")[2:]:  # the first pair is the calibration pilots
        scoring.record_score(db, sid, "rater-b", q.item_id, "anticipation", "anticipation", 3)
        scoring.record_score(db, sid, "rater-b", q.item_id, "epistemic-humility", "calibration", 3)
        scoring.record_note(db, sid, "rater-b", q.item_id, OTHER_NOTE)

    score_pilots(db, sid, "rater-a", right_way=True)
    seen.append(("progress", _text(scoring.progress(db, sid, "rater-a"))))
    seen.append(("rater names", _text(scoring.rater_names(db, sid))))
    queue = scoring.queue(db, sid, "rater-a")
    seen.append(("queue", _text([dataclasses.asdict(q) for q in queue])))
    seen.append(("next", _text(scoring.next_unscored(db, sid, "rater-a"))))
    own = {}
    for q in queue:
        view = scoring.item_view(db, sid, "rater-a", q.item_id)
        seen.append((f"item view {q.label}", _text(view.to_dict())))
        seen.append((f"pair view {q.label}", _text([v.to_dict() for v in scoring.pair_view(db, sid, "rater-a",
                                                                                            q.item_id)])))
        own[q.item_id] = view.scores
        if not q.complete:
            r = scoring.record_score(db, sid, "rater-a", q.item_id, "anticipation", "anticipation", 0)
            seen.append(("score receipt", _text(r)))
            seen.append(("note receipt", _text(scoring.record_note(db, sid, "rater-a", q.item_id, "mine"))))
            seen.append(("skip receipt", _text(scoring.skip_item(db, sid, "rater-a", q.item_id))))
    seen.append(("undo receipt", _text(scoring.undo_last(db, sid, "rater-a"))))
    path = tmp_path / "packet.json"
    seen.append(("export summary", _text(export_packet(db, sid, "rater-a", path))))
    packet_text = path.read_text(encoding="utf-8")
    seen.append(("packet file", packet_text))
    return sid, seen, own, json.loads(packet_text)


def test_nothing_a_rater_can_reach_names_a_condition_model_run_time_or_other_rater(walked, db):
    sid, seen, _own, _packet = walked
    assert len(seen) > 30
    from store.quality import planted

    planted_ids = set(planted(db, sid))
    assert len(planted_ids) == 4 and all(any(i in text for _, text in seen) for i in planted_ids)  # walked too
    for label, text in seen:
        _assert_clean(label, text)


def test_a_raters_views_hold_only_their_own_scores(walked, db):
    sid, _seen, own, packet = walked
    for item, scores in own.items():
        values = {v for rubric in scores.values() for v in rubric.values()}
        assert 3 not in values or item in blind_rows.read_pilot_expectations(db, sid)  # b gave 3 everywhere
    for item, answer in packet["answers"].items():
        assert answer["scores"]["epistemic-humility"]["calibration"] != 3 or \
            item in blind_rows.read_pilot_expectations(db, sid)


def test_the_walk_would_catch_a_leak(walked):
    """The check itself: a text with a tell fails it."""
    with pytest.raises(AssertionError):
        _assert_clean("planted", "The committee (C2) voted")
    with pytest.raises(AssertionError):
        _assert_clean("planted", f"scored with {STUDY_MODEL}")
    with pytest.raises(AssertionError):
        _assert_clean("planted", f"note: {OTHER_NOTE}")
