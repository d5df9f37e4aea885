"""Issue 13: the report says which report shape the study used, how the extractions went, and the
project's own choices; a blinded report still names no condition."""

from __future__ import annotations

import re

from workbench.protocols.hindsight.results import report_text

CONDITION_ID = re.compile(r"\b(B1|B2|B3|C1|C2|C3|P1)\b")


async def test_the_default_report_says_seed_prompts_and_counts_extractions(run_conditions):
    summary, events, db = await run_conditions("B1", "B2")
    text = report_text(db, "arch-study", {"include_dq": False})
    section = text.split("## Fidelity to the seed", 1)[1].split("\n## ", 1)[0]
    assert "the seed's prompts, then a copying extraction" in section
    assert "Extractions: 2 of 2 accepted, 0 refused" in section
    assert "DEVIATION" not in section and "own choices" in section
    assert not CONDITION_ID.findall(section)  # the study is blinded: nothing here names a condition


async def test_the_instruction_option_is_printed_as_a_deviation(run_conditions):
    summary, events, db = await run_conditions("B1", extra='[hindsight]\nreport_shape = "instruction"\n')
    text = report_text(db, "arch-study", {"include_dq": False})
    section = text.split("## Fidelity to the seed", 1)[1].split("\n## ", 1)[0]
    assert "pre-registered DEVIATION from the seed" in section and "Extractions:" not in section
