"""P1 probe (seed 000 §V, §VII Metric 3): the C2 committee run three times on one case.

Each of the three is its own run (replicates 0, 1, 2), with its own draw in
the gateway so no call is ever served from another run's: P1's draws are
100, 101, 102 (C2's own runs use 0..replicates-1), and with a fixed seed each
draw uses seed + draw. When all three are done the runner classifies the
case as Basin / Ridge / Plateau (workbench/architectures/topology.py).
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures import c2
from workbench.protocols.hindsight.architectures.base import FinalOutput, RunContext

CONDITION = "P1"
TITLE = "Probe: three C2 committees"
DRAW_OFFSET = 100
RUNS = 3


def replicates(study_replicates: int) -> list[int]:
    """Always three committees, whatever the study's replicate count."""
    return list(range(RUNS))


SEED_TEXT = "Run C2 three times on the same case; analyze convergence vs. divergence across runs."


def prompts(options: dict) -> list[tuple[str, str, str]]:
    return c2.prompts(options)


def expected_calls(options: dict) -> int:
    return c2.expected_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    return await c2.Committee(ctx).deliberate()
