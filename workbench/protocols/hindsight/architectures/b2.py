"""B2 chain-of-thought: one model, asked to reason step by step (seed 000 §V)."""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import FinalOutput, RunContext, common_prompts, one_answer
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.prompts import B2_PROMPT

CONDITION = "B2"
TITLE = "Chain-of-thought"


SEED_TEXT = ('Single LLM with structured reasoning: "Think step by step. What are the key factors? What are the risks? What do you recommend?"')


def prompts(options: dict) -> list[tuple[str, str, str]]:
    return common_prompts(options) + [("prompts.B2_PROMPT", B2_PROMPT, "seed")]


def expected_calls(options: dict) -> int:
    return 1 + extra_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    return await one_answer(ctx, B2_PROMPT, label="Step-by-step answer")
