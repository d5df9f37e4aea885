"""P1's topology steps: a reply cut at max_tokens is a named state (issue 40), counted as cut (not unparsed) under
its step and asked once more with twice the max_tokens (workbench/structured/cut.py's rule), which the loopback
server receives; a reply still cut is the case's error, named cut, never asked again unchanged."""

from __future__ import annotations

from store.topology import get_topology
from tests.runner.studykit import requests_with, scripted
from tests.support.loopback import Reply
from workbench.studies.counts import study_counts
from workbench.structured.counts import parse_counts

EXTRACT, COMPARE = "Extract its primary recommendation", "Group the runs whose recommendations"


def copied(body: dict) -> str:
    return body["messages"][-1]["content"].split("<<<OUTPUT\n")[1].split("\nOUTPUT>>>")[0]


def cut_topology(body: dict):
    """An extraction needs more than its first ask's room (the output's length / 3 + 256); a comparison never
    fits: asked for less, the reply stops mid-object, as a server stops at max_tokens."""
    whole, prompt = scripted(body), body["messages"][-1]["content"]
    if (EXTRACT in prompt and body["max_tokens"] <= len(copied(body)) // 3 + 256) or COMPARE in prompt:
        return Reply.text(whole[: len(whole) // 2], finish_reason="length")
    return whole


async def test_a_cut_topology_reply_is_counted_cut_and_asked_again_with_more_room(run_conditions, server):
    server.responder = cut_topology
    summary, events, db = await run_conditions("P1")
    extractions = requests_with(server, EXTRACT)
    firsts = {copied(b): b["max_tokens"] for b in extractions[:3]}
    assert sorted(b["max_tokens"] for b in extractions[3:]) == sorted(2 * m for m in firsts.values())
    assert all(b["max_tokens"] == 2 * firsts[copied(b)] for b in extractions[3:])    # the same ask, more room
    assert [b["max_tokens"] for b in requests_with(server, COMPARE)] == [256, 512]   # cut again: not a third ask
    topo = get_topology(db, "arch-study", "toll-bridge")
    assert [r["error"] for r in topo["detail"]["runs"]] == [None] * 3                # mended by the room
    assert topo["pattern"] == "Unclassified"
    assert topo["detail"]["errors"] == ["comparison: cut at max_tokens: the reply is not a JSON object"]
    counts = {c["step"]: c for c in parse_counts(db, "arch-study")}
    assert {s: (counts[s]["cut"], counts[s]["cut_asked_again"], counts[s]["parsed"], counts[s]["unparsed"])
            for s in ("P1 topology extraction", "P1 topology comparison")} == {
        "P1 topology extraction": (3, 3, 3, 0), "P1 topology comparison": (2, 1, 0, 0)}
    assert study_counts(db, "arch-study").cut_text() == (
        "structured replies cut at max_tokens: 5 (P1 topology comparison 2, P1 topology extraction 3); 4 asked "
        "again with a larger max_tokens, 1 with no room left in the model's window or no attempt left")
    started = [e for e in events if e.kind == "turn_started" and e.turn == "topology:toll-bridge:compare:retry"]
    assert "asked again with max_tokens 512" in started[0].payload["retry_reason"]
