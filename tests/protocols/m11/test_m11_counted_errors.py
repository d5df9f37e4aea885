"""An M11 pipeline whose Critic never gives a usable reply ends in a counted error: the run is `done with
errors` in the store, the counts, the grid and the transcript, and its retry is titled as one with the reason
(issue 25 item 5)."""

from __future__ import annotations

from store.runs import get_run
from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A
from tests.protocols.m11.test_m11_end_to_end import _create
from workbench.events import ListSink
from workbench.fidelity.study import study_fidelity
from workbench.runs.view import TranscriptModel, cell_fields, grid_states, stored_transcript
from workbench.studies.counts import study_counts

# The small model's Critic wrote the prompt's placeholders (issue 25 item 4): never three weaknesses.
PLACEHOLDER_CRITIC = '{"weaknesses": [{"category": "<accuracy|relevance|...>", "description": "<text>"}]}'


async def test_a_counted_error_is_done_with_errors_and_its_retry_says_why(m11_store, m11_server, tmp_path):
    from workbench.runs.runner import run_study

    db, db_path = m11_store
    _create(db, tmp_path, m11_server, records=(EXAMPLE_A,))

    def placeholder_critic(body):
        return PLACEHOLDER_CRITIC if m11kit.stage_of(body) == "critic" else m11kit.scripted(body)

    m11_server.responder = placeholder_critic
    sink = ListSink()
    summary = await run_study(db, m11kit.gateway(db, db_path), "m11-e2e", sink=sink)
    likert = get_run(db, "m11-e2e/seed-a-earbuds/likert/0")
    assert likert["status"] == "done_with_errors"
    assert likert["error"].startswith("counted error: critic gave no usable reply")
    assert get_run(db, "m11-e2e/seed-a-earbuds/binary/0")["status"] == "done"
    # it ran to its end: not failed, not re-run on resume
    assert summary.complete and summary.runs["done_with_errors"] == 1 and summary.runs["done"] == 1

    fidelity = study_fidelity(db, "m11-e2e")  # issue 45: the pipeline did not run through every stage
    assert (fidelity.row("likert").delivered, fidelity.row("likert").runs) == (0, 1)
    assert fidelity.row("likert").detail == "critic never parsed (1 run)"
    assert (fidelity.row("binary").delivered, fidelity.row("binary").runs) == (1, 1)

    counts = study_counts(db, "m11-e2e")
    assert counts.runs["done_with_errors"] == 1 and "1 done with errors" in counts.runs_text()

    [state] = [s for s in grid_states(db, "m11-e2e") if s["condition"] == "likert"]
    cell = cell_fields(state)
    assert cell["status"] == "done with errors" and cell["glyph"] == "!"

    # the retry: a TURN_REJECTED with the reason, then a turn titled as the retry (not a second "Critic, run 1")
    rejected = [e for e in sink.events if e.kind == "turn_rejected"]
    assert len(rejected) == 1 and rejected[0].payload["reason"] and rejected[0].turn == "critic"
    model = stored_transcript(db, likert["id"])
    titles = [e.title for e in model.entries if getattr(e, "kind", "") == "turn"]
    assert titles == ["critic · Critic, run 1", "critic · Critic, run 1 · retry 1"]
    notes = [e for e in model.entries if getattr(e, "kind", "") == "retry"]
    assert notes and notes[0].body == rejected[0].payload["reason"] and "asked again" in notes[0].title
    ends = [e for e in model.entries if getattr(e, "kind", "") == "run"]
    assert ends[-1].title == "run done with errors" and "critic" in ends[-1].body

    again = await run_study(db, m11kit.gateway(db, db_path), "m11-e2e")
    assert again.executed == 0  # done with errors is finished: resume leaves it


def test_the_transcript_model_shows_a_started_turn_without_a_rejection_as_itself():
    model = TranscriptModel()
    from workbench.events import Event

    model.consume(Event("turn_started", run_id="r", turn="t", agent="critic", payload={"label": "Critic"}))
    assert [e.title for e in model.entries] == ["critic · Critic"]


async def test_the_real_critic_cut_at_max_tokens_ends_in_a_counted_error_marked_cut(m11_store, m11_server, tmp_path):
    """SmolLM2's real Critic reply (tests/fixtures/real_replies/m11-critic-cut-at-250.json: JSON cut at max_tokens, a
    placeholder copied) for both asks: unparsed twice, each reason saying it was cut, a counted error, and the run's
    cut turns counted."""
    from tests.support import real_replies
    from workbench.runs.runner import run_study

    db, db_path = m11_store
    _create(db, tmp_path, m11_server, records=(EXAMPLE_A,))
    cut = real_replies.load("m11-critic-cut-at-250")
    assert cut["finish_reason"] == "length" and "<from the output or the attribute table>" in cut["content"]

    def real_critic(body):
        if m11kit.stage_of(body) == "critic":
            return real_replies.reply("m11-critic-cut-at-250")
        return m11kit.scripted(body)

    m11_server.responder = real_critic
    await run_study(db, m11kit.gateway(db, db_path), "m11-e2e")
    likert = get_run(db, "m11-e2e/seed-a-earbuds/likert/0")
    assert likert["status"] == "done_with_errors" and likert["truncated_turns"] == 2
    # the reason says why the JSON broke off, to the retry and in the error
    # (a cut reply is its own state, issue 40: named first)
    assert likert["error"] == ("counted error: critic gave no usable reply (cut at max_tokens: the reply contained "
                               "no valid JSON object (the reply was cut off at max_tokens))")
    retry = [b for b in m11_server.requests if m11kit.stage_of(b) == "critic"][1]
    assert ("could not be used: cut at max_tokens: the reply contained no valid JSON object (the reply was cut off at max_tokens)"
            in retry["messages"][-1]["content"])


def test_a_metajudge_check_that_never_parsed_leaves_the_pipeline_a_stage_short():
    from workbench.protocols.m11.treatment import reading

    ok = {"status": "ok", "debate": {"metajudge": [{"sycophantic": False}]}}
    assert reading(ok) == (True, "", False)
    assert reading({"status": "ok", "debate": {"metajudge": [{"error": "no JSON"}]}}) == (
        False, "the MetaJudge check never parsed", False)
    assert reading({"status": "error", "failed_stage": "defender"})[1] == "defender never parsed"
