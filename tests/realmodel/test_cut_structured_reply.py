"""A structured reply inside a run cut at max_tokens on the real model (issue 40): M11's binary verdict, asked with
too few tokens for its reason, is counted as cut (not as a parse error) in the run's counts, and its retry changes
what cut it (twice the max_tokens, the rule of workbench/structured/cut.py), never asking the same again; the
retry's reply parses. The smallest study the suite already runs: m11-local's binary comparison of one item."""

from __future__ import annotations

import json

import pytest
import sqlite_utils

pytestmark = pytest.mark.realmodel

MAX_TOKENS = 10   # the verdict's JSON cut before its reason ends; twice as many held SmolLM2's whole reply


def test_a_cut_verdict_is_named_and_mended_by_the_retry(workbench):
    text = workbench.study_file("m11-local").read_text()
    text = (text.replace('name = "m11-local"', 'name = "m11-cut-local"')
                .replace('conditions = ["likert", "binary"]', 'conditions = ["binary"]')
                .replace("limit = 2", "limit = 1")
                .replace("max_tokens = 250", f"max_tokens = {MAX_TOKENS}"))
    study = workbench.root / "m11-cut-local.toml"
    study.write_text(text)
    workbench.run("study", "create", str(study))
    ran = workbench.run("run", "m11-cut-local").stdout

    db = sqlite_utils.Database(workbench.db)
    calls = [(json.loads(s)["max_tokens"], f) for s, f in db.execute(
        "SELECT settings, finish_reason FROM calls WHERE study_id = 'm11-cut-local' AND status = 'ok' "
        "ORDER BY id").fetchall()]
    assert calls == [(MAX_TOKENS, "length"), (2 * MAX_TOKENS, "stop")], calls   # cut, then asked with more
    readings = dict(db.execute("SELECT outcome, detail FROM structured_replies WHERE study_id = 'm11-cut-local' "
                               "AND step = 'm11 binary'").fetchall())
    assert set(readings) in ({"cut", "parsed"}, {"cut", "repaired"}), readings
    assert f"asked again with max_tokens {2 * MAX_TOKENS} (was {MAX_TOKENS})" in readings["cut"]
    line = "structured replies cut at max_tokens: 1 (m11 binary 1); 1 asked again with a larger max_tokens"
    assert line in ran, ran
    [status] = [r[0] for r in db.execute("SELECT status FROM runs WHERE study_id = 'm11-cut-local'").fetchall()]
    assert status == "done"
