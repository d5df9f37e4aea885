"""One criteria text for the raters and the Judge (issue 31, item 7): every stage's prompt carries the rubric
the human raters score on, word for word, with seed 003 §8's calibration points, and the automated key
validation points read the zero-constraint point as that text does (the overall score)."""

from __future__ import annotations

from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from workbench.cases.library import shipped_rubrics
from workbench.protocols.m11 import PROTOCOL
from workbench.protocols.m11.prompts import RUBRIC, messages
from workbench.protocols.m11.scoring import CRITERIA
from workbench.protocols.m11.validation import key_points

SEED_DEFINITIONS = [  # seed 003 §3, a few of the definitions as the seed prints them
    "Completely wrong - listed many soft features as hard", "Constraints have no connection to validated use",
    "Complete analysis of all attributes", "Crystal clear reasoning and output", "Perfect application of 3-step test"]


def test_every_stage_reads_the_raters_rubric_word_for_word():
    rubric = shipped_rubrics()[RUBRIC]
    assert PROTOCOL.default_rubrics == (RUBRIC,)
    assert tuple(c.id for c in rubric.criteria) == CRITERIA
    for stage in ("critic", "defender", "judge", "metajudge", "binary"):
        prompt = messages(stage, EXAMPLE_A)[1]["content"]
        assert rubric.instructions.strip() in prompt, stage
        for c in rubric.criteria:
            assert c.question in prompt
            for a in c.anchors:
                assert a.text in prompt, (stage, c.id, a.score)
    judge = messages("judge", EXAMPLE_A)[1]["content"]
    for definition in SEED_DEFINITIONS:   # the seed's wording, as the rubric keeps it (labels split off)
        words = definition.split(" - ")[-1]
        assert words.lower() in judge.lower(), definition


def test_the_calibration_points_are_in_the_text_and_read_as_the_check_reads_them():
    text = shipped_rubrics()[RUBRIC].instructions
    assert "the overall score, the\n  mean of the five criteria, should be 4 or more if the output is [], and 2 or\n" \
           "  below if the output lists constraints" in text
    assert "a missing or an extra constraint scores 2-3 on accuracy" in text
    assert "1-2 on accuracy; several score 0-1" in text
    # the check reads the zero-constraint point on the overall score: accuracy 5 with overall 3.0 misses it
    result = {"overall": 3.0, "scores": {"accuracy": 5}, "never_violations": []}
    [point] = key_points(EXAMPLE_A, result)
    assert point["rule"] == "output empty: overall 4 or more" and point["ok"] is False
    [point] = key_points(EXAMPLE_B, {"overall": 2.0, "scores": {"accuracy": 4}, "never_violations": []})
    assert point["rule"] == "output lists constraints: overall 2 or less" and point["ok"] is True


def test_the_freeze_pins_the_rubric_even_when_the_raters_list_leaves_it_out():
    assert PROTOCOL.extra_rubrics(None, {"rubrics": []}) == [RUBRIC]
    assert PROTOCOL.extra_rubrics(None, {"rubrics": [RUBRIC]}) == []
