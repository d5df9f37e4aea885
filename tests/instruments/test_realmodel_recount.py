"""The real-model suite's recount of faultline's and M11's replies through their instruments
(tests/realmodel/instrument_recount.py), checked here on a small store without any model: it counts each
reply read or flagged, and fails when a reply the study took as data is one its instrument flags."""

from __future__ import annotations

import json

import pytest

from tests.realmodel.instrument_recount import assert_read_or_flagged
from workbench.paths import open_workbench_store

STUDY = "fl"
STANCE_PROMPT = ("Below is a statement by Dana. ...\n\nClaims:\n- c1: Renewables suffice\n- c2: Nuclear is slow\n\n"
                 "Statement:\nI doubt it.\n\nReply with one JSON object")


def _store(tmp_path, replies):
    db = open_workbench_store(tmp_path / "s.db")
    db.execute("PRAGMA foreign_keys = OFF")   # the calls' run, study and case rows are beside the point here
    for i, (turn, step, outcome, response, prompt) in enumerate(replies, start=1):
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        db["calls"].insert({"study_id": STUDY, "run_id": "fl/r1", "turn": turn, "call_key": f"k{i}", "model": "m",
                            "request": json.dumps(messages), "settings": "{}",
                            "response": response, "status": "ok", "started_at": "t"})
        db["structured_replies"].insert({"study_id": STUDY, "key": f"fl/r1/{turn}", "step": step,
                                         "outcome": outcome, "detail": "", "at": "t"})
    return tmp_path / "s.db"


def test_each_reply_is_counted_read_or_flagged(tmp_path):
    path = _store(tmp_path, [
        ("stance:a:opening", "stances", "parsed", '{"stances": {"c1": -1, "c2": null}}', STANCE_PROMPT),
        ("stance:b:opening", "stances", "repaired", "{'stances': {'c1': 2, 'c2': 0}}", STANCE_PROMPT),
        ("stance:a:closing", "stances", "unparsed", '{"stances": {"c1": 1}} or {"stances": {"c1": 2}}',
         STANCE_PROMPT),
        ("binary", "m11 binary", "parsed", '{"verdict": "FAIL", "reason": "r"}', "Is this acceptable?"),
    ])
    assert assert_read_or_flagged(path, STUDY) == {"stance": {"read": 2, "flagged": 1},
                                                    "m11-verdict": {"read": 1, "flagged": 0}}


def test_a_reply_taken_as_data_that_its_instrument_flags_fails_the_recount(tmp_path):
    path = _store(tmp_path, [("binary", "m11 binary", "parsed", '{"verdict": "MAYBE"}', "Is this acceptable?")])
    with pytest.raises(AssertionError):
        assert_read_or_flagged(path, STUDY)


def test_a_retried_reply_is_read_with_the_first_prompt_s_claims(tmp_path):
    """A retry's last message only asks again; the claims the reply is read against are in the first one (the
    real-model suite failed here on SmolLM2's second stances reply)."""
    retried = [{"role": "user", "content": STANCE_PROMPT}, {"role": "assistant", "content": "{"},
               {"role": "user", "content": "That reply could not be used. Reply again with the JSON object only."}]
    path = _store(tmp_path, [("stance:a:opening", "stances", "parsed", '{"stances": {"c1": 1, "c2": -1}}', retried)])
    assert assert_read_or_flagged(path, STUDY) == {"stance": {"read": 1, "flagged": 0}}
