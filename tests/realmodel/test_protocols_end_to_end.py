"""Each protocol's small study on the real local model, end to end as a user types it: create → run →
judge or the protocol's own evaluation → metrics → report. What must hold on real text:

- every run is done, or failed with a reason that is not an interruption;
- no call the server answered is lost: the server's request count equals the calls the store recorded
  as sent (answers and errors, retries included, each its own row);
- with schema-constrained decoding on, judge errors and unparsed structured replies are at most 5%;
- the report is written.
"""

from __future__ import annotations

import sqlite_utils
import pytest

from tests.realmodel.kit import CHAINS_BY_STUDY, HELD_STEPS, INTERRUPTED, sent_calls, structured_failures

pytestmark = pytest.mark.realmodel


@pytest.mark.parametrize("study", list(CHAINS_BY_STUDY))
def test_protocol_end_to_end_on_the_real_model(workbench, server, study):
    before = server.requests()
    workbench.run("study", "create", str(workbench.study_file(study)))
    for step in CHAINS_BY_STUDY[study]:
        workbench.run(*[part.format(s=study) for part in step], ok=(0, 1))
    workbench.json("metrics", study)
    report = workbench.root / f"{study}.md"
    workbench.run("report", study, "--out", str(report))

    assert report.is_file() and study in report.read_text()
    show = workbench.json("study", "show", study)
    runs = list(sqlite_utils.Database(workbench.db)["runs"].rows_where("study_id = ?", [study]))
    assert runs and len(runs) == show["planned_runs"]
    for run in runs:
        assert run["status"].startswith("done") or (
            run["status"] == "failed" and not any(word in (run["error"] or "") for word in INTERRUPTED)), run

    assert server.requests() - before == sent_calls(workbench.db)

    counts = show["counts"]
    if counts.get("judged"):  # with schema-constrained decoding on: judge errors at most 5%
        assert counts["judge_errors"] <= 0.05 * counts["judged"], counts
    for step, (bad, total) in structured_failures(workbench.db, study).items():
        if step in HELD_STEPS:
            assert total and bad <= 0.05 * total, (step, bad, total)
