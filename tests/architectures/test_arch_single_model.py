"""B1, B2, B3 end to end against the loopback server: one call each, the seed's prompt, the report stored."""

from __future__ import annotations

import pytest

from store.events import events_for_run
from store.outputs import get_output
from store.runs import list_runs
from tests.runner.studykit import CASES
from workbench.protocols.hindsight.architectures.report import REPORT_INSTRUCTION

SEED_PROMPTS = {
    "B1": "Given this situation, what should we do? Explain your reasoning.",
    "B2": "Think step by step. What are the key factors? What are the risks? What do you recommend?",
    "B3": "Give 3-5 genuinely different perspectives on this decision, then synthesize a recommendation.",
}


@pytest.mark.parametrize("condition", ["B1", "B2", "B3"])
async def test_one_call_with_the_seed_prompt_and_the_report_stored(run_conditions, server, condition):
    summary, events, db = await run_conditions(condition)
    assert server.count == 1
    prompt = server.requests[0]["messages"][-1]["content"]
    assert SEED_PROMPTS[condition] in prompt
    assert CASES["toll-bridge"]["scenario"] in prompt
    assert prompt.endswith(REPORT_INSTRUCTION)
    assert server.requests[0]["temperature"] == 0.7 and server.requests[0]["seed"] == 7
    (run,) = list_runs(db, "arch-study")
    assert run["status"] == "done" and run["input_tokens"] > 0 and run["output_tokens"] > 0
    output = get_output(db, run["id"])
    assert output["report"]["recommendation"] == "Resist the demands and disclose the threat."
    assert output["report"]["risks"] == ["A funding campaign against the organization", "Regulatory action"]
    assert output["report"]["missing"] == []
    stored = [e["kind"] for e in events_for_run(db, run["id"])]
    expected = ["run_started", "turn_started", "turn_finished"]
    expected += ["perspective"] * 3 if condition == "B3" else []
    assert stored == expected + ["run_finished"]
    # tokens go to live consumers only
    assert "token" in [e.kind for e in events] and "token" not in stored
    assert summary.complete and summary.network_calls == 1


async def test_b3_emits_each_perspective_in_generation_order(run_conditions):
    summary, events, db = await run_conditions("B3")
    persp = [e for e in events if e.kind == "perspective"]
    assert [e.payload["order"] for e in persp] == [1, 2, 3]
    assert [e.payload["title"] for e in persp] == ["Operators", "Regulators", "The public"]
    assert all(e.payload["parallel"] is False for e in persp)
    assert persp[1].payload["text"] == "The law forbids selective exemptions."
    # the synthesis and the report are not part of the last perspective
    assert "SYNTHESIS" not in persp[2].payload["text"] and "RECOMMENDATION" not in persp[2].payload["text"]


async def test_b3_without_headings_is_one_unparsed_perspective(run_conditions, server):
    server.responder = lambda body: "A single block of prose with no headings at all."
    summary, events, db = await run_conditions("B3")
    persp = [e for e in events if e.kind == "perspective"]
    assert len(persp) == 1
    assert persp[0].payload["unparsed"] is True
    assert persp[0].payload["text"] == "A single block of prose with no headings at all."
    # a reply with no report is stored as it is, its report marked missing rather than invented
    (run,) = list_runs(db, "arch-study")
    report = get_output(db, run["id"])["report"]
    assert report["recommendation"] == "" and report["missing"] == ["recommendation", "reasoning", "risks",
                                                                   "confidence"]
