"""C1 hub-and-spoke committee (seed 000 §V): N independent respondents answer in parallel, each
seeing the scenario only, never each other nor the coordinator; the coordinator frames the
decision before their answers come in and synthesizes them. `framing = "respondents"`
(pre-registered, the project's design before issue 30) shows the framing to every respondent.

Respondents' answers are `perspective` events with order 1 and parallel = true
(seed 001 §2.2: parallel generation removes anchoring by construction).
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, check_choice, check_int_options, common_prompts, final_output, parallel, report_request, situation,
    system, user,
)
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.prompts import (
    C1_ANSWER,
    C1_COORDINATOR_SYSTEM,
    C1_COORDINATOR_SYSTEM_FRAMED,
    C1_FRAME,
    C1_FRAME_FRAMED,
    C1_RESPOND,
    C1_RESPOND_FRAMED,
    C1_RESPONDENT_SYSTEM,
    C1_SYNTHESIZE,
)

CONDITION = "C1"
TITLE = "Hub-and-spoke committee"
DEFAULTS = {"respondents": 5}
# who reads the coordinator's framing -> (coordinator system, framing prompt, respondent prompt)
FRAMINGS = {"synthesis": (C1_COORDINATOR_SYSTEM, C1_FRAME, C1_RESPOND),
            "respondents": (C1_COORDINATOR_SYSTEM_FRAMED, C1_FRAME_FRAMED, C1_RESPOND_FRAMED)}
DEFAULT_FRAMING = "synthesis"


def check_options(raw: dict, path: str, bad) -> dict:
    out: dict = check_int_options(raw, path, bad, {"respondents": (DEFAULTS["respondents"], 1, 20)},
                                  known=("framing",))
    out["framing"] = check_choice(raw, path, bad, "framing", FRAMINGS, DEFAULT_FRAMING,
                                  "\"respondents\": every respondent reads the coordinator's framing first, a "
                                  "deviation the report prints")
    return out


def framing_of(options: dict) -> str:
    """Who reads the framing; a definition frozen before the option showed it to the respondents, and keeps
    doing so on resume."""
    return (options.get("C1") or {}).get("framing", "respondents")


SEED_TEXT = ("Central coordinator distributes the question to 5 independent respondents, then synthesizes. "
             "Respondents do not see each other's outputs.")


def prompts(options: dict) -> list[tuple[str, str, str]]:
    names = ("C1_COORDINATOR_SYSTEM", "C1_FRAME", "C1_RESPOND")
    suffix = "_FRAMED" if framing_of(options) == "respondents" else ""
    chosen = [(f"prompts.{n}{suffix}", t, "project") for n, t in zip(names, FRAMINGS[framing_of(options)])]
    return common_prompts(options) + chosen + [("prompts.C1_RESPONDENT_SYSTEM", C1_RESPONDENT_SYSTEM, "project"),
                                               ("prompts.C1_SYNTHESIZE", C1_SYNTHESIZE, "project")]


def expected_calls(options: dict) -> int:
    return options.get("C1", DEFAULTS)["respondents"] + 2 + extra_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    n = ctx.options.get("C1", DEFAULTS)["respondents"]
    sit = situation(ctx)
    coordinator_system, frame, respond_prompt = FRAMINGS[framing_of(ctx.options)]
    coordinator = system(coordinator_system.format(n=n))
    framing = await ctx.turn("frame", "coordinator", [coordinator, user(frame.format(situation=sit))],
                             phase="frame", label="Coordinator frames the question")

    async def respond(i: int) -> str:
        messages = [system(C1_RESPONDENT_SYSTEM.format(i=i, n=n)),
                    user(respond_prompt.format(situation=sit, framing=framing))]
        text = await ctx.turn(f"respondent-{i}", f"respondent-{i}", messages, phase="respond",
                              label=f"Adviser {i} of {n}", sample=i)
        ctx.emit("perspective", turn=f"respondent-{i}", agent=f"respondent-{i}", text=text, order=1,
                 parallel=True, respondent=i)
        return text

    answers = await parallel(*(respond(i) for i in range(1, n + 1)))
    block = "\n\n".join(C1_ANSWER.format(i=i, text=a.strip()) for i, a in enumerate(answers, start=1))
    text = await ctx.turn("synthesis", "coordinator",
                          [coordinator, user(C1_SYNTHESIZE.format(situation=sit, framing=framing, answers=block,
                                                                  report=report_request(ctx)))],
                          phase="synthesis", label="Coordinator synthesizes")
    return await final_output(ctx, text)
