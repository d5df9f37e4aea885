"""C3 deliberated choice (seed 000 §V): a fan step generates divergent scenarios (`scenario`
events), then the C2 committee deliberates over them toward a recommendation that holds
across all of them. `fan = "tail-risk"` (pre-registered, a deviation the report prints)
also asks that one scenario be a tail risk.

The fan is one turn that lays the scenarios out under SCENARIO n headings; a
reply without them becomes one scenario holding the whole text, marked unparsed.
The committee is C2's, with the study's [architectures.C2] roster and limits.
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures import c2
from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, check_choice, check_int_options, situation, user,
)
from workbench.protocols.hindsight.architectures.lines import numbered_sections
from workbench.protocols.hindsight.architectures.prompts import (
    C3_BRIEFING, C3_BRIEFING_TAIL_RISK, C3_FAN, C3_FAN_TAIL_RISK,
)

CONDITION = "C3"
TITLE = "Deliberated choice (scenarios, then committee)"
DEFAULTS = {"scenarios": 4}
# fan name -> (fan prompt, committee briefing); "neutral" is the default
FANS = {"neutral": (C3_FAN, C3_BRIEFING), "tail-risk": (C3_FAN_TAIL_RISK, C3_BRIEFING_TAIL_RISK)}
DEFAULT_FAN = "neutral"


def check_options(raw: dict, path: str, bad) -> dict:
    out: dict = check_int_options(raw, path, bad, {"scenarios": (DEFAULTS["scenarios"], 2, 10)}, known=("fan",))
    out["fan"] = check_choice(raw, path, bad, "fan", FANS, DEFAULT_FAN, "\"tail-risk\" asks that one scenario be a "
                              "tail risk, which a rubric rewards: a deviation the report prints")
    return out


def fan_prompts(options: dict) -> tuple[str, str]:
    """(fan prompt, committee briefing) of a study; a definition frozen before the option asked for the tail
    risk, and keeps doing so on resume."""
    return FANS[(options.get("C3") or {}).get("fan", "tail-risk")]


SEED_TEXT = ("Fan (scenario generation) followed by funnel (committee deliberation on scenarios). Full /scenarios "
             "-> /committee pipeline.")


def prompts(options: dict) -> list[tuple[str, str, str]]:
    name = (options.get("C3") or {}).get("fan", "tail-risk")
    fan, briefing = fan_prompts(options)
    suffix = "_TAIL_RISK" if name == "tail-risk" else ""
    return [(f"prompts.C3_FAN{suffix}", fan, "project"), (f"prompts.C3_BRIEFING{suffix}", briefing, "project")] \
        + c2.prompts(options)


def expected_calls(options: dict) -> int:
    return 1 + c2.expected_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    n = ctx.options.get("C3", DEFAULTS)["scenarios"]
    fan, briefing = fan_prompts(ctx.options)
    text = await ctx.turn("fan", "scenario-generator",
                          [user(fan.format(situation=situation(ctx), n=n))],
                          phase="fan", label=f"Fan: {n} divergent scenarios")
    sections = numbered_sections(text, "SCENARIO", ("RECOMMENDATION",))
    if sections:
        # A fan with fewer scenarios than asked is flagged on each scenario (asked, got), as an empty one is
        short = {"short": True, "asked": n, "got": len(sections),
                 "note": f"the fan returned {len(sections)} of the {n} scenarios asked"} if len(sections) < n else {}
        for order, s in enumerate(sections, start=1):
            ctx.emit("scenario", turn="fan", agent="scenario-generator", text=s.text, title=s.title, order=order,
                     **short)
        listing = "\n\n".join(f"SCENARIO {i}: {s.title}\n{s.text}".strip()
                              for i, s in enumerate(sections, start=1))
    else:
        ctx.emit("scenario", turn="fan", agent="scenario-generator", text=text, title="", order=1, unparsed=True,
                 note="no SCENARIO headings found: the whole reply is one scenario")
        listing = text.strip()
    return await c2.Committee(ctx, briefing=briefing.format(scenarios=listing)).deliberate()
