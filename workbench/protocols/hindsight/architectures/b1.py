"""B1 single LLM: one prompt, one response (seed 000 §V)."""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, common_prompts, final_output, report_request, situation, user,
)
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.prompts import B1_PROMPT

CONDITION = "B1"
TITLE = "Single LLM"


SEED_TEXT = ('One prompt, one response: "Given this situation, what should we do? Explain your reasoning."')


def prompts(options: dict) -> list[tuple[str, str, str]]:
    return common_prompts(options) + [("prompts.B1_PROMPT", B1_PROMPT, "seed")]


def expected_calls(options: dict) -> int:
    return 1 + extra_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    prompt = B1_PROMPT.format(situation=situation(ctx), report=report_request(ctx))
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label="Answer")
    return await final_output(ctx, text)
