"""C2 amendments that change something (issue 25 item 2): one that repeats the motion or an amendment
already moved is ruled out of order with a line in the minutes and no vote; one copied from the minutes
is the quoted member's, not the speaker's; the plan counts amendment seconds and votes up to the limit."""

from __future__ import annotations

from tests.runner.studykit import requests_with, role_of, scripted
from workbench.protocols.hindsight.architectures import c2
from workbench.protocols.hindsight.architectures.lines import own_and_quoted, same_text

MOTION = "Resist the demands and disclose the threat publicly."

# What each member says in debate, after its speech (the replies the real run produced, in shape)
DEBATE_LINES = {
    ("Risk analyst", 1): "AMENDMENT: disclose only after a legal review",
    ("Devil's advocate", 1): "AMENDMENT:   resist the demands and  DISCLOSE the threat publicly",   # the motion
    ("Domain operator", 1): ("I agree with the analyst:\n\n[Risk analyst, debate round 1]\n"
                             "AMENDMENT: disclose only after a legal review"),                   # copied
    ("Stakeholder advocate", 2): "AMENDMENT: Disclose only after a legal review.",              # moved already
    ("Strategist", 2): "AMENDMENT: brief the regulator before the public",
}


def noisy(body: dict) -> str:
    text = scripted(body)
    last = body["messages"][-1]["content"]
    if "Debate, round" in last:
        role = role_of(body["messages"][0]["content"])
        rnd = 1 if "round 1 of" in last else 2
        text = f"Debate speech of the {role}."
        extra = DEBATE_LINES.get((role, rnd))
        if extra:
            text += "\n" + extra
    return text


def test_own_words_leave_out_a_copied_speech_and_markdown_quotes():
    reply = ("My view.\n[Devil's advocate, debate round 1]\nAMENDMENT: theirs\n\nAMENDMENT: mine\n"
             "> AMENDMENT: quoted too\n[Domain operator, debate round 2]\nAMENDMENT: mine again")
    own, quoted = own_and_quoted(reply, "Domain operator")
    assert "AMENDMENT: mine" in own and "mine again" in own and "theirs" not in own
    assert "AMENDMENT: theirs" in quoted and "quoted too" in quoted


def test_sameness_folds_case_whitespace_and_wrapping_only():
    assert same_text("  Resist the  demands.") == same_text('"resist the demands"') == "resist the demands"
    assert same_text("resist the demands now") != same_text("resist the demands")


async def test_no_op_amendments_are_ruled_out_without_a_vote_and_quotes_are_not_moved(run_conditions, server):
    server.responder = noisy  # the roster the replies were captured under
    summary, events, db = await run_conditions("C2", extra='[architectures.C2]\nroster = "content-briefs"\n')
    amendments = [e.payload for e in events if e.kind == "amendment" and e.turn]
    by_status = [(a["status"], a["name"]) for a in amendments]
    assert by_status == [("moved", "Risk analyst"), ("ruled_out", "Devil's advocate"),
                         ("quoted", "Domain operator"), ("ruled_out", "Stakeholder advocate"),
                         ("moved", "Strategist")]
    assert "repeats the motion" in amendments[1]["note"]
    assert "repeats amendment 1" in amendments[3]["note"]
    assert [a["number"] for a in amendments if a["status"] == "moved"] == [1, 2]
    # two seconds and two votes of five members, not four
    assert len(requests_with(server, "Do you second the amendment")) == 2
    assert len(requests_with(server, "puts amendment")) == 2 * 5
    resolution_prompt = requests_with(server, "write the committee's resolution")[0]["messages"][-1]["content"]
    assert resolution_prompt.count("ruled out of order") == 2 and "no vote was held" in resolution_prompt
    # the plan holds the calls made: the committee may second and vote on up to max_amendments (3) amendments
    from workbench.protocols.hindsight.architectures.extraction import extra_calls

    planned = c2.expected_calls({})
    assert planned == 1 + 5 + 1 + 1 + 2 * 5 + 5 + 1 + extra_calls({}) + 3 * (1 + 5) + 1
    assert server.count <= planned and [r["status"] for r in db["runs"].rows] == ["done"]

def test_the_plan_counts_amendment_votes_up_to_the_limit():
    def plan(**opts):
        return c2.expected_calls({"C2": c2.check_options(opts, "architectures.C2", _bad)})

    base = plan(max_amendments=0)
    assert plan(max_amendments=1) == base + 1 + 5 + 1      # one second, a vote of five members, one restatement
    assert plan(max_amendments=3) == base + 3 * (1 + 5) + 1
    assert plan(max_amendments=3, debate_rounds=0) == plan(max_amendments=0, debate_rounds=0)  # no debate


def _bad(key, message):
    raise AssertionError(f"{key}: {message}")
