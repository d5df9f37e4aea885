"""B1, B2, B3 end to end against the loopback server: the seed's prompt exactly, then the copying
extraction; the report stored."""

from __future__ import annotations

import json

import pytest

from store.calls import calls_for
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
async def test_the_seed_prompt_exactly_then_a_copying_extraction(run_conditions, server, condition):
    """Issue 13: the model gets the seed's prompt and nothing else (no report layout, no RISKS heading
    asked of B1); the common shape comes from a second, logged call that only copies sentences."""
    summary, events, db = await run_conditions(condition)
    assert server.count == 2
    prompt = server.requests[0]["messages"][-1]["content"]
    assert prompt == f"Situation:\n\n{CASES['toll-bridge']['scenario']}\n\n{SEED_PROMPTS[condition]}"
    assert "RISKS" not in prompt and REPORT_INSTRUCTION not in prompt
    assert server.requests[0]["temperature"] == 0.7 and server.requests[0]["seed"] == 7
    extraction = server.requests[1]
    assert "the sentences of the response that state" in extraction["messages"][-1]["content"]
    assert extraction["temperature"] == 0.0
    (run,) = list_runs(db, "arch-study")
    assert run["status"] == "done" and run["input_tokens"] > 0 and run["output_tokens"] > 0
    output = get_output(db, run["id"])
    assert output["report"]["recommendation"] == "Resist the demands and disclose the threat."
    assert output["report"]["risks"] == ["A funding campaign against the organization", "Regulatory action"]
    assert output["report"]["missing"] == []
    assert output["report"]["extraction"] == {"shape": "extract", "status": "ok", "sentences": 5}
    # the extraction is logged like any call: it is in the study's call log with its own turn
    assert [c["turn"] for c in calls_for(db, run_id=run["id"])] == ["answer", "extract"]
    stored = [e["kind"] for e in events_for_run(db, run["id"])]
    expected = ["run_started", "turn_started", "turn_finished"]
    expected += ["perspective"] * 3 if condition == "B3" else []
    assert stored == expected + ["turn_started", "turn_finished", "extraction", "run_finished"]
    # tokens go to live consumers only
    assert "token" in [e.kind for e in events] and "token" not in stored
    assert summary.complete and summary.network_calls == 2


async def test_an_extraction_that_adds_a_sentence_is_refused(run_conditions, server):
    def answer(body):
        last = body["messages"][-1]["content"]
        if "the sentences of the response that state" in last:  # an extractor that invents a risk
            return json.dumps({"recommendation": ["Resist the demands."], "reasoning": [],
                               "risks": ["A hostile takeover of the board."], "confidence": []})
        return "Resist the demands. Conceding invites more demands."
    server.responder = answer
    summary, events, db = await run_conditions("B1")
    (run,) = list_runs(db, "arch-study")
    report = get_output(db, run["id"])["report"]
    assert report["extraction"]["status"] == "refused"
    assert report["extraction"]["added"] == ["A hostile takeover of the board."]
    # refused means nothing of the reply is kept, not even the sentence that was a true copy
    assert report["recommendation"] == "" and report["risks"] == [] and len(report["missing"]) == 4
    assert get_output(db, run["id"])["text"] == "Resist the demands. Conceding invites more demands."
    assert next(e for e in events if e.kind == "extraction").payload["status"] == "refused"


async def test_the_old_instruction_is_a_preregistered_option(run_conditions, server):
    summary, events, db = await run_conditions("B1", extra='[hindsight]\nreport_shape = "instruction"\n')
    assert server.count == 1
    prompt = server.requests[0]["messages"][-1]["content"]
    assert prompt.endswith(REPORT_INSTRUCTION) and SEED_PROMPTS["B1"] in prompt
    (run,) = list_runs(db, "arch-study")
    report = get_output(db, run["id"])["report"]
    assert report["extraction"] == {"shape": "instruction"} and report["missing"] == []


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
