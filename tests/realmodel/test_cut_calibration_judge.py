"""A calibration judge's reply cut at max_tokens on the real model (issue 40): counted as cut (not as a parse
error) in the run's counts, and asked again as the same prompt with twice the max_tokens (the rule of
workbench/structured/cut.py), never the same request again, until a reply parses. The smallest study:
calibration-local's panel on one interaction, its judges given 16 tokens (too few for a score and a reason)."""

from __future__ import annotations

import json

import pytest
import sqlite_utils

pytestmark = pytest.mark.realmodel

MAX_TOKENS = 16   # the section's least: SmolLM2's score and reason never fit


def test_a_cut_calibration_judge_reply_is_named_and_mended_by_the_retry(workbench):
    ran = workbench.run_variant("calibration-local", "cal-cut-local", {
        "sample_size = 6 ": "sample_size = 1 ", "judge_retries = 1": "judge_retries = 3",
        "judge_max_tokens = 120": f"judge_max_tokens = {MAX_TOKENS}"})

    db = sqlite_utils.Database(workbench.db)
    by_run: dict[str, list] = {}
    for run_id, max_tokens, finish in workbench.answered("cal-cut-local"):
        by_run.setdefault(run_id, []).append((max_tokens, finish))
    assert len(by_run) == 3, by_run
    for calls in by_run.values():
        assert calls[0] == (MAX_TOKENS, "length"), by_run                 # every first reply was cut
        for (before, finish), (after, _) in zip(calls, calls[1:]):
            if finish == "length":
                assert after == 2 * before, by_run                        # the retry changed what cut it
    mended = [calls for calls in by_run.values() if calls[-1][1] != "length"]
    assert mended, by_run                                                # a retry with more room answered whole
    scores = [json.loads(r)["score"] for (r,) in db.execute(
        "SELECT o.report FROM outputs o JOIN runs r ON r.id = o.run_id WHERE r.study_id = 'cal-cut-local'")]
    assert any(s is not None for s in scores), scores                    # and it parsed
    counts = dict(db.execute("SELECT outcome, count(*) FROM structured_replies WHERE study_id = 'cal-cut-local' "
                             "AND step = 'calibration judge' GROUP BY outcome").fetchall())
    cut = sum(f == "length" for calls in by_run.values() for _, f in calls)
    assert counts.get("cut") == cut, counts                            # each cut reply counted cut, not unparsed
    assert f"structured replies cut at max_tokens: {cut} (calibration judge {cut}); " in ran, ran
