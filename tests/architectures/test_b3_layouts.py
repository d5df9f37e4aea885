"""B3's perspectives read whatever the layout (issue 30 item 4): a corpus of layouts models write, a property over
generated replies, the copy-only split where the model decodes by schema,
and a reply that still cannot be split: flagged in the DQ tables and left out of the DQ means."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.runner.studykit import scripted
from tests.support import real_replies
from workbench.protocols.hindsight.architectures.perspectives.split import read_split
from workbench.protocols.hindsight.architectures.perspectives import split_perspectives
from workbench.structured.reading import RefusedReply

CORPUS = {
    "labelled": ("Intro line.\n\nPerspective 1: Security\nLocks matter.\n\nPerspective 2: Cost\nMoney matters.\n\n"
                 "Perspective 3: People\nStaff matter.\n\nSynthesis\nDo it in stages.",
                 ["Security", "Cost", "People"], ["Locks matter.", "Money matters.", "Staff matter."]),
    "lettered": ("**Perspective A: The regulator**\nRules bind us.\n\n**Perspective B: The customer**\nPrices rise."
                 "\n\n## Recommendation\nGo ahead.",
                 ["The regulator", "The customer"], ["Rules bind us.", "Prices rise."]),
    "numbered bold": ("Here are three views:\n\n1. **The Security View**: Attackers will probe it.\n"
                      "   - the login page first\n2. **The Economic View**: It costs a lot.\n3. **The Human View**\n"
                      "   Staff burn out.\n\n**Synthesis:** stage it.\n1. Pilot first\n2. Then the rest",
                      ["The Security View", "The Economic View", "The Human View"],
                      ["Attackers will probe it.\n   - the login page first", "It costs a lot.", "Staff burn out."]),
    "markdown headings": ("# Analysis\n\n### 1. Security perspective\nAttackers.\n\n### 2. Economic perspective\n"
                          "Costs.\n\n### 3. Legal perspective\nLaw.\n\n### Synthesis\nStage it.",
                          ["Security perspective", "Economic perspective", "Legal perspective"],
                          ["Attackers.", "Costs.", "Law."]),
    "bold lead-ins": ("Some intro.\n\n**Security view:** attackers will come.\n\n**Cost view:** it is expensive.\n\n"
                      "**Legal view:** there are rules.\n\nIn summary, stage it.",
                      ["Security view", "Cost view", "Legal view"],
                      ["attackers will come.", "it is expensive.", "there are rules."]),
    "prose ordinals": ("This decision is hard.\n\nFirst, the operators see a risky plan.\n\nSecond, the finance "
                       "team sees savings.\n\nThird, the public may object.\n\nOverall, I recommend stages.",
                       ["", "", ""], ["First, the operators see a risky plan.", "Second, the finance team sees savings.",
                                      "Third, the public may object."]),
    "prose standpoints": ("From a security standpoint, the plan is exposed.\n\nFrom the customer's point of view, "
                          "prices rise.\n\nIn conclusion, wait.",
                          ["From a security standpoint", "From the customer's point of view"],
                          ["From a security standpoint, the plan is exposed.",
                           "From the customer's point of view, prices rise."]),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_layout_splits_into_its_perspectives_without_the_synthesis(name):
    text, titles, bodies = CORPUS[name]
    split = split_perspectives(text)
    assert [s.title for s in split.sections] == titles
    assert [s.text for s in split.sections] == bodies
    assert [s.number for s in split.sections] == list(range(1, len(titles) + 1))


def test_a_reply_without_two_perspectives_is_not_split():
    assert split_perspectives("Just do it. It is fine.").sections == []
    assert split_perspectives("Perspective 1: Only one\nA single view.\n\nSynthesis\nGo.").sections == []
    assert split_perspectives("").sections == []


# --- a property over generated replies -------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9).filter(
    lambda w: not w.startswith(("synth", "recommend", "conclu", "summar", "overall", "first", "second", "third",
                                "fourth", "fifth", "sixth", "final", "last", "perspect", "view", "from")))
TITLE = st.lists(WORD, min_size=1, max_size=3).map(lambda ws: " ".join(ws).capitalize())
BODY = st.lists(st.lists(WORD, min_size=3, max_size=8).map(lambda ws: " ".join(ws).capitalize() + "."),
                min_size=1, max_size=3).map(" ".join)
LAYOUT = st.sampled_from(["labelled", "lettered", "heading", "numbered", "bold"])


def render(layout: str, views: list[tuple[str, str]]) -> str:
    parts = ["Here is my analysis of the decision."]
    for i, (title, body) in enumerate(views, start=1):
        parts.append({"labelled": f"Perspective {i}: {title}\n{body}",
                      "lettered": f"**Perspective {'ABCDE'[i - 1]}: {title}**\n{body}",
                      "heading": f"### {i}. {title}\n{body}",
                      "numbered": f"{i}. **{title}**: {body}",
                      "bold": f"**{title}:** {body}"}[layout])
    parts.append("Synthesis\nAll things considered, go ahead in stages.")
    return "\n\n".join(parts)


@settings(max_examples=150, deadline=None)
@given(LAYOUT, st.lists(st.tuples(TITLE, BODY), min_size=2, max_size=5))
def test_any_layout_gives_back_the_perspectives_in_order(layout, views):
    split = split_perspectives(render(layout, views))
    assert [(s.title, s.text) for s in split.sections] == views
    assert all("go ahead in stages" not in s.text for s in split.sections)


# --- the copy-only split -----------------------------------------------------------------------------------------

SOURCE = "We should act. Security matters most here. Costs will rise sharply. In sum, act in stages."


def test_a_split_may_only_copy():
    groups = read_split(SOURCE, json.dumps({"perspectives": [["Security matters most here."],
                                                              ["Costs will rise sharply."]]}))
    assert groups == [["Security matters most here."], ["Costs will rise sharply."]]
    with pytest.raises(RefusedReply, match="only copy"):
        read_split(SOURCE, json.dumps({"perspectives": [["Security matters most."], ["Costs will rise sharply."]]}))
    with pytest.raises(Exception, match="two or more"):
        read_split(SOURCE, json.dumps({"perspectives": [["Security matters most here."]]}))

    with pytest.raises(RefusedReply, match="more than one perspective"):  # one sentence, two perspectives
        read_split(SOURCE, json.dumps({"perspectives": [["Security matters most here."],
                                                         ["Security matters most here.", "Costs will rise sharply."]]}))


def test_a_captured_real_b3_reply_in_prose_is_not_split_and_its_copied_split_is_refused():
    """SmolLM2 on llama-cpp-python (tests/fixtures/real_replies): the B3 answer is prose with no perspective
    marked, so the parser finds none; the copy-only split then copied the same sentences into every group, which
    copies only but splits nothing: refused, so the run is flagged unsplit rather than given fake perspectives."""
    answer = real_replies.load("b3-prose-no-perspectives")["content"]
    split_reply = real_replies.load("b3-split-copies-the-same-sentences")["content"]
    assert split_perspectives(answer).sections == []
    with pytest.raises(RefusedReply, match="more than one perspective"):
        read_split(answer, split_reply)


async def test_the_captured_real_b3_replies_end_to_end_leave_the_run_flagged_unsplit(run_conditions, server):
    server.responder = answering(real_replies.load("b3-split-copies-the-same-sentences")["content"],
                                 answer=real_replies.load("b3-prose-no-perspectives")["content"])
    summary, events, db = await run_conditions("B3")
    (flag,) = [e.payload for e in events if e.kind == "perspective"]
    assert flag["unsplit"] is True and "more than one perspective" in flag["note"]


UNSPLIT = "We should act on this now. Security matters most here. Costs will rise sharply. Act in stages."


def answering(split_reply: str | None, answer: str = UNSPLIT):
    """The scripted model, whose B3 answer (`answer`) has no layout; its split reply is `split_reply`."""
    def reply(body: dict) -> str:
        last = body["messages"][-1]["content"]
        if "Give 3-5 genuinely different perspectives" in last:
            return answer
        if "Copy out, word for word, the sentences of each perspective" in last:
            return split_reply
        return scripted(body)

    return reply


async def test_where_the_model_decodes_by_schema_a_copying_split_reads_the_perspectives(run_conditions, server):
    server.responder = answering(json.dumps({"perspectives": [["Security matters most here."],
                                                              ["Costs will rise sharply."], ["Act in stages."]]}))
    summary, events, db = await run_conditions("B3")
    split_calls = [b for b in server.requests if "sentences of each perspective" in b["messages"][-1]["content"]]
    assert len(split_calls) == 1 and split_calls[0]["temperature"] == 0.0
    schema = split_calls[0]["response_format"]["schema"]  # the reply's own passages: the server can only copy
    assert "Security matters most here." in schema["properties"]["perspectives"]["items"]["items"]["enum"]
    persp = [e.payload for e in events if e.kind == "perspective"]
    assert [(p["text"], p["layout"], p["order"]) for p in persp] == [
        ("Security matters most here.", "extraction", 1), ("Costs will rise sharply.", "extraction", 2),
        ("Act in stages.", "extraction", 3)]


async def test_a_copied_split_with_fewer_perspectives_than_asked_is_flagged(run_conditions, server):
    server.responder = answering(json.dumps({"perspectives": [["Security matters most here."],
                                                              ["Costs will rise sharply."]]}))
    summary, events, db = await run_conditions("B3")
    (flag,) = [e.payload for e in events if e.kind == "perspective"]
    assert flag["unsplit"] is True and "copied 2 perspectives where the prompt asked for 3-5" in flag["note"]


async def test_a_parsed_split_of_the_wrong_count_is_flagged_not_taken(run_conditions, server):
    """Two views and a synthesis: the parser reads two, the prompt asked for 3-5; without schema decoding the
    run is flagged unsplit (its reason kept on the event), never two perspectives of data."""
    server.responder = answering(None, answer="## Comply\nIt avoids the campaign.\n\n## Resist\nIt keeps the "
                                              "filters.\n\n## Recommendation\nResist.")
    summary, events, db = await run_conditions("B3")
    (flag,) = [e.payload for e in events if e.kind == "perspective"]
    assert flag["unsplit"] is True and flag["reason"].startswith("2 perspectives read where the prompt asked")


async def test_a_reply_that_cannot_be_split_is_flagged_and_left_out_of_the_dq_means(run_conditions, server):
    from workbench.protocols.hindsight.metrics.dq_study import decision_quality_report
    from workbench.protocols.hindsight.metrics.study_data import load_study_data
    from workbench.scoring.unblind import unblind

    server.responder = answering(json.dumps({"perspectives": [["Security is all that matters."],
                                                              ["Costs will rise sharply."]]}))  # adds text
    summary, events, db = await run_conditions("B3", "C1")
    (flag,) = [e.payload for e in events if e.kind == "perspective" and not e.payload.get("parallel")]
    assert flag["unsplit"] is True and "only copy" in flag["note"]
    unblind(db, "arch-study", by="test", force=True, reason="the DQ rows per condition are under test")
    data = load_study_data(db, "arch-study")
    dq = decision_quality_report(data, FakeEmbedder())
    b3 = next(r for r in dq.runs if r.condition == "B3")
    assert b3.unsplit and b3.n_perspectives == 0 and not b3.dq1.defined and not b3.dq2.defined
    assert "could not be split" in b3.dq1.undefined_reason
    b3_row = next(r for r in dq.rows if r.group == "B3")
    assert b3_row.unsplit == 1 and not b3_row.parts["dq1"].defined  # never a DQ-1 of 1/expected
    c1_row = next(r for r in dq.rows if r.group == "C1")
    assert c1_row.parts["dq1"].defined and c1_row.unsplit == 0
    assert "FLAGGED: 1 run(s) (B3 1)" in dq.unsplit_note
    assert all(not b.sequential.defined for b in dq.baseline.values())  # the baseline has no B3 run left


class FakeEmbedder:
    """Distinct unit vectors per text (the flag handling is under test here, not the embeddings)."""

    model = "fake"
    encoded_count = 0

    def embed(self, texts):
        rng = np.random.default_rng(0)
        return np.stack([v / np.linalg.norm(v) for v in rng.normal(size=(len(texts), 8))])


@pytest.mark.parametrize("numbers", [(1, 2, 2, 3), (1, 2, 4, 5), (1, 2, 3, 3)])
def test_a_slip_in_the_numbering_drops_no_perspective(numbers):
    """Round E (written apart, tests/corpus/b3/heldout-s14e.toml): a small model numbered its four views 1, 2, 2, 3
    and the list was read as three, silently; a repeated or skipped number keeps the list going."""
    views = ["Technical", "Security", "Operations", "Business"]
    items = "\n\n".join(f"{n}. {v} Perspective: what the {v.lower()} side sees in the plan." for n, v in
                        zip(numbers, views))
    split = split_perspectives(f"Perspectives on the plan:\n\n{items}\n\nSynthesized Recommendation:\n\nGo slowly.")
    assert [s.title for s in split.sections] == [f"{v} Perspective" for v in views]
