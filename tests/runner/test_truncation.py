"""A reply cut at max_tokens is a state of its own: marked on the turn, the run, the output, the blind item and
the counts; and the study's `[model] on_truncation` says what it means (keep, fail, continue).

The cut replies are the real-model fixtures (tests/fixtures/real_replies/), served by the loopback server
with finish_reason "length"."""

from __future__ import annotations

import pytest

from store.outputs import get_output
from store.runs import get_run
from tests.runner.studykit import create, gateway, scripted, study_text
from tests.support import real_replies
from tests.support.loopback import Reply
from workbench.events import ListSink
from workbench.runs.runner import run_study
from workbench.runs.truncation import CONTINUE_PROMPT, MAX_CONTINUATIONS
from workbench.studies.counts import study_counts
from workbench.studies.definition import StudyError, parse_study_text

B1 = "Given this situation, what should we do?"
CUT = real_replies.load("b1-answer-cut-at-120")["content"]
GO_ON = real_replies.load("continuation-after-cut")["content"]


def _cut_b1(body):
    """B1's answer is the real model's reply cut at 256 tokens; a continuation gets the rest."""
    last = body["messages"][-1]["content"]
    if last == CONTINUE_PROMPT:
        return real_replies.reply("continuation-after-cut")
    if B1 in last:
        return real_replies.reply("b1-answer-cut-at-120")
    return scripted(body)


def _always_cut(body):
    last = body["messages"][-1]["content"]
    if B1 in last or last == CONTINUE_PROMPT:
        return Reply.text("and then the agency should", finish_reason="length")
    return scripted(body)


def _text(name: str, server, on_truncation: str | None) -> str:
    text = study_text(name, conditions=("B1",), api_base=server.url)
    if on_truncation is not None:
        text = text.replace("timeout = 20\n", f'timeout = 20\non_truncation = "{on_truncation}"\n')
    return text


def test_the_fixtures_name_their_model_and_server():
    cuts = (("b1-answer-cut-at-120", 120), ("c1-synthesis-cut-at-120", 120), ("m11-critic-cut-at-250", 250))
    for name, limit in cuts:
        d = real_replies.load(name)
        assert d["finish_reason"] == "length" and d["max_tokens"] == limit
        assert d["call"]["output_tokens"] == limit          # the server stopped at the limit, not at an end
        assert "SmolLM2-135M-Instruct" in d["model"] and "llama-cpp-python 0.3.36" in d["server"]
        assert d["provenance"].startswith("captured") and "reconstructed" not in d


async def test_keep_marks_the_turn_the_run_the_output_and_the_counts(store, server):
    db, db_path = store
    server.responder = _cut_b1
    study = create(db, _text("cut-keep", server, None))  # keep is the default
    sink = ListSink()
    summary = await run_study(db, gateway(db, db_path), study, sink=sink)
    run_id = "cut-keep/toll-bridge/B1/0"
    assert summary.complete and get_run(db, run_id)["status"] == "done"
    assert get_run(db, run_id)["truncated_turns"] == 1
    out = get_output(db, run_id)
    assert out["truncated"] == 1 and out["text"].rstrip().endswith(CUT.rstrip()[-80:])
    answer = [e for e in sink.events if e.kind == "turn_finished" and e.turn == "answer"]
    assert answer[0].payload["truncated"] is True and answer[0].payload["max_tokens"] == 256
    assert [e.payload["truncated"] for e in sink.events if e.kind == "run_finished"] == [True]
    counts = study_counts(db, study)
    assert counts.truncated == {"B1": {"outputs": 1, "truncated": 1}} and counts.outputs_truncated == 1
    assert "outputs cut at max_tokens: B1 1/1" in counts.text()
    assert counts.to_dict()["outputs_truncated"] == 1
    # the same line in `study show` and the report (one definition)
    from workbench.reports.study_report import counts_section
    from workbench.studies.summary import study_summary, summary_text

    assert "- outputs cut at max_tokens: B1 1/1" in counts_section(db, study)
    assert "truncated   outputs cut at max_tokens: B1 1/1" in summary_text(study_summary(db, study))
    assert server.count == 2  # the answer and the report-shape extraction: keep asks nothing more


async def test_a_whole_reply_is_not_marked(store, server):
    db, db_path = store
    study = create(db, _text("whole", server, None))
    await run_study(db, gateway(db, db_path), study)
    run_id = "whole/toll-bridge/B1/0"
    assert get_output(db, run_id)["truncated"] == 0 and get_run(db, run_id)["truncated_turns"] == 0
    counts = study_counts(db, study)
    assert counts.outputs_truncated == 0 and "cut at max_tokens" not in counts.text()


async def test_fail_fails_the_run_naming_the_turn_and_its_max_tokens(store, server):
    db, db_path = store
    server.responder = _cut_b1
    study = create(db, _text("cut-fail", server, "fail"))
    summary = await run_study(db, gateway(db, db_path), study)
    run = get_run(db, "cut-fail/toll-bridge/B1/0")
    assert run["status"] == "failed" and not summary.complete
    assert "cut off at max_tokens = 256" in run["error"] and 'on_truncation = "fail"' in run["error"]
    assert get_output(db, run["id"]) is None


async def test_continue_asks_the_model_to_go_on_as_one_logged_turn(store, server):
    db, db_path = store
    server.responder = _cut_b1
    study = create(db, _text("cut-go-on", server, "continue"))
    sink = ListSink()
    await run_study(db, gateway(db, db_path), study, sink=sink)
    run_id = "cut-go-on/toll-bridge/B1/0"
    out = get_output(db, run_id)
    assert get_run(db, run_id)["status"] == "done"
    assert out["truncated"] == 0 and get_run(db, run_id)["truncated_turns"] == 0
    # the real model started over instead of going on: both parts are kept, joined, as it said them
    assert out["text"] == CUT + GO_ON and out["text"].count("In this scenario, we have a complex decision") == 2
    turns = [e.turn for e in sink.events if e.kind == "turn_finished"]
    assert turns[:2] == ["answer", "answer.continue1"]
    calls = {r["turn"] for r in db.query("SELECT turn FROM calls WHERE run_id = ?", [run_id])}
    assert "answer.continue1" in calls  # logged like any turn: resumable and replayable
    asked = [r for r in server.requests if r["messages"][-1]["content"] == CONTINUE_PROMPT]
    assert len(asked) == 1
    assert asked[0]["messages"][-2] == {"role": "assistant",
                                               "content": real_replies.load("b1-answer-cut-at-120")["content"]}


async def test_continue_stops_at_its_bound_and_keeps_the_reply_marked(store, server):
    db, db_path = store
    server.responder = _always_cut
    study = create(db, _text("cut-bound", server, "continue"))
    await run_study(db, gateway(db, db_path), study)
    run_id = "cut-bound/toll-bridge/B1/0"
    asked = [r for r in server.requests if r["messages"][-1]["content"] == CONTINUE_PROMPT]
    assert len(asked) == MAX_CONTINUATIONS
    assert get_output(db, run_id)["truncated"] == 1 and get_run(db, run_id)["truncated_turns"] == 1


async def test_a_cut_output_reaches_raters_with_the_mark_and_nothing_else(store, server):
    from workbench.blinding.cut_off import CUT_OFF_MARK
    from workbench.blinding.items import prepare_study

    db, db_path = store
    server.responder = _cut_b1
    study = create(db, study_text("cut-blind", conditions=("B1", "B2"), api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    prepare_study(db, study)
    texts = [r["text"] for r in db.query("SELECT text FROM blind_items WHERE study_id = ? AND pilot = 0", [study])]
    assert len(texts) == 2
    cut = [t for t in texts if t.endswith(CUT_OFF_MARK)]
    assert len(cut) == 1 and CUT.rstrip()[-80:] in cut[0]
    assert all("B1" not in t and "length" not in t for t in cut)


@pytest.mark.parametrize("value", ["maybe", 3])
def test_on_truncation_is_validated_by_name(value):
    bad = f'"{value}"' if isinstance(value, str) else str(value)
    text = f'name = "x1"\ncases = ["toll-bridge"]\nraters = []\njudges = []\n\n[model]\non_truncation = {bad}\n'
    with pytest.raises(StudyError) as err:
        parse_study_text(text, "s.toml")
    assert "model.on_truncation" in str(err.value) and "s.toml:7" in str(err.value)


def test_on_truncation_is_frozen_with_the_study():
    from workbench.studies.freeze import frozen_definition

    text = 'name = "x1"\ncases = ["toll-bridge"]\nraters = []\njudges = []\n\n[model]\non_truncation = "continue"\n'
    assert frozen_definition(parse_study_text(text, "s.toml"))["model"]["on_truncation"] == "continue"


async def test_a_cut_extraction_says_it_was_cut(store, server):
    """The report-shape extraction's reply cut mid-JSON: the reason names the cut, not only the JSON."""
    db, db_path = store

    def cut_extraction(body):
        if "the sentences of the response that state" in body["messages"][-1]["content"]:
            return Reply.text('{"recommendation": ["Resist the demands', finish_reason="length")
        return scripted(body)

    server.responder = cut_extraction
    study = create(db, _text("cut-extract", server, None))
    await run_study(db, gateway(db, db_path), study)
    report = get_output(db, "cut-extract/toll-bridge/B1/0")["report"]
    assert report["extraction"]["status"] == "unparsed"
    assert report["extraction"]["reason"].endswith("(the reply was cut off at max_tokens)")


async def test_a_cut_synthesis_marks_c1s_output(store, server):
    """C1's final output is its synthesis: the real one cut at max_tokens marks the output and the counts."""
    db, db_path = store
    synthesis = real_replies.load("c1-synthesis-cut-at-120")["content"]

    def cut_synthesis(body):
        if "Synthesize the panel's answers" in body["messages"][-1]["content"]:
            return real_replies.reply("c1-synthesis-cut-at-120")
        return scripted(body)

    server.responder = cut_synthesis
    study = create(db, study_text("cut-c1", conditions=("C1",), api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    run_id = "cut-c1/toll-bridge/C1/0"
    out = get_output(db, run_id)
    assert out["truncated"] == 1 and get_run(db, run_id)["truncated_turns"] == 1
    assert out["text"].rstrip().endswith(synthesis.rstrip()[-80:])
    assert study_counts(db, study).truncated == {"C1": {"outputs": 1, "truncated": 1}}
