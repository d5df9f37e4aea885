"""The report reader and the structured-line readers the committee relies on."""

from __future__ import annotations

from workbench.protocols.hindsight.architectures import conditions, prompt_templates
from workbench.protocols.hindsight.architectures.lines import numbered_sections, parse_amendments
from workbench.protocols.hindsight.architectures.motion_replies import parse_second, parse_vote
from workbench.protocols.hindsight.architectures.report import REPORT_INSTRUCTION, parse_report


def test_report_reads_the_last_report_with_markdown_headings():
    text = ("Draft: RECOMMENDATION: comply\n\nFinal thoughts.\n\n**Recommendation:** Resist the demands.\n"
            "**Reasoning:** Precedent matters.\nIt compounds.\n**Risks:**\n- funding\n* regulators\n"
            "**Confidence:** low, until the dossier is seen.")
    report = parse_report(text)
    assert report["recommendation"] == "Resist the demands."
    assert report["reasoning"] == "Precedent matters.\nIt compounds."
    assert report["risks"] == ["funding", "regulators"]
    assert report["confidence"] == "low, until the dossier is seen."
    assert report["missing"] == []


def test_report_names_missing_headings_and_invents_nothing():
    report = parse_report("RECOMMENDATION: Resist.\nRISKS: the funding campaign")
    assert report["recommendation"] == "Resist." and report["risks"] == ["the funding campaign"]
    assert report["reasoning"] == "" and report["confidence"] == ""
    assert report["missing"] == ["reasoning", "confidence"]


def test_the_report_instruction_asks_for_the_four_fields():
    for key in ("RECOMMENDATION:", "REASONING:", "RISKS:", "CONFIDENCE:"):
        assert key in REPORT_INSTRUCTION
    assert "report.REPORT_INSTRUCTION" in prompt_templates()


def test_votes_are_read_only_from_a_vote_line():
    assert parse_vote("VOTE: aye\nBecause.") == ("aye", "Because.")
    assert parse_vote("**Vote:** Nay — too risky") == ("nay", "")
    assert parse_vote("vote: abstain\nREASON: conflicted")[0] == "abstain"
    assert parse_vote("I would vote aye if pressed.")[0] == "unparsed"
    assert parse_vote("VOTE: aye\nVOTE: nay")[0] == "unparsed"
    assert parse_vote("VOTE: perhaps")[0] == "unparsed"


def test_seconds_and_amendments():
    assert parse_second("SECOND: yes, gladly") is True
    assert parse_second("SECOND: no") is False
    assert parse_second("I second it.") is True  # said in words (issue 41)
    assert parse_second("I'm inclined to second it.") is None  # a hedge is neither
    assert parse_second("I will not second it.") is False
    assert parse_amendments("text\nAMENDMENT: add a review\nAMENDMENT: none\namendment: cap the cost") == [
        "add a review", "cap the cost"]


def test_numbered_sections_stop_at_the_synthesis():
    text = "Intro\nPERSPECTIVE 1: A\none\n\n**Perspective 2 - B**\ntwo\nSYNTHESIS\nall\nRECOMMENDATION: x"
    sections = numbered_sections(text, "PERSPECTIVE", ("SYNTHESIS", "RECOMMENDATION"))
    assert [(s.number, s.title, s.text) for s in sections] == [(1, "A", "one"), (2, "B", "two")]
    assert numbered_sections("a perspective on things", "PERSPECTIVE") == []


def test_every_condition_of_the_seed_is_registered():
    assert conditions() == ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
