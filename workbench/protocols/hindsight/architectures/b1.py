"""B1 single LLM: one prompt, one response (seed 000 §V)."""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import FinalOutput, RunContext, common_prompts, one_answer
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
    return await one_answer(ctx, B1_PROMPT, label="Answer")
