"""B3 multi-perspective prompt: one model, one context, 3-5 perspectives then a synthesis (seed 000 §V).

The perspectives are generated in sequence inside one reply, so each is a
`perspective` event with its generation order and parallel = false (seed 001
§2.2: sequential generation is the anchoring baseline). A reply without the
asked-for PERSPECTIVE headings becomes one perspective holding the whole text,
marked unparsed.
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import FinalOutput, RunContext, final_output, situation, user
from workbench.protocols.hindsight.architectures.lines import numbered_sections
from workbench.protocols.hindsight.architectures.prompts import B3_PROMPT
from workbench.protocols.hindsight.architectures.report import REPORT_INSTRUCTION

CONDITION = "B3"
TITLE = "Multi-perspective prompt"
STOP_WORDS = ("SYNTHESIS", "RECOMMENDATION")


def expected_calls(options: dict) -> int:
    return 1


async def run(ctx: RunContext) -> FinalOutput:
    prompt = B3_PROMPT.format(situation=situation(ctx), report=REPORT_INSTRUCTION)
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label="Perspectives and synthesis")
    sections = numbered_sections(text, "PERSPECTIVE", STOP_WORDS)
    if sections:
        for order, s in enumerate(sections, start=1):
            ctx.emit("perspective", turn="answer", agent="model", text=s.text, title=s.title, order=order,
                     parallel=False, label_number=s.number)
    else:
        ctx.emit("perspective", turn="answer", agent="model", text=text, title="", order=1, parallel=False,
                 unparsed=True, note="no PERSPECTIVE headings found: the whole reply is one perspective")
    return final_output(text)
