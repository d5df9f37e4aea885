"""B1 single LLM: one prompt, one response (seed 000 §V)."""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import FinalOutput, RunContext, final_output, situation, user
from workbench.protocols.hindsight.architectures.prompts import B1_PROMPT
from workbench.protocols.hindsight.architectures.report import REPORT_INSTRUCTION

CONDITION = "B1"
TITLE = "Single LLM"


def expected_calls(options: dict) -> int:
    return 1


async def run(ctx: RunContext) -> FinalOutput:
    prompt = B1_PROMPT.format(situation=situation(ctx), report=REPORT_INSTRUCTION)
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label="Answer")
    return final_output(text)
