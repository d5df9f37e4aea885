"""C2 seconding under Robert's Rules (issue 30): a motion or an amendment nobody seconds dies, is minuted and is
neither debated nor voted on; a seconded one goes on. Both ways, for the main motion and for an amendment."""

from __future__ import annotations

from tests.runner.studykit import requests_with, role_of, scripted

DECLINE = "SECOND: no\nI do not think it deserves the committee's time."


def declining(what: str, *, but: str | None = None):
    """The scripted committee, whose members decline to second `what` ("motion" or "amendment"), except the
    member named `but`."""
    def reply(body: dict) -> str:
        last = body["messages"][-1]["content"]
        if f"Do you second the {what}" in last and role_of(body["messages"][0]["content"]) != but:
            return DECLINE
        return scripted(body)

    return reply


async def test_an_unseconded_motion_dies_is_minuted_and_the_next_member_moves(run_conditions, server):
    # nobody seconds the proposer's motion; the devil's advocate, called on next, moves one the examiner seconds
    def reply(body: dict) -> str:
        last = body["messages"][-1]["content"]
        role = role_of(body["messages"][0]["content"])
        if "Do you second the motion" in last:
            moved_by_proposer = "The Proposer has moved" in last
            return DECLINE if moved_by_proposer or role != "Examiner" else "SECOND: yes\nLet us debate it."
        return scripted(body)

    server.responder = reply
    summary, events, db = await run_conditions("C2")
    motions = [e for e in events if e.kind == "motion"]
    assert [(e.agent, e.payload.get("status")) for e in motions[:3]] == [
        ("proposer", None), ("chair", "died"), ("devils-advocate", None)]
    seconds = [(e.agent, e.payload["seconded"]) for e in events if e.kind == "second" and e.payload["on"] == "motion"]
    # the proposer's motion: asked of all four others, in roster order after it; the devil's advocate's: the
    # first member after it seconds
    assert seconds == [("devils-advocate", False), ("examiner", False), ("mediator", False), ("arbiter", False),
                       ("examiner", True)]
    debate = requests_with(server, "Debate, round 1")
    assert debate and all("died for want of a second" in b["messages"][-1]["content"] for b in debate)
    assert next(e for e in events if e.kind == "resolution").payload["carried"] is True


async def test_when_every_motion_dies_there_is_no_debate_and_no_vote(run_conditions, server):
    server.responder = declining("motion")
    summary, events, db = await run_conditions("C2")
    assert not requests_with(server, "Debate, round") and not requests_with(server, "VOTE: aye")
    died = [e for e in events if e.kind == "motion" and e.payload.get("status") == "died"]
    assert len(died) == 2  # motion_attempts defaults to 2
    resolution = next(e for e in events if e.kind == "resolution").payload
    assert resolution["no_motion"] is True and resolution["carried"] is False and resolution["motion"] is None
    report = requests_with(server, "No motion was seconded")
    assert len(report) == 1 and report[0]["messages"][-1]["content"].count("died for want of a second") == 2
    assert [r["status"] for r in db["runs"].rows] == ["done"]


async def test_a_seconded_amendment_is_voted_on(run_conditions, server):
    server.responder = declining("amendment", but="Arbiter")
    summary, events, db = await run_conditions("C2")
    seconds = [(e.agent, e.payload["seconded"]) for e in events
               if e.kind == "second" and e.payload["on"] == "amendment 1"]
    # the devil's advocate moved it: asked in roster order after it, until the arbiter seconds
    assert seconds == [("examiner", False), ("mediator", False), ("arbiter", True)]
    assert len(requests_with(server, "puts amendment 1")) == 5
    assert next(e for e in events if e.kind == "amendment" and e.turn is None).payload["status"] == "adopted"


async def test_an_unseconded_amendment_dies_without_a_vote(run_conditions, server):
    server.responder = declining("amendment")
    summary, events, db = await run_conditions("C2")
    assert not requests_with(server, "puts amendment")
    assert not requests_with(server, "restate the main motion as amended")
    ruled = next(e for e in events if e.kind == "amendment" and e.turn is None).payload
    assert ruled["status"] == "died" and ruled["text"] == "disclose only after a legal review"
    resolution_prompt = requests_with(server, "write the committee's resolution")[0]["messages"][-1]["content"]
    assert "AMENDMENT 1, moved by the Devil's advocate, died for want of a second" in resolution_prompt
    assert next(e for e in events if e.kind == "resolution").payload["motion"] == \
        "Resist the demands and disclose the threat publicly."
