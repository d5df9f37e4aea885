"""B3 multi-perspective prompt: one model, one context, 3-5 perspectives then a synthesis (seed 000 §V).

The perspectives are generated in sequence inside one reply, so each is a
`perspective` event with its generation order and parallel = false (seed 001
§2.2: sequential generation is the anchoring baseline). The seed's prompt asks
for no layout, so the perspectives are read from the model's own "Perspective n"
headings (B3_LAYOUT asks for them only under `report_shape = "instruction"`); a
reply without them becomes one perspective holding the whole text, marked unparsed.
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, final_output, report_request, situation, user,
)
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.lines import numbered_sections
from workbench.protocols.hindsight.architectures.prompts import B3_LAYOUT, B3_PROMPT

CONDITION = "B3"
TITLE = "Multi-perspective prompt"
STOP_WORDS = ("SYNTHESIS", "RECOMMENDATION")


def expected_calls(options: dict) -> int:
    return 1 + extra_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    extra = report_request(ctx)
    prompt = B3_PROMPT.format(situation=situation(ctx), layout=B3_LAYOUT if extra else "", report=extra)
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label="Perspectives and synthesis")
    sections = numbered_sections(text, "PERSPECTIVE", STOP_WORDS)
    if sections:
        for order, s in enumerate(sections, start=1):
            ctx.emit("perspective", turn="answer", agent="model", text=s.text, title=s.title, order=order,
                     parallel=False, label_number=s.number)
    else:
        ctx.emit("perspective", turn="answer", agent="model", text=text, title="", order=1, parallel=False,
                 unparsed=True, note="no PERSPECTIVE headings found: the whole reply is one perspective")
    return await final_output(ctx, text)
