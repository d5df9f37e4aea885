"""The documented scrubber: every rule removes its tell, logs it, and leaves plain prose alone."""

from __future__ import annotations

import re

import pytest

from workbench.blinding.scrub import MOCK_MARKER, MODEL_MARKER, ScrubContext, scrub
from workbench.gateway.api import CallRequest, ModelSettings
from workbench.gateway.mock import mock_text

CTX = ScrubContext(model_names=["openai/gpt-4o-mini", "anthropic/claude-3-5-sonnet"],
                   roles=["Risk analyst", "Devil's advocate", "domain-operator"], scenario="A firm decides.")


@pytest.mark.parametrize("text, gone, kept", [
    ("The committee recommends a staged rollout.", ["committee"], ["The analysis recommends a staged rollout."]),
    ("Members of the committee disagreed.", ["committee", "Members"], ["The perspectives disagreed."]),
    ("Respondent 3 warned of contraction.", ["Respondent"], ["One view warned of contraction."]),
    ("All five respondents flagged the risk.", ["respondents"], ["The views flagged the risk."]),
    ("The motion carried 4–1 after debate.", ["4–1", "motion"], ["The proposal carried after debate."]),
    ("The plan passed 5-0.", ["5-0"], ["The plan passed."]),
    ("We adopted it (4 in favour, 1 against).", ["favour", "against"], ["We adopted it."]),
    ("RESOLVED, by a vote of 4-1, that the firm expands.", ["RESOLVED", "4-1", "vote"],
     ["It is recommended that the firm expands."]),
    ("It was seconded by the Risk analyst.", ["seconded", "Risk analyst"], ["It was supported by one perspective."]),
    ("The chair summarised the debate.", ["chair"], ["The summary summarised the debate."]),
    ("The coordinator synthesised the answers.", ["coordinator"], ["The summary synthesised the answers."]),
    ("The Devil's advocate objected.", ["advocate"], ["One perspective objected."]),
    ("As gpt-4o-mini I recommend caution.", ["gpt-4o-mini"], [f"As {MODEL_MARKER} I recommend caution."]),
    ("Claude 3.5 Sonnet and GPT-4o agree.", ["Claude", "GPT"], [f"{MODEL_MARKER} and {MODEL_MARKER} agree."]),
    ("The amendment was accepted; the plan as amended stands.", ["amend"],
     ["The revision was accepted; the plan as revised stands."]),
    ("The committee voted to approve.", ["voted", "committee"], ["The analysis decided to approve."]),
    ("A quorum was present. We recommend staging.", ["quorum"], ["We recommend staging."]),
    ("Perspective 2: the customer.", ["Perspective 2"], ["One perspective: the customer."]),
    ("Scenario 3 shows a collapse.", ["Scenario 3"], ["One scenario shows a collapse."]),
    ("Adviser 3 of 5 warned us.", ["Adviser"], ["One perspective warned us."]),
    ("The domain-operator said it is feasible.", ["domain-operator"], ["One perspective said it is feasible."]),
    ("A hub-and-spoke panel found a chain-of-thought gap.", ["hub-and-spoke", "chain-of-thought"], []),
    ("The decision was unanimous.", ["unanimous"], ["The decision was agreed."]),
])
def test_each_rule_removes_its_tell(text, gone, kept):
    result = scrub(text, CTX)
    for word in gone:
        assert word.lower() not in result.text.lower(), result.text
    for sentence in kept:
        assert sentence in result.text, result.text
    assert result.log and all(e.get("count", 0) >= 1 for e in result.log if "count" in e)


def test_plain_prose_is_left_exactly_as_it_was():
    text = ("RECOMMENDATION: Stage the rollout over 3-5 years.\n  - keep the old berths open\n"
            "REASONING: Demand could contract; the plan argues against expansion (which is costly).\n"
            "RISKS:\n- Demand-side contraction.\nCONFIDENCE: medium, one reason against it.")
    result = scrub(text, CTX)
    assert result.text == text
    assert result.log == []


def test_mock_banner_and_its_provenance_become_one_neutral_marker():
    request = CallRequest(messages=[{"role": "user", "content": "As chair of the committee, write the resolution"}],
                          settings=ModelSettings(), agent="chair", turn="resolution", replicate=2)
    result = scrub(mock_text(request), CTX)
    assert result.text.startswith(MOCK_MARKER)
    for tell in ("mock model", "chair", "resolution", "replicate", "Prompt began", "draw"):
        assert tell not in result.text
    assert {e["rule"] for e in result.log} == {"mock-banner"}


def test_a_word_the_scenario_uses_is_not_scrubbed_and_the_exemption_is_logged():
    ctx = ScrubContext(scenario="The city council's finance committee must decide on the bond.")
    result = scrub("The finance committee should delay. Respondent 2 agreed, 4-1 in favour of delay.", ctx)
    assert "finance committee" in result.text
    assert "Respondent" not in result.text and "4-1" not in result.text  # never exempt
    assert {"rule": "committee", "exempt": "committee", "reason": "the scenario uses this word"} in result.log


def test_the_log_says_what_was_found_and_what_replaced_it():
    result = scrub("The committee met. The committee agreed.", CTX)
    entry = next(e for e in result.log if e["rule"] == "committee")
    assert entry == {"rule": "committee", "found": "The committee", "replaced_with": "The analysis", "count": 2}


def test_the_study_model_string_is_removed_even_when_the_scenario_names_the_provider():
    ctx = ScrubContext(model_names=["openai/gpt-4o-mini"], scenario="OpenAI's board must decide.")
    result = scrub("openai/gpt-4o-mini thinks OpenAI should wait.", ctx)
    assert "gpt-4o-mini" not in result.text
    assert "OpenAI should wait" in result.text  # the provider name is the case's own subject here


def test_no_condition_id_survives_a_committee_transcript():
    text = ("The chair opened under Robert's Rules of Order. The Risk analyst moved that the firm stage the "
            "rollout; the Devil's advocate seconded. After deliberation the committee voted 4-1 (one "
            "abstention). RESOLVED: stage the rollout with gates. The minority report dissents.")
    result = scrub(text, CTX)
    lowered = result.text.lower()
    for tell in ("chair", "robert", "risk analyst", "advocate", "seconded", "deliberation", "committee",
                 "4-1", "abstention", "resolved", "minority"):
        assert tell not in lowered, (tell, result.text)
    assert re.search(r"stage the rollout with gates", result.text)


def test_chain_of_thought_scaffold_is_removed():
    # B2's prompt says "Think step by step"; an echo of it would tell the rater which condition wrote the item.
    cases = {
        "Step by step, the key factors are cost and demand.": "The key factors are cost and demand.",
        "Let's think step by step. First, cost.": "First, cost.",
        "We went through it step-by-step and found risk.": "We went through it in turn and found risk.",
    }
    for text, expected in cases.items():
        result = scrub(text)
        assert result.text == expected
        assert "step" not in result.text.lower()
