"""Issue 41 in the committees: a second that is neither clearly yes nor clearly no is asked again once, with the
expected line restated, then recorded as unreadable, never as "no" (the next member is asked); the study's counts
(the report's, `metrics`'s and the Metrics Counts tab's one definition) give unreadable seconds and votes per
condition, for each committee condition: C2 and C3 (whose funnel is the same meeting) here; P1 runs C2's meeting
three times (its vote retry: tests/architectures/test_arch_c3_p1.py), left out for time.

The scripted model (tests/runner/studykit.py) leaves the Mediator's main-motion vote unreadable; here the Devil's
advocate, the first member asked to second the main motion, also answers without a readable SECOND line."""

from __future__ import annotations

from tests.runner.studykit import requests_with, role_of, scripted
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from tests.support.study_fixtures import run_conditions, server, store  # noqa: F401  (the fixtures)

UNDECIDED = "Let me think about the motion a little longer before I commit either way."


def undecided_devils_advocate(body: dict) -> str:
    messages = body.get("messages") or []
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    if role_of(system) == "Devil's advocate" and "Do you second the motion" in messages[-1]["content"]:
        return UNDECIDED
    return scripted(body)


async def test_an_unreadable_second_is_asked_again_once_then_recorded_unreadable_and_counted(run_conditions,
                                                                                             server):
    from workbench.protocols.hindsight.metrics.analysis import analyze, study_counts
    from workbench.protocols.hindsight.metrics.render import COUNT_LABELS, counts_rendered
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.scoring.unblind import unblind

    server.responder = undecided_devils_advocate
    # one debate round and no amendment: a short meeting (the main motion's seconds and vote are under test)
    short = "[architectures.C2]\ndebate_rounds = 1\nmax_amendments = 0\n"
    summary, events, db = await run_conditions("C2", "C3", extra=short)  # C3 meets under C2's options
    run_condition = {r["id"]: r["condition"] for r in db["runs"].rows_where("study_id = ?", ["arch-study"])}
    by_run: dict[str, list] = {}
    for e in events:
        if e.kind == "second" and e.payload["on"] == "motion":
            by_run.setdefault(e.run_id, []).append(e)
    assert len(by_run) == 2                                    # C2's meeting and C3's
    for undecided, seconder in by_run.values():               # the Devil's advocate, then the next member
        assert undecided.agent == "devils-advocate" and undecided.payload["seconded"] is None
        assert undecided.payload["readable"] is False and undecided.payload["retried"] is True
        assert seconder.agent == "examiner" and seconder.payload["seconded"] is True    # asked on: not a "no"
    asked_again = requests_with(server, "could not be read as a clear yes or no")
    assert len(asked_again) == 2                                   # once per meeting, never twice
    assert all('"SECOND: yes" or "SECOND: no"' in b["messages"][-1]["content"]
               and "Do you second the motion" in b["messages"][-1]["content"] for b in asked_again)
    minutes = requests_with(server, "Debate, round 1 of")[0]["messages"][-1]["content"]
    assert "could not be read as yes or no, even when asked again; it seconded nothing" in minutes

    blind = study_counts(load_study_data(db, "arch-study"))
    assert blind["seconds_unreadable"] == {"all": 2} and blind["votes_unreadable"] == {"all": 2}
    unblind(db, "arch-study", by="test", force=True, reason="the counts per condition are under test")
    data = load_study_data(db, "arch-study")
    counts = study_counts(data)
    assert set(run_condition.values()) == {"C2", "C3"}
    # per meeting: the two members asked to second the main motion, and its five votes
    assert counts["seconds_given"] == {"C2": 2, "C3": 2} and counts["seconds_unreadable"] == {"C2": 1, "C3": 1}
    assert counts["votes_given"] == {"C2": 5, "C3": 5} and counts["votes_unreadable"] == {"C2": 1, "C3": 1}
    table = counts_rendered(analyze(data, include_dq=False))
    shown = dict(table.rows)
    assert shown[COUNT_LABELS["seconds_unreadable"]] == shown[COUNT_LABELS["votes_unreadable"]] == "C2: 1, C3: 1"
