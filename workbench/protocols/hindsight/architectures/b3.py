"""B3 multi-perspective prompt: one model, one context, 3-5 perspectives then a synthesis (seed 000 §V).

The perspectives are generated in sequence inside one reply, so each is a
`perspective` event with its generation order and parallel = false (seed 001
§2.2: sequential generation is the anchoring baseline). The seed's prompt asks
for no layout, so the perspectives are read from whatever layout the model
chose (perspectives/: labelled, headings, numbered or lettered lists, bold
lead-ins, tables, prose). A reply none of them splits, or whose split is flagged (a count
other than the 3-5 the prompt asks for, repeated titles, an introduction or synthesis read as a
perspective: perspectives.read_perspectives), is copied apart by a logged,
copy-only extraction where the model decodes by schema (perspectives/split.py);
one that still cannot be split is flagged (`unsplit`): DQ leaves it out of its
means and every DQ table names it, never counting it as one perspective.
"""

from __future__ import annotations

from workbench.protocols.hindsight.architectures.base import (
    FinalOutput, RunContext, common_prompts, final_output, report_request, situation, user,
)
from workbench.protocols.hindsight.architectures.extraction import instruction
from workbench.protocols.hindsight.architectures.extraction import extra_calls
from workbench.protocols.hindsight.architectures.perspectives.split import split_by_extraction, worth_asking
from workbench.protocols.hindsight.architectures.perspectives import ASKED, read_perspectives
from workbench.protocols.hindsight.architectures.prompts import B3_LAYOUT, B3_PROMPT

CONDITION = "B3"
TITLE = "Multi-perspective prompt"


SEED_TEXT = ('Single LLM asked for multiple viewpoints: "Give 3-5 genuinely different perspectives on this '
             'decision, then synthesize a recommendation."')


def prompts(options: dict) -> list[tuple[str, str, str]]:
    layout = [("prompts.B3_LAYOUT", B3_LAYOUT, "project")] if instruction(options) else []
    return common_prompts(options) + [("prompts.B3_PROMPT", B3_PROMPT, "seed")] + layout


def expected_calls(options: dict) -> int:
    """The answer and the report extraction; the perspective split is a fallback, made beyond the plan."""
    return 1 + extra_calls(options)


async def run(ctx: RunContext) -> FinalOutput:
    extra = report_request(ctx)
    prompt = B3_PROMPT.format(situation=situation(ctx), layout=B3_LAYOUT if extra else "", report=extra)
    text = await ctx.turn("answer", "model", [user(prompt)], phase="answer", label="Perspectives and synthesis")
    reading = read_perspectives(text)
    sections, layout, why = reading.split.sections, reading.split.layout, reading.reason
    if reading.flagged:
        sections = []
        if worth_asking(ctx):
            sections, problem = await split_by_extraction(ctx, text)
            if sections and not ASKED[0] <= len(sections) <= ASKED[1]:
                problem = f"it copied {len(sections)} perspectives where the prompt asked for {ASKED[0]}-{ASKED[1]}"
                sections = []
            layout, why = ("extraction", "") if sections else ("", f"{why}; the copy-only split failed: {problem}")
    if sections:
        for order, s in enumerate(sections, start=1):
            ctx.emit("perspective", turn="answer", agent="model", text=s.text, title=s.title, order=order,
                     parallel=False, label_number=s.number, layout=layout)
    else:
        ctx.emit("perspective", turn="answer", agent="model", text=text, title="", order=1, parallel=False,
                 unparsed=True, unsplit=True,
                 note=f"the reply could not be split into perspectives ({why}): flagged, left out of DQ means",
                 reason=why)
    return await final_output(ctx, text)
