"""C2 committee end to end: Robert's Rules, who sees what, the protocol events in order, the resolution."""

from __future__ import annotations

from store.events import events_for_run
from store.outputs import get_output
from store.runs import list_runs
from tests.runner.studykit import requests_with, role_of
from workbench.protocols.hindsight.architectures.roster import DEFAULT_ROSTER

MEMBERS = [m.name for m in DEFAULT_ROSTER if not m.chair]


async def test_c2_meeting_calls_visibility_and_events(run_conditions, server):
    summary, events, db = await run_conditions("C2")
    # question 1 + openings 5 + motion 1 + second 1 + debate 2x5 + amendment second 1 + amendment vote 5
    # + restate 1 + main vote 5 (and the Mediator's unreadable vote asked once more) + resolution 1 + the
    # report-shape extraction 1 (issue 13)
    assert server.count == 33
    openings = requests_with(server, "Give your opening statement")
    assert sorted(role_of(b["messages"][0]["content"]) for b in openings) == sorted(MEMBERS)
    statements = {e.agent: e.payload["text"] for e in events if e.kind == "perspective"}
    assert len(statements) == 5
    for body in openings:  # an opening speaker has heard nobody
        text = body["messages"][-1]["content"]
        assert not any(s in text for s in statements.values())
    debate = requests_with(server, "Debate, round")
    assert len(debate) == 10
    for body in debate:  # in debate, every member sees every opening statement
        text = body["messages"][-1]["content"]
        assert all(s in text for s in statements.values())
    # later speakers hear earlier speeches of the same round
    speeches = [e for e in events if e.kind == "turn_finished" and e.turn.startswith("debate-1:")]
    last_speaker = requests_with(server, "Debate, round 1 of 2")[-1]["messages"][-1]["content"]
    assert all(s.payload["text"].strip() in last_speaker for s in speeches[:-1])

    protocol = [e for e in events if e.kind in ("question", "motion", "second", "amendment", "vote", "resolution")]
    kinds = [e.kind for e in protocol]
    assert kinds == (["question", "motion", "second", "amendment", "second"] + ["vote"] * 5
                     + ["amendment", "motion"] + ["vote"] * 5 + ["resolution"])
    motion = protocol[1]
    assert motion.agent == "proposer" and motion.payload["text"] == \
        "Resist the demands and disclose the threat publicly."
    # the proposer is first in the roster, so the first member asked to second is the devil's advocate
    assert protocol[2].payload["seconded"] is True and protocol[2].agent == "devils-advocate"
    assert protocol[2].payload["on"] == "motion"
    moved = protocol[3]
    assert moved.payload["status"] == "moved" and moved.agent == "devils-advocate"
    assert moved.payload["text"] == "disclose only after a legal review"
    # the amendment is seconded before its vote, by the first member after its mover
    assert protocol[4].payload["seconded"] is True and protocol[4].agent == "examiner"
    assert protocol[4].payload["on"] == "amendment 1"
    assert all(e.payload["on"] == "amendment 1" and e.payload["vote"] == "aye" for e in protocol[5:10])
    assert protocol[10].payload["status"] == "adopted" and protocol[10].payload["tally"]["aye"] == 5
    assert protocol[11].payload["amended"] is True
    main_votes = {e.agent: e.payload["vote"] for e in protocol[12:17]}
    assert main_votes["devils-advocate"] == "nay"
    assert main_votes["mediator"] == "unparsed"  # no VOTE line: never counted as a vote
    mediator = next(e.payload for e in protocol[12:17] if e.agent == "mediator")
    assert mediator["readable"] is False and mediator["retried"] is True  # asked once more, then unreadable
    (retry,) = [e for e in events if e.kind == "turn_started" and e.turn == "vote-motion:mediator:retry"]
    assert "retry 1" in retry.payload["label"] and "neither clearly" in retry.payload["retry_reason"]
    (asked_again,) = requests_with(server, "could not be read as one clear vote")
    assert 'VOTE: aye' in asked_again["messages"][-1]["content"] and "puts the main motion" in \
        asked_again["messages"][-1]["content"]
    assert all(e.payload["readable"] and not e.payload["retried"] for e in protocol if e.kind == "second")
    resolution = protocol[-1].payload
    assert resolution["tally"] == {"aye": 3, "nay": 1, "abstain": 0, "unparsed": 1}
    assert resolution["carried"] is True
    assert resolution["motion"] == "Resist the demands and disclose the threat publicly after a legal review."
    assert [m["member"] for m in resolution["minority"]] == ["devils-advocate"]
    # the chair's resolution prompt carries the tally and the dissent
    res_prompt = requests_with(server, "write the committee's resolution")[0]["messages"][-1]["content"]
    assert "The committee underrates the shutdown risk." in res_prompt and "3 aye, 1 nay" in res_prompt

    (run,) = list_runs(db, "arch-study")
    output = get_output(db, run["id"])
    assert output["text"].startswith("RESOLVED") and output["report"]["recommendation"]
    stored = [e["kind"] for e in events_for_run(db, run["id"])]
    assert stored.count("vote") == 10 and stored[-2:] == ["extraction", "run_finished"]
    # the resolution, then the separate report-shape extraction turn (issue 13)
    assert stored[-5:-2] == ["resolution", "turn_started", "turn_finished"]


async def test_c2_custom_roster_and_rounds_from_the_study(run_conditions, server):
    extra = '''
[architectures.C2]
debate_rounds = 1
max_amendments = 0
mover = "engineer"

[[architectures.C2.roster]]
id = "moderator"
name = "Moderator"
brief = "You moderate and do not vote."
chair = true

[[architectures.C2.roster]]
id = "engineer"
name = "Engineer"
brief = "You know how the system is built."

[[architectures.C2.roster]]
id = "lawyer"
name = "Lawyer"
brief = "You know the law."
'''
    summary, events, db = await run_conditions("C2", extra=extra)
    # question + 2 openings + motion + 1 second + 1 round x 2 + main vote 2 + resolution
    assert server.count == 11  # + the report-shape extraction (issue 13)
    systems = {b["messages"][0]["content"].split(" on a committee")[0] for b in server.requests
               if "the sentences of the response that state" not in b["messages"][-1]["content"]}
    assert systems == {"You are the Moderator", "You are the Engineer", "You are the Lawyer"}
    moved = [e for e in events if e.kind == "amendment"]
    assert [e.payload["status"] for e in moved] == []  # the engineer and lawyer move no amendment here
    assert next(e for e in events if e.kind == "motion").agent == "engineer"


async def test_c2_amendments_beyond_the_limit_are_ruled_out(run_conditions, server):
    summary, events, db = await run_conditions("C2", extra="[architectures.C2]\nmax_amendments = 0\n")
    amendments = [e for e in events if e.kind == "amendment"]
    assert [e.payload["status"] for e in amendments] == ["ruled_out"]
    assert not requests_with(server, "puts amendment")
    assert server.count == 26  # no amendment vote, no restatement, one vote asked again; + the extraction


async def test_the_report_counts_unreadable_votes_per_condition(run_conditions, server):
    """The Mediator's main-motion vote stays unreadable after its retry: the study's counts (the report's and
    `metrics`'s one definition) say so per condition, once unblinded, and never count it as a vote."""
    from workbench.protocols.hindsight.metrics.analysis import study_counts
    from workbench.protocols.hindsight.metrics.render import COUNT_LABELS
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.scoring.unblind import unblind

    summary, events, db = await run_conditions("C2")
    blind = study_counts(load_study_data(db, "arch-study"))
    assert blind["votes_unreadable"] == {"all": 1} and blind["seconds_unreadable"] == {"all": 0}
    unblind(db, "arch-study", by="test", force=True, reason="the counts per condition are under test")
    counts = study_counts(load_study_data(db, "arch-study"))
    assert counts["votes_given"] == {"C2": 10} and counts["votes_unreadable"] == {"C2": 1}
    assert counts["seconds_given"] == {"C2": 2} and counts["seconds_unreadable"] == {"C2": 0}
    assert "never counted as a vote" in COUNT_LABELS["votes_unreadable"]
