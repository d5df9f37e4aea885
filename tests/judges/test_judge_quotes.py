"""Judges that quote the right text (issue 25 item 7): the prompt names the response as the quote's source, a
quote copied from the rubric is refused, counted as refused, and asked again once with the reason, counted as a
retry. The first reply is reconstructed after a real one of Qwen2.5-Coder (tests/fixtures/real_replies/judge-quotes-the-rubric.json
says why); the response judged is a real SmolLM2 answer (b1-answer-cut-at-120.json)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.blinding.study_fixture import make_study
from tests.judges.scripted import criteria, split, user_text, verdict_json
from tests.support import real_replies
from workbench.judges.calls import JudgeItem, JudgeSpec
from workbench.judges.direct import direct_run
from workbench.judges.parse import QuoteRefused, parse_verdict
from workbench.judges.prompt import QUOTE_RULE, rubric_text
from workbench.judges.run import judge_study
from workbench.judges.summary import judging_text
from workbench.rubrics import load_rubric
from workbench.structured.counts import parse_counts, section
from workbench.structured.reading import PARSED, REFUSED, UNPARSED, read

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = load_rubric(ROOT / "rubrics" / "anticipation.toml")
RESPONSE = real_replies.load("b1-answer-cut-at-120")["content"]
QUOTED_RUBRIC = real_replies.load("judge-quotes-the-rubric")
ITEM = JudgeItem(id="item-1", scenario="A bridge agency is asked to exempt a cartel's trucks from tolls.",
                 outcome="The cartel blockaded the ferry; freight prices on the island rose.", response=RESPONSE)


def spec(url: str) -> JudgeSpec:
    return JudgeSpec(name="qwen-judge", model="openai/qwen-judge", api_base=url)


def quoting_the_response(body: dict) -> str:
    """A judge that does what it is told: a passage of the RECOMMENDATION block."""
    blocks, outside = split(user_text(body))
    return verdict_json(criteria(outside), 2, blocks["RECOMMENDATION"].split("\n")[2])


def test_the_fixture_quotes_the_rubric_and_the_parser_says_so():
    assert QUOTED_RUBRIC["model"].startswith("Qwen2.5-Coder-0.5B-Instruct")
    assert "llama-cpp-python 0.3.36" in QUOTED_RUBRIC["server"] and QUOTED_RUBRIC["reconstructed"].startswith("RECONSTRUCTED")
    quote = json.loads(QUOTED_RUBRIC["content"])["anticipation"]["quote"]
    assert quote in rubric_text(RUBRIC) and quote not in RESPONSE
    elsewhere = {"rubric": rubric_text(RUBRIC), "scenario": ITEM.scenario}
    reading = read(lambda t: parse_verdict(t, RUBRIC, RESPONSE, elsewhere), QUOTED_RUBRIC["content"])
    assert reading.outcome == REFUSED and not reading.ok      # it parsed: refused, not unparsed
    assert "the quote must be copied from the RECOMMENDATION (the response)" in reading.detail
    assert "was not found there; it is text of the rubric, not of the response" in reading.detail
    try:
        parse_verdict(QUOTED_RUBRIC["content"], RUBRIC, RESPONSE, elsewhere)
    except QuoteRefused as exc:
        assert (exc.criterion, exc.source) == ("anticipation", "rubric")
    else:
        raise AssertionError("a quote of the rubric was accepted")
    # a reply that does not parse stays unparsed
    assert read(lambda t: parse_verdict(t, RUBRIC, RESPONSE), "no json here").outcome == UNPARSED


async def test_a_quote_of_the_rubric_is_asked_again_once_with_the_reason_then_the_responses_quote_is_kept(
        store, loopback_server):
    db, gateway = store
    sid = make_study(db, conditions=["B1"], pilot_items=False)
    loopback_server.queue(real_replies.reply("judge-quotes-the-rubric"))
    loopback_server.responder = quoting_the_response
    outcome = await direct_run(gateway, spec(loopback_server.url), sid, ITEM, RUBRIC)
    assert outcome.ok and loopback_server.count == 2
    assert outcome.scores["anticipation"]["quote"] in RESPONSE
    assert (outcome.retries, outcome.quote_retries) == (1, 1)
    assert [r.outcome for _, _, r in outcome.readings] == [REFUSED, PARSED]
    first, second = (user_text(b) for b in loopback_server.requests)
    # the prompt names which text to quote; the seed's rubric text is shown unchanged
    assert QUOTE_RULE in first and rubric_text(RUBRIC) in first and RUBRIC.instructions.strip() in first
    assert "could not be used" not in first
    assert ("Your previous reply could not be used: anticipation: the quote must be copied from the "
            "RECOMMENDATION (the response);") in second
    assert "it is text of the rubric, not of the response" in second


async def test_a_judge_that_quotes_the_rubric_again_gets_one_corrective_retry_only(store, loopback_server):
    db, gateway = store
    sid = make_study(db, conditions=["B1"], pilot_items=False)
    loopback_server.responder = lambda body: real_replies.reply("judge-quotes-the-rubric")
    outcome = await direct_run(gateway, spec(loopback_server.url), sid, ITEM, RUBRIC)
    assert not outcome.ok and outcome.scores == {}
    assert loopback_server.count == 2                      # not the three attempts an unparsed reply gets
    assert (outcome.retries, outcome.quote_retries) == (1, 1)
    assert len(outcome.reasons) == 2 and all("text of the rubric" in r for r in outcome.reasons)


async def test_an_unparsed_reply_still_gets_its_retries_and_then_one_corrective_one(store, loopback_server):
    db, gateway = store
    sid = make_study(db, conditions=["B1"], pilot_items=False)
    loopback_server.queue("Sure! {score: 2", real_replies.reply("judge-quotes-the-rubric"))
    loopback_server.responder = quoting_the_response
    outcome = await direct_run(gateway, spec(loopback_server.url), sid, ITEM, RUBRIC)
    assert outcome.ok and loopback_server.count == 3
    assert [r.outcome for _, _, r in outcome.readings] == [UNPARSED, REFUSED, PARSED]
    assert (outcome.retries, outcome.quote_retries) == (2, 1)


def rubric_quoter_then_obedient(body: dict) -> str:
    """First quotes a score description of the rubric it is shown; told why, quotes the response."""
    blocks, outside = split(user_text(body))
    if "could not be used" in outside:
        return quoting_the_response(body)
    anchor = next(line.split(":", 1)[1].strip() for line in outside.splitlines()
                  if line.strip().startswith("2 = "))
    return verdict_json(criteria(outside), 2, anchor)


async def test_judging_a_study_counts_the_refused_quotes_and_their_retries(store, loopback_server):
    db, gateway = store
    loopback_server.responder = rubric_quoter_then_obedient
    sid = make_study(db, conditions=["B1", "B2"], pilot_items=False,
                     judges=[{"name": "j1", "model": "openai/j1", "api_base": loopback_server.url,
                              "temperature": 0.0, "pipeline": "direct", "runs": 1}])
    report = await judge_study(db, gateway, sid)
    summary = report.judges[0]
    pairs = 2 * 2                                           # two items, two rubrics
    assert (summary.ok, summary.judge_errors, summary.retries, summary.quote_retries) == (pairs, 0, pairs, pairs)
    assert loopback_server.count == 2 * pairs
    [counts] = parse_counts(db, sid)
    assert (counts["step"], counts["parsed"], counts["refused"], counts["unparsed"], counts["replies"]) == (
        "judge", pairs, pairs, 0, 2 * pairs)
    assert f"| judge | {pairs} | 0 | {pairs} | 0 | {2 * pairs} |" in section([counts])
    rows = db.query("SELECT detail FROM verdicts WHERE study_id = ?", [sid])
    assert all(json.loads(r["detail"])["runs"][0]["quote_retries"] == 1 for r in rows)
    text = judging_text(report.to_dict())
    assert f"{pairs} retries ({pairs} after a quote not found in the response)" in text
