"""Issue 13 item 7: topology for any condition with replicates, and a person's recorded override."""

from __future__ import annotations

import json

import pytest

from store.blind import record_unblinding
from store.metrics_data import topology_rows
from store.topology import get_topology
from workbench.cli.main import main
from workbench.protocols.hindsight.fidelity import topology_section
from workbench.protocols.hindsight.topology_review import TopologyReviewError, review_topology


async def test_a_condition_with_three_replicates_gets_its_topology(run_conditions, server):
    summary, events, db = await run_conditions("B1", extra="")  # one replicate: no topology for B1
    assert get_topology(db, "arch-study", "toll-bridge", "B1") is None


async def test_topology_for_b1_and_c1_with_three_replicates(store, server):
    from tests.runner.studykit import create, gateway, study_text
    from workbench.runs.runner import run_study

    db, db_path = store
    sid = create(db, study_text("reps", conditions=("B1", "C1"), api_base=server.url, replicates=3))
    summary = await run_study(db, gateway(db, db_path), sid)
    assert summary.complete and not summary.topology_errors
    for cond in ("B1", "C1"):
        row = get_topology(db, sid, "toll-bridge", cond)
        assert row is not None and row["pattern"] == "Basin"
        assert [r["replicate"] for r in row["detail"]["runs"]] == [0, 1, 2]
    # progress knew the topology calls up front: 3 x (B1 2 + C1 8) + 2 x 4 topology calls
    assert summary.calls == 3 * (2 + 8) + 2 * 4


async def test_a_review_is_recorded_with_its_reason_and_overrides_the_coding(run_conditions, capsys):
    summary, events, db = await run_conditions("P1")
    assert get_topology(db, "arch-study", "toll-bridge", "P1")["pattern"] == "Basin"
    args = dict(pattern="Ridge", reviewer="Ana", switching_assumption="the regulator will act within a year",
                reason="run C recommends partial compliance because it assumes no regulator acts")
    with pytest.raises(TopologyReviewError, match="blinded"):
        review_topology(db, "arch-study", "toll-bridge", "P1", **args)
    record_unblinding(db, "arch-study", by="tester", forced=False, reason=None)
    with pytest.raises(TopologyReviewError, match="reason"):
        review_topology(db, "arch-study", "toll-bridge", "P1", **{**args, "reason": "looks wrong"})
    with pytest.raises(TopologyReviewError, match="switching assumption"):
        review_topology(db, "arch-study", "toll-bridge", "P1", **{**args, "switching_assumption": None})
    review = review_topology(db, "arch-study", "toll-bridge", "P1", **args)
    assert (review["automatic_pattern"], review["pattern"], review["reviewer"]) == ("Basin", "Ridge", "Ana")
    # the metrics read the reviewed coding; the automatic one is kept beside it
    (row,) = [r for r in topology_rows(db, "arch-study") if r["condition"] == "P1"]
    assert row["pattern"] == "Ridge" and row["automatic_pattern"] == "Basin"
    assert row["switching_assumption"] == "the regulator will act within a year"
    section = topology_section(db, "arch-study")
    assert "| toll-bridge | Ridge (reviewed) |" in section
    assert "Basin -> Ridge" in section and "by Ana" in section and args["reason"] in section
    # the batch command records a second review; the latest one counts, both stay on record
    db_path = db.conn.execute("PRAGMA database_list").fetchall()[0][2]
    code = main(["--batch", "--db", db_path, "--json", "hindsight", "topology", "arch-study", "--review",
                 "toll-bridge", "P1", "--pattern", "Basin", "--reviewer", "Bo",
                 "--reason", "on a second reading all three runs resist outright"])
    assert code == 0 and json.loads(capsys.readouterr().out)["review"]["pattern"] == "Basin"
    from store.topology_reviews import reviews

    assert [r["pattern"] for r in reviews(db, "arch-study")] == ["Ridge", "Basin"]
    assert [r for r in topology_rows(db, "arch-study") if r["condition"] == "P1"][0]["pattern"] == "Basin"
