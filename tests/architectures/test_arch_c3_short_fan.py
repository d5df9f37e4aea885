"""C3: a fan that returns fewer scenarios than asked is flagged, not only an empty one (issue 25 item 5)."""

from __future__ import annotations


async def test_a_fan_short_of_scenarios_is_flagged_with_asked_and_got(run_conditions, server):
    summary, events, db = await run_conditions("C3", extra="[architectures.C3]\nscenarios = 6\n")
    scenarios = [e.payload for e in events if e.kind == "scenario"]
    assert len(scenarios) == 4   # the scripted fan writes four
    assert all(s["short"] and (s["asked"], s["got"]) == (6, 4) for s in scenarios)
    assert "returned 4 of the 6 scenarios" in scenarios[0]["note"]


async def test_a_full_fan_is_not_flagged(run_conditions, server):
    summary, events, db = await run_conditions("C3")
    assert not any(e.payload.get("short") for e in events if e.kind == "scenario")
