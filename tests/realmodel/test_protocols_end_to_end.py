"""Each protocol's small study on the real local model, end to end as a user types it: create → run →
judge or the protocol's own evaluation → metrics → report. What must hold on real text:

- every run is done, or failed with a reason that is not an interruption;
- no call the server answered is lost: the server's request count equals the calls the store recorded
  as sent (answers and errors, retries included, each its own row);
- with schema-constrained decoding on, judge errors and unparsed structured replies are at most 5%;
- the report is written;
- every faultline graph, stance and crux-card reply and every M11 Judge, binary and MetaJudge reply is read
  again by its instrument (no model call: the call log's replies), as the study read it, and read or flagged,
  never silently misread (instrument_recount);
- a judge-only study (hindsight-local) fills Tables 1 and 4 from the judge's parsed verdicts (judge_tables);
- truncation is counted where the model was cut: each run's cut turns are the turns whose reply the server
  ended with finish_reason "length", and `study show` and the report give the cut outputs per condition as
  the store holds them.
"""

from __future__ import annotations

import sqlite_utils
import pytest

from tests.realmodel.kit import (CHAINS_BY_STUDY, HELD_STEPS, INTERRUPTED, SMALLER, cut_turns, sent_calls,
                                 structured_failures, truncated_by_condition)
from tests.realmodel.fidelity_recount import assert_fidelity_recounted
from tests.realmodel.instrument_recount import assert_read_or_flagged
from tests.realmodel.judge_tables import assert_tables_from_the_judge

pytestmark = pytest.mark.realmodel


@pytest.mark.parametrize("study", list(CHAINS_BY_STUDY))
def test_protocol_end_to_end_on_the_real_model(workbench, server, study):
    before = server.requests()
    shipped = workbench.variant(study, study, SMALLER[study]) if study in SMALLER else workbench.study_file(study)
    created = workbench.run("study", "create", str(shipped)).stdout
    for step in CHAINS_BY_STUDY[study]:
        workbench.run(*[part.format(s=study) for part in step], ok=(0, 1))
    metrics = workbench.json("metrics", study)
    if study == "hindsight-local":
        assert_tables_from_the_judge(workbench, study, created)
    report = workbench.root / f"{study}.md"
    workbench.run("report", study, "--out", str(report))
    if study == "hindsight-local":
        assert_fidelity_recounted(workbench, study, metrics)

    assert report.is_file() and study in report.read_text()
    show = workbench.json("study", "show", study)
    runs = list(sqlite_utils.Database(workbench.db)["runs"].rows_where("study_id = ?", [study]))
    assert runs and len(runs) == show["planned_runs"]
    for run in runs:
        assert run["status"].startswith("done") or (
            run["status"] == "failed" and not any(word in (run["error"] or "") for word in INTERRUPTED)), run

    assert server.requests() - before == sent_calls(workbench.db)
    if study in ("faultline-local", "m11-local"):
        read = assert_read_or_flagged(workbench.db, study)
        assert read, "no graph, stance, crux-card or verdict reply was recorded"
        print(f"{study}: replies read or flagged by their instruments: {read}")

    counts = show["counts"]
    if counts.get("judged"):  # with schema-constrained decoding on: judge errors at most 5%
        assert counts["judge_errors"] <= 0.05 * counts["judged"], counts
    for step, (bad, total) in structured_failures(workbench.db, study).items():
        if step in HELD_STEPS:
            assert total and bad <= 0.05 * total, (step, bad, total)

    for run in runs:  # the server's word (finish_reason) against the workbench's count, run by run
        assert run["truncated_turns"] == cut_turns(workbench.db, run["id"]), run
    cut = truncated_by_condition(workbench.db, study)
    assert show["counts"]["truncated"] == cut
    text = report.read_text()
    if any(c["truncated"] for c in cut.values()):
        for condition, c in cut.items():
            assert f"{condition} {c['truncated']}/{c['outputs']}" in text
    else:
        assert "outputs cut at max_tokens" not in text
