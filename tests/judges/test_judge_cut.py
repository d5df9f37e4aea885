"""A judge reply cut at max_tokens is a named state (issue 40): counted as cut, not as a parse error, in the
judging summary and the structured counts; its retry changes what cut it (a larger max_tokens within the
window, or one criterion a call), never the same request again."""

from __future__ import annotations

import json

from tests.blinding.study_fixture import HUMILITY, make_study
from tests.judges.scripted import criteria, split, user_text, verdict_json
from tests.support.loopback import Reply
from workbench.gateway import context_window
from workbench.judges.calls import JudgeItem, JudgeSpec
from workbench.judges.direct import direct_run
from workbench.judges.run import judge_study
from workbench.judges.summary import judging_text
from workbench.rubrics import parse_rubric
from workbench.structured.counts import parse_counts


def judge(url: str, max_tokens: int) -> dict:
    return {"name": "j1", "model": "openai/j1", "api_base": url, "temperature": 0.0, "pipeline": "direct",
            "runs": 1, "max_tokens": max_tokens}


def cut_below(tokens: int):
    """A judge whose whole verdict needs `tokens`: asked for fewer, it is stopped mid-object (finish_reason
    "length"), as a server stops at max_tokens."""
    def respond(body):
        blocks, outside = split(user_text(body))
        whole = verdict_json(criteria(outside), 2, blocks.get("RECOMMENDATION", ""))
        if body["max_tokens"] < tokens:
            return Reply.text(whole[: len(whole) // 2], finish_reason="length")
        return whole
    return respond


async def test_a_cut_reply_is_counted_cut_and_its_retry_asks_for_more_tokens(store, loopback_server):
    db, gateway = store
    loopback_server.responder = cut_below(150)
    sid = make_study(db, conditions=["B1"], pilot_items=False, judges=[judge(loopback_server.url, 100)])
    report = await judge_study(db, gateway, sid)
    summary = report.judges[0]
    assert (summary.ok, summary.judge_errors, summary.cut, summary.cut_mended) == (2, 0, 2, 2)
    assert sorted(r["max_tokens"] for r in loopback_server.requests) == [100, 100, 200, 200]  # the cause changed
    [counts] = parse_counts(db, sid)
    assert (counts["step"], counts["cut"], counts["unparsed"], counts["parsed"]) == ("judge", 2, 0, 2)
    text = judging_text(report.to_dict())
    assert "2 replies cut at max_tokens 100 (2 mended by a larger max_tokens or one criterion a call)" in text


async def test_a_reply_still_cut_is_a_judge_error_named_cut_not_a_parse_error(store, loopback_server):
    db, gateway = store
    loopback_server.responder = cut_below(10_000)
    sid = make_study(db, conditions=["B1"], pilot_items=False, judges=[judge(loopback_server.url, 100)])
    report = await judge_study(db, gateway, sid)
    summary = report.judges[0]
    assert (summary.judge_errors, summary.cut_errors, summary.cut) == (2, 2, 6)
    assert sorted({r["max_tokens"] for r in loopback_server.requests}) == [100, 200, 400]
    [counts] = parse_counts(db, sid)
    assert (counts["cut"], counts["unparsed"]) == (6, 0)
    errors = list(db["verdicts"].rows_where("study_id = ? AND status = 'judge_error'", [sid]))
    assert errors and all(json.loads(r["detail"])["cut"] for r in errors)
    assert "2 still cut: raise the judge's max_tokens" in judging_text(report.to_dict())


TWO_CRITERIA = HUMILITY + """
[[criteria]]
id = "hedging"
name = "Hedging"
question = "Were the hedges proportionate?"
min = 0
max = 3
anchors = [
  { score = 0, label = "None", text = "No hedges." },
  { score = 1, label = "Few", text = "Some hedges." },
  { score = 2, label = "Most", text = "Most hedges fit." },
  { score = 3, label = "Proportionate", text = "Hedges fit the evidence." },
]
"""


async def test_with_no_room_left_in_the_window_a_cut_rubric_is_asked_one_criterion_a_call(store, loopback_server):
    db, gateway = store
    rubric = parse_rubric(TWO_CRITERIA)
    assert len(rubric.criteria) == 2

    def respond(body):
        blocks, outside = split(user_text(body))
        asked = criteria(outside)
        whole = verdict_json(asked, 1, blocks.get("RECOMMENDATION", ""))
        return Reply.text(whole[:30], finish_reason="length") if len(asked) > 1 else whole

    loopback_server.responder = respond
    spec = JudgeSpec(name="j1", model="openai/j1", api_base=loopback_server.url, max_tokens=100)
    # the window leaves no more than the 100 tokens asked: a larger max_tokens cannot help
    context_window.learned[("openai/j1", loopback_server.url)] = context_window.Window(150, "a test")
    item = JudgeItem(id="item-1", scenario="A harbour.", outcome=None,
                     response="RECOMMENDATION: Expand in stages. RISKS: a demand contraction.")
    outcome = await direct_run(gateway, spec, None, item, rubric)
    assert outcome.ok and outcome.split and outcome.cut == 1
    assert set(outcome.scores) == {c.id for c in rubric.criteria}
    asked = [criteria(split(user_text(b))[1]) for b in loopback_server.requests]
    assert asked == [[c.id for c in rubric.criteria], [rubric.criteria[0].id], [rubric.criteria[1].id]]
    assert {r["max_tokens"] for r in loopback_server.requests} == {100}
