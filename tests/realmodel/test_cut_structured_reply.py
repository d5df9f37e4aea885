"""A structured reply inside a run cut at max_tokens on the real model (issue 40): M11's binary verdict, asked with
too few tokens for its reason, is counted as cut (not as a parse error) in the run's counts, and its retry changes
what cut it (twice the max_tokens, the rule of workbench/structured/cut.py), never asking the same again; the
retry's reply parses. The smallest study the suite already runs: m11-local's binary comparison of one item."""

from __future__ import annotations

import pytest
import sqlite_utils

pytestmark = pytest.mark.realmodel

MAX_TOKENS = 10   # the verdict's JSON cut before its reason ends; twice as many held SmolLM2's whole reply


def test_a_cut_verdict_is_named_and_mended_by_the_retry(workbench):
    ran = workbench.run_variant("m11-local", "m11-cut-local", {
        'conditions = ["likert", "binary"]': 'conditions = ["binary"]', "limit = 2": "limit = 1",
        "max_tokens = 250": f"max_tokens = {MAX_TOKENS}"})

    db = sqlite_utils.Database(workbench.db)
    calls = [(max_tokens, finish) for _, max_tokens, finish in workbench.answered("m11-cut-local")]
    assert calls == [(MAX_TOKENS, "length"), (2 * MAX_TOKENS, "stop")], calls   # cut, then asked with more
    readings = dict(db.execute("SELECT outcome, detail FROM structured_replies WHERE study_id = 'm11-cut-local' "
                               "AND step = 'm11 binary'").fetchall())
    assert set(readings) in ({"cut", "parsed"}, {"cut", "repaired"}), readings
    assert f"asked again with max_tokens {2 * MAX_TOKENS} (was {MAX_TOKENS})" in readings["cut"]
    line = "structured replies cut at max_tokens: 1 (m11 binary 1); 1 asked again with a larger max_tokens"
    assert line in ran, ran
    [status] = [r[0] for r in db.execute("SELECT status FROM runs WHERE study_id = 'm11-cut-local'").fetchall()]
    assert status == "done"
