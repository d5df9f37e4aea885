"""A copy-only extraction reply cut at max_tokens is a named state (issue 40): counted as cut, not unparsed, and
asked once more with a larger max_tokens (the rule of workbench/structured/cut.py), which the transcript, the
structured counts and the study's counts name; a reply still cut is kept counted as cut."""

from __future__ import annotations

from store.calls import calls_for
from store.outputs import get_output
from store.runs import list_runs
from tests.runner.studykit import scripted
from tests.support.loopback import Reply
from workbench.studies.counts import study_counts
from workbench.structured.counts import parse_counts, section

EXTRACTION = "the sentences of the response that state"


def cut_extractions(below: int):
    """The scripted model, but an extraction asked with fewer than `below` tokens is stopped mid-object."""
    def respond(body):
        whole = scripted(body)
        if EXTRACTION in body["messages"][-1]["content"] and body["max_tokens"] < below:
            return Reply.text(whole[: len(whole) // 2], finish_reason="length")
        return whole
    return respond


async def test_a_cut_extraction_is_counted_cut_and_asked_again_with_more_room(run_conditions, server):
    server.responder = cut_extractions(500)
    summary, events, db = await run_conditions("B1")
    (run,) = list_runs(db, "arch-study")
    assert [c["turn"] for c in calls_for(db, run_id=run["id"])] == ["answer", "extract", "extract:retry"]
    first, retry = (r["max_tokens"] for r in server.requests[1:])
    assert retry == 2 * first and first < 500 <= retry                    # what cut it changed
    assert get_output(db, run["id"])["report"]["extraction"] == {"shape": "extract", "status": "ok", "sentences": 5}
    started = [e for e in events if e.kind == "turn_started" and e.turn == "extract:retry"]
    assert f"asked again with max_tokens {retry}" in started[0].payload["retry_reason"]
    [counts] = parse_counts(db, "arch-study")
    assert (counts["step"], counts["cut"], counts["cut_asked_again"], counts["parsed"], counts["unparsed"]) == (
        "report extraction", 1, 1, 1, 0)
    line = "structured replies cut at max_tokens: 1 (report extraction 1); 1 asked again with a larger max_tokens"
    assert study_counts(db, "arch-study").cut_text() == line
    assert "Structured replies cut at max_tokens: 1 (report extraction 1); 1 asked again" in section([counts])


async def test_an_extraction_still_cut_is_kept_counted_as_cut(run_conditions, server):
    server.responder = cut_extractions(10 ** 6)
    summary, events, db = await run_conditions("B1")
    (run,) = list_runs(db, "arch-study")
    report = get_output(db, run["id"])["report"]
    assert report["extraction"]["status"] == "unparsed" and "cut off at max_tokens" in report["extraction"]["reason"]
    [counts] = parse_counts(db, "arch-study")
    assert (counts["cut"], counts["cut_asked_again"], counts["unparsed"]) == (2, 1, 0)
    assert study_counts(db, "arch-study").cut_text().endswith(
        "1 asked again with a larger max_tokens, 1 with no room left in the model's window or no attempt left")
