"""C3 (scenario fan, then the committee) and P1 (three committees, then topology) end to end."""

from __future__ import annotations

from store.calls import calls_for
from store.outputs import get_output
from store.runs import list_runs
from store.topology import get_topology
from tests.runner.studykit import requests_with


async def test_c3_fans_out_scenarios_then_the_committee_deliberates_over_them(run_conditions, server):
    summary, events, db = await run_conditions("C3")
    assert server.count == 34  # the fan, the full C2 meeting (one amendment seconded, one vote asked again), the extraction
    scenarios = [e for e in events if e.kind == "scenario"]
    assert [e.payload["order"] for e in scenarios] == [1, 2, 3, 4]
    assert [e.payload["title"] for e in scenarios] == ["Path 1", "Path 2", "Path 3", "Path 4"]
    fan = requests_with(server, "divergent scenarios")
    assert len(fan) == 1 and "tail risk" not in fan[0]["messages"][-1]["content"]  # issue 30: no rubric cue
    extraction = requests_with(server, "the sentences of the response that state")
    assert len(extraction) == 1
    committee = [b for b in server.requests if b is not fan[0] and b is not extraction[0]]
    for body in committee:  # every committee prompt carries every scenario
        text = body["messages"][-1]["content"]
        assert all(s.payload["text"] in text for s in scenarios)
        assert "holds up across all of these scenarios" in text
    kinds = [e.kind for e in events if e.kind in ("scenario", "question", "resolution")]
    assert kinds == ["scenario"] * 4 + ["question", "resolution"]
    (run,) = list_runs(db, "arch-study")
    assert get_output(db, run["id"])["report"]["recommendation"]


async def test_c3_scenario_count_from_the_study(run_conditions, server):
    await run_conditions("C3", extra="[architectures.C3]\nscenarios = 6\n")
    assert "generate 6 divergent scenarios" in requests_with(server, "divergent scenarios")[0]["messages"][-1]["content"]


async def test_p1_three_independent_committees_then_topology(run_conditions, server):
    summary, events, db = await run_conditions("P1")
    runs = list_runs(db, "arch-study")
    assert [(r["condition"], r["replicate"], r["status"]) for r in runs] == [("P1", i, "done") for i in range(3)]
    # three meetings (each with its report extraction, and one unreadable vote asked again), three extractions,
    # one comparison
    assert server.count == 3 * 33 + 4
    # each committee is its own draw: replicate 100..102 in the log and seed 7 + draw at the model
    for r in runs:
        calls = calls_for(db, run_id=r["id"])
        assert {c["replicate"] for c in calls} == {100 + r["replicate"]}
    seeds = sorted({b["seed"] for b in server.requests if "Group the runs" not in b["messages"][-1]["content"]
                    and "Extract its primary" not in b["messages"][-1]["content"]
                    and "the sentences of the response that state" not in b["messages"][-1]["content"]})
    assert seeds == [107, 108, 109]
    outputs = {get_output(db, r["id"])["text"] for r in runs}
    assert len(outputs) == 3  # three different meetings, never collapsed into one

    extractions = requests_with(server, "Extract its primary recommendation")
    assert len(extractions) == 3 and all(b["temperature"] == 0.0 for b in extractions)
    assert {o for o in outputs} == {b["messages"][-1]["content"].split("<<<OUTPUT\n")[1].split("\nOUTPUT>>>")[0]
                                    for b in extractions}
    topo = get_topology(db, "arch-study", "toll-bridge")
    assert topo["pattern"] == "Basin"
    assert topo["convergent_recommendation"] == "Resist the demands"
    assert [r["run_id"] for r in topo["detail"]["runs"]] == [r["id"] for r in runs]
    event = next(e for e in events if e.kind == "topology")
    assert event.payload["pattern"] == "Basin" and event.payload["case_id"] == "toll-bridge"
    assert summary.topology == [{"case_id": "toll-bridge", "condition": "P1", "pattern": "Basin",
                                 "switching_assumption": None, "convergent_recommendation": "Resist the demands"}]


async def test_p1_unreadable_extraction_is_stored_as_an_error_not_guessed(run_conditions, server):
    def reply(body):
        from tests.runner.studykit import scripted

        if "Extract its primary recommendation" in body["messages"][-1]["content"]:
            return "The recommendation is to resist, I think."
        return scripted(body)

    server.responder = reply
    summary, events, db = await run_conditions("P1")
    topo = get_topology(db, "arch-study", "toll-bridge")
    assert topo["pattern"] == "Unclassified"
    assert topo["detail"]["errors"] == [f"run {x}: the reply is not a JSON object" for x in "ABC"]
    assert topo["detail"]["runs"][0]["raw"] == "The recommendation is to resist, I think."
    assert not requests_with(server, "Group the runs")  # nothing to compare
    assert summary.complete  # an unclassifiable case is a result, not a failure


async def test_p1_topology_extraction_has_room_for_the_output_it_copies(run_conditions, server):
    """The extraction copies a recommendation and claims out of a committee's output: its max_tokens follows the
    output's length (runs/truncation.room_to_copy), as the report extraction's does, not the study's 256."""
    from tests.runner.studykit import scripted

    long_tail = " ".join(f"Risk {i}: a ferry blockade lasting {i} weeks cuts the island's freight." for i in range(60))

    def long_resolutions(body):
        text = scripted(body)
        if "write the committee's resolution" in body["messages"][-1]["content"]:
            return f"{text}\n{long_tail}"
        return text

    server.responder = long_resolutions
    await run_conditions("P1")
    extractions = requests_with(server, "Extract its primary recommendation")
    assert len(extractions) == 3
    for body in extractions:
        output = body["messages"][-1]["content"].split("<<<OUTPUT\n")[1].split("\nOUTPUT>>>")[0]
        assert long_tail in output
        assert body["max_tokens"] == len(output) // 3 + 256 > 256
    compare = requests_with(server, "Group the runs whose recommendations")
    assert [b["max_tokens"] for b in compare] == [256]  # it writes labels, copies nothing: the study's own


async def test_c3_tail_risk_fan_is_a_preregistered_option(run_conditions, server):
    await run_conditions("C3", extra='[architectures.C3]\nfan = "tail-risk"\n')
    assert "tail risk" in requests_with(server, "divergent scenarios")[0]["messages"][-1]["content"]
    assert requests_with(server, "including the tail risks")
