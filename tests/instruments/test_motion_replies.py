"""Properties of the second and vote readers over generated replies (issue 41): a tag in any format a model writes
reads its value; the member's own statement reads without a tag; a hedge, a condition or two readings that differ
are unreadable, never a guess; questions, gerunds and other people's words say nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.protocols.hindsight.architectures.motion_replies import parse_second, parse_vote

SECOND_VALUES = {True: ["yes", "Yes", "YES", "aye", "seconded", "affirmative", "Yes, I second the motion",
                        "I second it"],
                 False: ["no", "No", "NO", "nay", "decline", "declined", "negative", "No, I will not second it",
                         "I do not second it"]}
VOTE_VALUES = {"aye": ["aye", "Aye", "AYE", "yea", "yes", "for", "in favour", "In favor", "support", "approve"],
               "nay": ["nay", "Nay", "NAY", "no", "against", "oppose", "opposed", "not in favour", "reject"],
               "abstain": ["abstain", "Abstain", "ABSTAIN", "abstention", "abstaining"]}
# `{tag}` and `{value}` in the formats models give a tag line
TAG_FORMATS = ["{tag}: {value}", "**{tag}:** {value}", "**{tag}**: {value}", "{tag} - {value}", "{tag} — {value}",
               "{tag} = {value}", "{tag}: **{value}**", '{tag}: "{value}"', "{tag}: [{value}]", "> {tag}: {value}",
               "### {tag}: {value}", "My {tag}: {value}", "{tag} → {value}", "{tag}:\n{value}", "`{tag}: {value}`",
               "1. {tag}: {value}", "{tag}:{value}", "<b>{tag}:</b> {value}", "Final {tag}: {value}",
               "**Answer:** {tag}: {value}", "Final answer: {tag}: {value}"]  # a label before the tag
# the model's turn ended after the line (what follows such a token is not the member's: only one tag is tried in them)
ONE_TAG_FORMATS = TAG_FORMATS + ["{tag}: {value}<|im_end|>", "{tag}: {value}<eos>", "{tag}: {value}<end_of_turn>"]
CASES = st.sampled_from([str.upper, str.lower, str.capitalize])
REASONS = st.sampled_from(["", "The filters are the organization's mission.", "Reason: the timeline is tight.",
                           "We need to hear from the finance team first.", "It is the clearest statement so far.",
                           "REASON: the week-3 step is the riskiest part of the plan."])
HEDGES = st.sampled_from(["if the cost cap is added", "provided the board agrees", "unless funders object",
                          "perhaps", "I think, maybe"])


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ONE_TAG_FORMATS), CASES, st.booleans(), st.data(), REASONS, st.booleans())
def test_a_second_tag_in_any_format_reads_its_value(fmt, case, seconded, data, reason, reason_first):
    value = data.draw(st.sampled_from(SECOND_VALUES[seconded]))
    line = fmt.format(tag=case("second"), value=value)
    text = "\n".join([reason, line] if reason_first else [line, reason])
    assert parse_second(text) is seconded


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ONE_TAG_FORMATS), CASES, st.sampled_from(sorted(VOTE_VALUES)), st.data(), REASONS)
def test_a_vote_tag_in_any_format_reads_its_value(fmt, case, vote, data, reason):
    value = data.draw(st.sampled_from(VOTE_VALUES[vote]))
    assert parse_vote(fmt.format(tag=case("vote"), value=value) + "\n" + reason)[0] == vote


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TAG_FORMATS), st.sampled_from(sorted(VOTE_VALUES)), st.sampled_from(sorted(VOTE_VALUES)),
       st.data(), HEDGES)
def test_two_votes_that_differ_or_a_hedged_one_are_unreadable(fmt, first, second, data, hedge):
    one = fmt.format(tag="VOTE", value=data.draw(st.sampled_from(VOTE_VALUES[first])))
    other = fmt.format(tag="Vote", value=data.draw(st.sampled_from(VOTE_VALUES[second])))
    both = parse_vote(f"{one}\n\nOn reflection:\n{other}")[0]
    assert both == (first if first == second else "unparsed")
    assert parse_vote(fmt.format(tag="VOTE", value=f"{VOTE_VALUES[first][0]}, {hedge}"))[0] == "unparsed"


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.booleans(), HEDGES)
def test_seconds_that_differ_or_hedge_are_unreadable_never_no(first, second, hedge):
    said = {True: "I second the motion.", False: "I will not second the motion."}
    assert parse_second(f"{said[first]} {said[second]}") is (first if first == second else None)
    assert parse_second(f"SECOND: {SECOND_VALUES[first][0]}, {hedge}") is None


SAID_SECOND = {True: ["I second the motion.", "I'll second it.", "Happy to second.", "Seconded.", "You have my second.",
                      "I am willing to second this.", "Gladly second.", "Yes — I second it."],
               False: ["I will not second this.", "I don't second it.", "I decline to second.", "No second from me.",
                       "I'm unwilling to second this.", "I'll pass.", "Not at this time.", "Not seconding.",
                       "I don't think I can second this."]}
SAID_VOTE = {"aye": ["I vote aye.", "I'm voting yes.", "I vote in favour.", "I support the motion.", "Aye.",
                     "Count me in favour.", "My vote is aye.", "I'm in favour."],
             "nay": ["I vote nay.", "I vote against.", "I oppose the motion.", "I cannot support this motion.",
                     "Nay.", "I'm against it.", "Put me down as a nay.", "My vote is no."],
             "abstain": ["I abstain.", "I'll abstain.", "I choose to abstain.", "I'm abstaining.", "Abstain.",
                         "I will be abstaining."]}


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.data(), REASONS)
def test_a_second_said_in_words_reads_without_a_tag(seconded, data, reason):
    assert parse_second(f"{data.draw(st.sampled_from(SAID_SECOND[seconded]))} {reason}") is seconded


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(SAID_VOTE)), st.data(), REASONS)
def test_a_vote_said_in_words_reads_without_a_tag(vote, data, reason):
    assert parse_vote(f"{data.draw(st.sampled_from(SAID_VOTE[vote]))} {reason}")[0] == vote


def test_questions_gerunds_and_others_words_say_nothing():
    assert parse_second("Should I second this? No.") is False  # the answer to its own question counts
    assert parse_second("Will anyone second this motion?") is None
    assert parse_vote("Abstaining is not an option for me: I vote against the motion.")[0] == "nay"
    assert parse_vote("Others may vote nay; I vote aye.")[0] == "aye"
    assert parse_vote("I cannot vote for this motion as it stands.")[0] == "unparsed"  # a nay or an abstention
    assert parse_second("I second the spirit of it. But no, I won't second this wording.") is None
    assert parse_second("👍") is None and parse_vote("👍")[0] == "unparsed"  # a thumb alone is a guess
    assert parse_vote('{"vote": "nay", "reason": "premature"}')[0] == "nay"
    assert parse_second('```json\n{"second": true}\n```') is True
    assert parse_vote("<think>Aye or nay? Nay is safer.</think>\nVOTE: aye")[0] == "aye"  # the trace is no answer


def test_tables_marks_in_a_tag_and_votes_not_cast():
    assert parse_vote("| Vote | Reason |\n|---|---|\n| Nay | Too early. |")[0] == "nay"
    assert parse_second("| Field | Value |\n|---|---|\n| Second | No |\n| Reason | Premature. |") is False
    assert parse_vote("VOTE: 👎\nA concession is a concession.")[0] == "nay"  # a thumb as the tag's value is one
    assert parse_vote("I decline to cast a vote on this amendment.")[0] == "abstain"
    assert parse_vote("I'll sit this one out — it is a matter of taste.")[0] == "abstain"
    assert parse_vote("I will not vote for this amendment.")[0] == "unparsed"  # a nay or an abstention
    assert parse_second("**Decision**: Do not second") is False
    assert parse_second("I am happy to act as seconder for this amendment.") is True


def test_options_in_the_tag_brackets_checklists_and_labels_of_ones_own():
    assert parse_second("SECOND (yes/no): no") is False  # the prompt's options echoed are not an answer
    assert parse_vote("[VOTE] aye")[0] == "aye"
    assert parse_vote("- [ ] Aye\n- [x] Nay\n- [ ] Abstain")[0] == "nay"
    assert parse_vote("On the amendment: nay.")[0] == "nay" and parse_vote("Aye to the motion.")[0] == "aye"
    assert parse_vote("Against the motion.")[0] == "nay" and parse_vote("VOTE: aye\nNo further comments.")[0] == "aye"
    assert parse_vote("VOTE: nay\nAbstaining would be a cop-out.")[0] == "nay"  # a subject, not an answer


def test_a_later_answer_or_quoted_words_never_pass_for_the_members_own():
    assert parse_vote("Aye — wait, nay.")[0] == "unparsed" and parse_second("Yes. Wait, no.") is None
    assert parse_second('The Strategist said "I second this"; I do not.') is None
    assert parse_vote("Aye. No question.")[0] == "aye"


def test_a_correction_an_empty_tag_or_a_counterfactual_is_unreadable():
    assert parse_second("I cannot second it myself... actually, I will.") is None
    assert parse_second("SECOND:") is None and parse_second("SECOND: N/A") is None
    assert parse_second("SECOND: yes\nScratch that, I need to think.") is None
    assert parse_vote("I would vote for it, were it not for the timeline.")[0] == "unparsed"
    assert parse_vote("Nay... or maybe abstain.")[0] == "unparsed"


def test_the_prompts_instruction_echoed_is_no_answer():
    """gemma-3-270m echoes the call (tests/corpus/*/captured-gemma-3-270m-s13.toml): its quoted tags are not said."""
    assert parse_second('Do you second the motion? Reply with one line "SECOND: no", then one sentence.') is None
    assert parse_vote('Vote. Reply with one line "VOTE: aye", "VOTE: nay" or "VOTE: abstain".')[0] == "unparsed"
    # unquoted, as a small model echoes it on a line of its own: the list says nothing, the answer after it does
    # (round E, written apart: tests/corpus/vote/heldout-s14e.toml)
    assert parse_vote("VOTE: aye, VOTE: nay or VOTE: abstain\n\nVOTE: nay\nIt is wrong.")[0] == "nay"
    assert parse_second("SECOND: yes or SECOND: no\nSECOND: yes\nIt deserves a debate.") is True
    assert parse_vote("VOTE: aye, VOTE: nay or VOTE: abstain")[0] == "unparsed"


def test_support_for_another_hypothetical_motion_says_nothing_of_this_one():
    reply = "VOTE: nay\nIt lets the pipeline touch stateful hosts. I'd vote aye on an amended version that carves them out."
    assert parse_vote(reply)[0] == "nay"
    assert parse_second("SECOND: no\nI would second a narrower motion.") is False
    # without a tag it is no answer to this motion, and a plain contrary statement still makes the reply unreadable
    assert parse_vote("I'd vote aye on an amended version.")[0] == "unparsed"
    assert parse_vote("VOTE: nay\nI vote aye.")[0] == "unparsed"


# what comes before the answer and is no answer: a compliance opener, the options or the instruction echoed, a trace
PREAMBLES = {"second": ["Certainly! Here's my answer:", "Sure. Here is my response:", "SECOND: yes or SECOND: no",
                        "yes / no", 'Reply with one line "SECOND: yes" or "SECOND: no", then one sentence.',
                        "<think>Yes or no? I lean yes, but no is safer.</think>"],
             "vote": ["Certainly! Here's my vote:", "Of course. Here is my answer:",
                      "VOTE: aye, VOTE: nay or VOTE: abstain", "aye / nay / abstain",
                      'Reply with one line "VOTE: aye", "VOTE: nay" or "VOTE: abstain".',
                      "<think>Aye would help; nay is safer.</think>"]}
# a reason that mentions another answer without giving it: considered, someone else's, on another motion, a
# sentence that opens with a word that is an answer elsewhere ("No concession ...")
MENTIONS = {"second": ["Others may not second it, and that is their right.", "I'd second an amended version too.",
                       "No organization should reward extortion.", "Yes-men will not help the committee here."],
            "vote": ["I considered voting {other} but the gates answer my concern.",
                     "I understand why colleagues will vote {other}.", "I'd vote {other} on an amended version.",
                     "I was initially inclined to vote {other}, but the amendment resolves it.",
                     "No concession, however small, is safe."]}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ONE_TAG_FORMATS), st.booleans(), st.sampled_from(PREAMBLES["second"]),
       st.sampled_from(MENTIONS["second"]))
def test_a_second_tag_stands_whatever_precedes_it_or_a_reason_mentions(fmt, seconded, preamble, mention):
    line = fmt.format(tag="SECOND", value=SECOND_VALUES[seconded][0])
    assert parse_second(f"{preamble}\n\n{line}\n{mention}") is seconded


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ONE_TAG_FORMATS), st.sampled_from(sorted(VOTE_VALUES)), st.sampled_from(sorted(VOTE_VALUES)),
       st.sampled_from(PREAMBLES["vote"]), st.sampled_from(MENTIONS["vote"]))
def test_a_vote_tag_stands_whatever_precedes_it_or_a_reason_mentions(fmt, vote, other, preamble, mention):
    line = fmt.format(tag="VOTE", value=vote)
    reason = mention.format(other=other)
    assert parse_vote(f"{preamble}\n\n{line}\n{reason}")[0] == vote


def test_signed_values_options_as_the_label_and_stage_directions():
    assert [parse_vote(f"VOTE: {v}")[0] for v in ("+1", "-1", "0 (neutral)", "1", "10")] == \
        ["aye", "nay", "abstain", "unparsed", "unparsed"]  # a bare "1" may be the first option
    assert parse_second("SECOND: +1") is True and parse_second("SECOND: 0") is None
    assert parse_second("Do you support this motion or not? YES/NO: No, because if they reject it I will "
                        "propose another.") is False  # the "if" is in the reason, not the answer
    assert parse_second("SECOND: yes, if the cost cap is added first") is None
    assert parse_second("*(The Auditor seconds the motion.)*\nThe audit trail justifies a debate.") is True
    assert parse_vote("(The CFO votes nay.)\nToo early.")[0] == "nay"
    assert parse_vote("(The Strategist votes aye; I do not.)")[0] == "unparsed"  # not a stage direction of its own


def test_what_the_motion_gets_from_the_member_and_seconds_left_to_others():
    assert parse_vote("The motion has my support.")[0] == "aye" and parse_vote("You have my vote.")[0] == "aye"
    assert parse_vote("The motion does not have my support.")[0] == "nay"
    assert parse_vote("The timeline has my support, but the motion does not.")[0] == "unparsed"
    assert parse_second("This motion lacks a second from me.") is False
    assert parse_second("The last motion died without a second. I second this one.") is True
    assert parse_second("As its drafter, I don't think it's appropriate for me to second it. I'll leave that to "
                        "other members.") is False
    assert parse_vote("I'm a no on this.")[0] == "nay" and parse_vote("I'm a firm yes.")[0] == "aye"
    assert parse_vote("Count me in. It is the plan we can actually execute.")[0] == "aye"  # not a correction
    assert parse_second("I'm not able to second this motion.") is False


def test_a_turn_made_up_after_the_end_token_and_a_bare_happy_to():
    assert parse_vote("VOTE: aye<|im_end|><|im_start|>user\nVote again.\nVOTE: nay")[0] == "aye"
    assert parse_second("<|im_start|>assistant\nSECOND: no<|im_end|>") is False
    assert parse_second("Happy to.") is True and parse_second("Happy to discuss it, but no.") is None


# the tag and its answer word with no separator, as small models write it (round F, written apart:
# tests/corpus/vote/heldout-s15f.toml): the word after the tag is the answer, never the tag alone as a yes
BARE = {"second": {True: ["yes", "aye", "yep"], False: ["no", "nay", "nope"]},
        "vote": {"aye": ["aye", "yes", "yea"], "nay": ["nay", "no"], "abstain": ["abstain"]}}


@settings(max_examples=60, deadline=None)
@given(CASES, st.booleans(), st.data(), REASONS)
def test_a_second_tag_without_its_separator_reads_the_word_after_it(case, seconded, data, reason):
    value = data.draw(st.sampled_from(BARE["second"][seconded]))
    assert parse_second(f"{case('second')} {case(value)}\n{reason}") is seconded


@settings(max_examples=60, deadline=None)
@given(CASES, st.sampled_from(sorted(BARE["vote"])), st.data(), REASONS)
def test_a_vote_tag_without_its_separator_reads_the_word_after_it(case, vote, data, reason):
    value = data.draw(st.sampled_from(BARE["vote"][vote]))
    assert parse_vote(f"{case('vote')} {case(value)}.\n{reason}")[0] == vote


def test_a_bare_tag_is_no_statement_and_a_retraction_on_the_tag_line_takes_it_back():
    assert parse_second("Second, no one has said what it costs. I second it.") is True  # an ordinal, not a tag
    assert parse_vote("Vote aye or nay, it is up to you.")[0] == "unparsed"  # the options, not an answer
    assert parse_second("SECOND: yes. Scratch that.") is None
    assert parse_vote("VOTE: nay. Scratch that.")[0] == "unparsed"


CHANGES = st.sampled_from(["On reflection,", "On second thought,", "Scratch that:", "Actually, on reflection,",
                           "I've changed my mind:", "Correction:", "I take that back;"])
LABELS = {"On reflection,", "On second thought,", "Correction:", "Actually, on reflection,"}
ACTS = st.sampled_from(["Correcting my vote:", "I'm changing my vote.", "I want to withdraw that.", "Scratch that.",
                        "I take that back:", "I've changed my mind."])
SAID = {"second": {True: "I second the motion", False: "I do not second the motion"},
        "vote": {"aye": "I vote aye", "nay": "I vote nay", "abstain": "I abstain"}}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TAG_FORMATS), st.booleans(), CHANGES, REASONS)
def test_a_second_changed_in_words_after_its_tag_reads_the_change(fmt, first, change, reason):
    tag = fmt.format(tag="SECOND", value=SECOND_VALUES[first][0])
    assert parse_second(f"{tag}\n{reason} {change} {SAID['second'][not first]}.") is (not first)
    # the change of mind says nothing clear: the tag is taken back, not kept
    assert parse_second(f"{tag}\n{change} I need to think about the timeline.") is None


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TAG_FORMATS), st.sampled_from(sorted(VOTE_VALUES)), st.data(), CHANGES)
def test_a_vote_changed_in_words_after_its_tag_reads_the_change(fmt, first, data, change):
    then = data.draw(st.sampled_from(sorted(set(VOTE_VALUES) - {first})))
    tag = fmt.format(tag="VOTE", value=first)
    assert parse_vote(f"{tag}\n{change} {SAID['vote'][then]}.")[0] == then
    # a second tag line that disagrees stays unreadable after a bare label of change (writers split on it) ...
    if change in LABELS:
        assert parse_vote(f"VOTE: {first}\n{change}\nVOTE: {then}")[0] == "unparsed"
    # ... and stands where the member says it changes its answer (every outside writer read it so)
    act = data.draw(ACTS)
    assert parse_vote(f"VOTE: {first}\nThe costs worry me. {act}\nVOTE: {then}")[0] == then
    assert parse_vote(f"VOTE: {first}\n{act} My answer is VOTE: {then}.")[0] == then


def test_a_change_of_mind_before_the_tag_or_said_in_words_alone():
    assert parse_second("On reflection, this deserves a debate.\nSECOND: yes") is True  # the tag comes after it
    assert parse_second("Yes, I second - actually, no. On reflection I do not second this motion.") is False
    assert parse_vote("VOTE: aye\nI'm not sure about the costs, so I will change my vote to abstain.")[0] == "abstain"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(VOTE_VALUES)), st.data(), st.sampled_from(["~~{}~~", "<del>{}</del>", "<strike>{}</strike>"]),
       REASONS)
def test_a_struck_through_answer_is_withdrawn(vote, data, strike, reason):
    struck = data.draw(st.sampled_from(sorted(set(VOTE_VALUES) - {vote})))
    assert parse_vote(f"VOTE: {strike.format(struck)} {vote}\n{reason}")[0] == vote
    assert parse_second(f"SECOND: {strike.format('yes')} no\n{reason}") is False


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["+1", "-1", "−1"]), st.sampled_from([" — let's debate it.", ", the canary is overdue.", ".",
                                                            "", " from me."]))
def test_a_signed_one_opening_the_reply_is_its_answer(sign, rest):
    assert parse_second(sign + rest) is (sign == "+1")
    assert parse_vote(sign + rest)[0] == ("aye" if sign == "+1" else "nay")
    assert parse_second(sign + "0 reasons to wait") is None and parse_vote("1, 2 and 3 are risks.")[0] == "unparsed"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["no (would second if amended)", "no; I'd second it if the cap were added",
                        "no, but I would support an amended version"]), REASONS)
def test_a_refusal_with_what_would_change_it_stays_a_refusal(value, reason):
    assert parse_second(f"SECOND: {value}\n{reason}") is False
    assert parse_second(f"SECOND: yes, if the cap were added\n{reason}") is None  # a yes with a condition is not
    assert parse_vote(f"VOTE: abstain if the cap is added\n{reason}")[0] == "unparsed"


def test_support_only_with_a_change_is_a_condition_and_a_final_tag_stands():
    assert parse_vote("VOTE: nay\nI'd support the motion only with a smaller first wave.")[0] == "nay"
    assert parse_vote("I'd support the motion only with a smaller first wave.")[0] == "unparsed"
    assert parse_vote("VOTE: aye\nWait, the load rules that out. Changing my vote.\n\nFinal: VOTE: nay")[0] == "nay"
    assert parse_second("SECOND: no\nHmm.\n**Final answer:** SECOND: yes") is True
    assert parse_vote("VOTE: aye\nVOTE: nay")[0] == "unparsed"  # no word says which stands
    assert parse_vote("Final vote: aye\nFinal vote: nay")[0] == "unparsed"  # nor where both are "final"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TAG_FORMATS), st.booleans(), ACTS, REASONS)
def test_a_second_tag_changed_by_a_stated_act_reads_the_later_tag(fmt, first, act, reason):
    tags = [fmt.format(tag="SECOND", value=SECOND_VALUES[v][0]) for v in (first, not first)]
    assert parse_second(f"{tags[0]}\n{reason} {act}\n{tags[1]}") is (not first)
    assert parse_second(f"{tags[0]}\n{reason}\n{tags[1]}") is None  # two tags, no word of which stands


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["a smaller pilot team", "a narrower scope", "a phased budget"]), REASONS)
def test_what_the_member_would_do_on_another_motion_or_ballot_leaves_the_tag(thing, reason):
    assert parse_second(f"SECOND: no\n{reason} I'd happily second a motion for {thing}.") is False
    assert parse_second(f"I'd happily second a motion for {thing}.") is None
    assert parse_second("SECOND: no\nI cannot second a motion that skips the review.") is False
    assert parse_vote(f"VOTE: nay on the amendment\n{reason} I'll still vote for the pilot itself.")[0] == "nay"
    assert parse_vote(f"VOTE: abstain\n{reason} I will vote for the main motion.")[0] == "abstain"
    assert parse_vote("I'll still vote for the pilot itself.")[0] == "unparsed"
