"""What an architecture program gets: the run's context and the one way to take an agent turn.

An architecture module (b1.py, c2.py, ...) defines:

    CONDITION = "B1"                      # the registry key
    TITLE = "Single LLM"
    async def run(ctx: RunContext) -> FinalOutput
    def expected_calls(options: dict) -> int          # for progress and ETA
    # optional:
    def check_options(raw, path, bad) -> dict         # its [architectures.X] table, defaults filled
    def prompts(options) -> [(name, text, origin)]    # what it sends, for the cue audit (origin seed|project)
    SEED_TEXT = "..."                                 # the seed's own description of the condition (§V)
    def replicates(study_replicates: int) -> list[int]
    DRAW_OFFSET = 0                                   # see RunContext.draw

`ctx.turn(...)` calls the gateway and emits turn_started, then (from the
gateway) token events, then turn_finished with the full text, or turn_failed.
`ctx.emit(kind, ...)` adds protocol events (perspective, motion, vote, ...).
"""

from __future__ import annotations

from workbench.runs.context import (  # the shared run machinery every protocol's programs use
    RunContext,
    RunOutput,
    TurnStats,
    draw_settings,
    parallel,
    system,
    user,
)
from workbench.runs.control import RunCancelled

FinalOutput = RunOutput  # a hindsight condition's output: the text and its parsed report


def check_int_options(raw: dict, path: str, bad, limits: dict[str, tuple[int, int, int]],
                      known: tuple[str, ...] = ()) -> dict[str, int]:
    """A condition's integer options from its `[architectures.X]` table: {key: (default, low, high)}.
    Unknown keys (outside `limits` and `known`) and out-of-range values are reported through `bad`,
    and a bad value falls back to its default so the rest can still be checked."""
    allowed = (*known, *limits)
    for key in raw:
        if key not in allowed:
            bad(f"{path}.{key}", f"unknown key; known keys here: {', '.join(allowed)}")
    out = {}
    for key, (default, lo, hi) in limits.items():
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            bad(f"{path}.{key}", f"must be an integer from {lo} to {hi}")
            value = default
        out[key] = value
    return out


def check_choice(raw: dict, path: str, bad, key: str, choices, default: str, why: str) -> str:
    """A condition's named option from its `[architectures.X]` table (one of `choices`); a bad value is reported
    through `bad`, with `why` (what the choices mean), and falls back to the default."""
    value = raw.get(key, default)
    if value not in choices:
        bad(f"{path}.{key}", f"must be one of {', '.join(choices)} ({why})")
        value = default
    return value


def situation(ctx: RunContext) -> str:
    """The scenario as every condition shows it."""
    from workbench.protocols.hindsight.architectures.prompts import SITUATION

    return SITUATION.format(scenario=ctx.scenario.strip())


def common_prompts(options: dict) -> list[tuple[str, str, str]]:
    """The prompt text every condition sends (the cue audit's view): the scenario's frame and, under
    `report_shape = "instruction"`, the report instruction appended to every final step."""
    from workbench.protocols.hindsight.architectures.extraction import instruction
    from workbench.protocols.hindsight.architectures.prompts import SITUATION

    extra = instruction(options).strip()
    return [("prompts.SITUATION", SITUATION, "project")] + ([("report.REPORT_INSTRUCTION", extra, "project")]
                                                            if extra else [])


def report_request(ctx: RunContext) -> str:
    """What a condition's final step appends: nothing (the seed's prompts as they are), or the report
    instruction when the study pre-registered `report_shape = "instruction"`."""
    from workbench.protocols.hindsight.architectures.extraction import instruction

    return instruction(ctx.options)


async def final_output(ctx: RunContext, text: str) -> FinalOutput:
    """The condition's output and its report in the common shape (extraction.py)."""
    from workbench.protocols.hindsight.architectures.extraction import finish

    return await finish(ctx, text)


async def one_answer(ctx: RunContext, template: str, label: str) -> FinalOutput:
    """A single-prompt condition (B1, B2): the seed's template with the situation, one turn, its output."""
    prompt = template.format(situation=situation(ctx), report=report_request(ctx))
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label=label)
    return await final_output(ctx, text)


__all__ = ["FinalOutput", "RunCancelled", "RunContext", "TurnStats", "check_choice", "common_prompts", "draw_settings",
           "final_output", "one_answer",
           "parallel",
           "report_request", "situation",
           "system", "user"]
