"""Issue 13: the scrubber never damages what raters read. Property-based (Hypothesis) over generated
outputs in the report shape: headings and line structure survive, tells go, neutral sentences stay,
and scrubbing is idempotent. Plus the two reported damages, pinned exactly."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.blinding.scrub import ScrubContext, emptied_reason, scrub

CONTEXT = ScrubContext(model_names=["openai/gpt-4o-mini"], roles=["Risk analyst", "Devil's advocate"])

# Sentences a condition leaves behind, and a pattern that must not survive for each.
TELLS = [
    ("The committee followed Robert's Rules throughout.", r"robert"),
    ("The motion carried 4-1 after debate.", r"4-1|motion"),
    ("Respondent 3 disagreed with the others.", r"respondent"),
    ("Let's think step by step.", r"step by step"),
    ("As gpt-4o-mini I weighed the options.", r"gpt-4o"),
    ("The Devil's advocate filed a minority report.", r"devil|minority report"),
    ("The chair called the question.", r"\bchair\b|called the question"),
    ("Four members voted in favour (4 in favour, 1 against).", r"in favour,|against\)"),
    ("Perspective 2 stressed the regulators.", r"perspective 2"),
]
NEUTRAL = [
    "Demand may contract within a year.",
    "Stage the expansion behind demand gates.",
    "A bad configuration could reach every server at once.",
    "Conceding sets a precedent for further demands.",
    "Legal review comes before any disclosure.",
    "Funding sources may be targeted next.",
]
HEADINGS = ["RECOMMENDATION:", "REASONING:", "RISKS:", "CONFIDENCE:", "**Reasoning:**", "## RISKS:"]

sentences = st.lists(st.one_of(st.sampled_from([t for t, _ in TELLS]), st.sampled_from(NEUTRAL)),
                     min_size=0, max_size=4)


@st.composite
def outputs(draw):
    """A final output: some free prose, then sections under report headings, risks as bullets."""
    lines = [" ".join(draw(sentences))]
    for heading in draw(st.lists(st.sampled_from(HEADINGS), min_size=1, max_size=4, unique=True)):
        if "RISKS" in heading.upper():
            lines.append(heading)
            lines += [f"- {s}" for s in draw(sentences)]
        else:
            lines.append(f"{heading} {' '.join(draw(sentences))}".rstrip())
        if draw(st.booleans()):
            lines.append("")
    return "\n".join(lines)


def headings_of(text: str) -> list[str]:
    return [m.group(1).upper() for m in
            re.finditer(r"(?im)^[ \t>#*_]*(RECOMMENDATION|REASONING|RISKS|CONFIDENCE)[ \t*_]*:", text)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs())
def test_structure_is_preserved_and_scrubbing_is_idempotent(text):
    once = scrub(text, CONTEXT).text
    assert headings_of(once) == headings_of(text)  # every heading kept, in order, each at a line start
    assert scrub(once, CONTEXT).text == once        # a fixed point


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs())
def test_tells_go_and_neutral_sentences_stay(text):
    once = scrub(text, CONTEXT).text
    for tell, pattern in TELLS:
        if tell in text:
            assert not re.search(pattern, once, re.IGNORECASE), (tell, once)
    for sentence in NEUTRAL:
        if sentence in text:
            assert sentence in once


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(NEUTRAL), min_size=1, max_size=6))
def test_a_neutral_output_is_left_exactly_as_it_is(parts):
    text = "RECOMMENDATION: " + parts[0] + "\nREASONING: " + " ".join(parts[1:]) + "\nRISKS:\n- " + parts[-1]
    assert scrub(text, CONTEXT).text == text.strip()


def test_a_heading_is_never_deleted_with_a_removed_sentence():
    text = "RECOMMENDATION: Resist.\nREASONING: The committee followed Robert's Rules.\nRISKS:\n- Lawsuits."
    out = scrub(text, CONTEXT).text
    assert out == "RECOMMENDATION: Resist.\nREASONING:\nRISKS:\n- Lawsuits."


def test_two_sections_are_never_merged():
    text = "REASONING: So I think step by step.\nRISKS: a funding campaign"
    out = scrub(text, CONTEXT).text
    assert out.splitlines()[1] == "RISKS: a funding campaign"
    assert "I RISKS" not in out


def test_a_bullet_that_was_only_a_tell_goes_with_its_content():
    out = scrub("RISKS:\n- The chair called the question.\n- Lawsuits.", CONTEXT).text
    assert out == "RISKS:\n- Lawsuits."


def test_emptied_reason():
    assert emptied_reason("The committee followed Robert's Rules.", "") == "the scrubber left no words (of 5)"
    assert "kept 2 of 10" in emptied_reason("one two three four five six seven eight nine ten", "one two")
    assert emptied_reason("Stage it behind demand gates.", "Stage it behind demand gates.") is None
