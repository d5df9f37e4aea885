"""A judge reply cut at max_tokens on the real model (issue 40): `study create` warns that the judge's
max_tokens is short of its rubric's reply, `judge` names the cut replies as cut (not as parse errors), and the
retry mends them by changing what cut them (more tokens, then one criterion a call), never by asking the same
again. The smallest study: hindsight-local's B1 alone on one case, judged on the case's own three-criterion
rubric only, by a judge given 40 tokens (too few for even one criterion's quote and justification)."""

from __future__ import annotations

import json

import pytest
import sqlite_utils

pytestmark = pytest.mark.realmodel


def test_a_cut_judge_reply_is_named_and_mended_by_the_retry(workbench):
    study = workbench.variant("hindsight-local", "cut-local", {
        'conditions = ["B1", "C1"]': 'conditions = ["B1"]', 'rubrics = ["anticipation"]': "rubrics = []",
        "max_tokens = 300": "max_tokens = 40"})
    created = workbench.run("study", "create", str(study))
    assert "judge 'judge-local': max_tokens 40 is below what rubric 'glenda-crock' needs" in created.stderr
    workbench.run("run", "cut-local")
    report = workbench.json("judge", "cut-local")
    [judge] = report["judges"]
    assert judge["cut"] >= 1 and judge["cut_mended"] == 1 and judge["judge_errors"] == 0, judge

    db = sqlite_utils.Database(workbench.db)
    calls = [(json.loads(s)["max_tokens"], f) for s, f in db.execute(
        "SELECT settings, finish_reason FROM calls WHERE study_id = 'cut-local' AND role = 'judge' "
        "AND status = 'ok' ORDER BY id").fetchall()]
    assert calls[0] == (40, "length")                  # the first reply was cut at the judge's max_tokens
    assert any(f != "length" for _, f in calls)        # a retry with a changed cause answered whole
    counts = {r["outcome"]: r["n"] for r in db.query(
        "SELECT outcome, count(*) AS n FROM structured_replies WHERE study_id = 'cut-local' AND step = 'judge' "
        "GROUP BY outcome")}
    assert counts.get("cut", 0) == judge["cut"] and counts.get("unparsed", 0) == 0, counts
