"""Gold and attention items: planted at the pre-registered rates, indistinguishable from the study's own
items by any field a rater or judge receives, and never in a table."""

from __future__ import annotations

import json
import math
import re

import pytest

from store import blind as blind_rows
from store.quality import planted
from tests.evaluators.helpers import quality_study
from tests.judges.scripted import split, user_text, verdict_json, criteria
from tests.scoring.scoring_helpers import score_pilots
from workbench.blinding.items import prepare_study
from workbench.judges.run import judge_items, judge_study
from workbench.blinding.context import load_study
from workbench.evaluators.study import study_quality
from workbench.metrics.ratings import load_ratings
from workbench.scoring.packets import build_packet

OPAQUE = re.compile(r"^i-[0-9a-f]{12}$")


def test_planted_at_the_rates_and_sealed(db):
    sid = quality_study(db)
    summary = prepare_study(db, sid)
    sealed = planted(db, sid)
    kinds = sorted(p["kind"] for p in sealed.values())
    real = 7
    # gold: ceil(0.3 x 7) = 3 asked, the one case's two built items available; attention: ceil(0.2 x 7) = 2
    assert kinds.count("gold") == min(math.ceil(0.3 * real), 2) and kinds.count("attention") == math.ceil(0.2 * real)
    assert summary.items_created == real and summary.pilots_created == 2
    gold = [p for p in sealed.values() if p["kind"] == "gold"]
    assert {p["source"] for p in gold} == {"outcome:harbor-expansion:high", "outcome:harbor-expansion:low"}
    high = next(p for p in gold if p["source"].endswith("high"))
    assert high["expected"] == {"anticipation": {"anticipation": 3}, "epistemic-humility": {"calibration": 3}}
    attention = next(p for p in sealed.values() if p["kind"] == "attention")
    assert attention["expected"] == {"anticipation": {"anticipation": 1}, "epistemic-humility": {"calibration": 1}}


def test_a_study_without_quality_plants_nothing(db):
    from tests.blinding.study_fixture import make_study

    sid = make_study(db)
    prepare_study(db, sid)
    assert planted(db, sid) == {}


def test_no_field_a_rater_receives_tells_a_planted_item_apart(db):
    sid = quality_study(db)
    prepare_study(db, sid)
    sealed = planted(db, sid)
    items = {i["id"]: i for i in blind_rows.blind_items(db, sid)}
    for item_id in sealed:
        assert OPAQUE.match(item_id) and items[item_id]["pilot"] == 0
    # the layout of the real items (the four report headings), and a length within their band
    for item_id in sealed:
        text = items[item_id]["text"]
        assert [h for h in ("RECOMMENDATION:", "REASONING:", "RISKS:", "CONFIDENCE:") if h in text] == \
               ["RECOMMENDATION:", "REASONING:", "RISKS:", "CONFIDENCE:"]
    band = study_quality(db, sid).lengths
    assert band["outside"] == 0 and band["real"][0] <= band["planted"][0] <= band["planted"][1] <= band["real"][1]
    for rater in ("rater-a", "rater-b"):
        queue = blind_rows.assignments(db, sid, rater)
        assert set(sealed) <= {q["item_id"] for q in queue}, "every rater gets every planted item"
        positions = [q["position"] for q in queue if q["item_id"] in sealed]
        assert min(positions) >= 2  # not with the calibration pilots, which come first
        assert {tuple(sorted(q)) for q in queue if q["item_id"] in sealed} == {tuple(sorted(q)) for q in queue}
        score_pilots(db, sid, rater)
        packet = build_packet(db, sid, rater)
        entries = {i["item"]: i for i in packet["sealed"]["items"]}
        real_keys = {tuple(sorted(e)) for k, e in entries.items() if k not in sealed}
        for item_id in sealed:
            entry = entries[item_id]
            assert tuple(sorted(entry)) in real_keys
            assert entry["rubrics"] == next(e["rubrics"] for k, e in entries.items() if k not in sealed)
            assert re.match(r"^Response ", entry["label"]) and entry["case"] == "case-1"
            assert set(packet["answers"][item_id]) == set(next(a for k, a in packet["answers"].items()
                                                               if k not in sealed))
        text = json.dumps(packet)
        for word in ("gold", "attention_", "planted", "expected", "outcome:harbor"):
            assert word not in text.lower().replace("attention check", ""), word


async def test_judges_get_gold_items_in_the_same_prompt_and_never_attention_items(store, loopback_server):
    db, gateway = store
    loopback_server.responder = lambda body: verdict_json(criteria(user_text(body)), 2,
                                                          split(user_text(body))[0]["RECOMMENDATION"])
    judge = {"name": "j1", "model": "openai/j1", "api_base": loopback_server.url, "temperature": 0.0,
             "pipeline": "direct", "runs": 1}
    sid = quality_study(db, judges=[judge], pilot_items=False)
    prepare_study(db, sid)
    sealed = planted(db, sid)
    queue = [item.id for item, _case, _pilot in judge_items(db, load_study(db, sid))]
    gold = {i for i, p in sealed.items() if p["kind"] == "gold"}
    assert gold <= set(queue) and not ({i for i, p in sealed.items() if p["kind"] == "attention"} & set(queue))
    assert queue == sorted(queue)  # by opaque id: gold items fall among the real ones
    texts = {i["id"]: i["text"] for i in blind_rows.blind_items(db, sid)}
    await judge_study(db, gateway, sid)
    shapes = {}
    for body in loopback_server.requests:
        blocks, outside = split(user_text(body))
        item = next(i for i, t in texts.items() if t.strip() == blocks["RECOMMENDATION"].strip())
        metadata_keys = tuple(sorted((body.get("metadata") or {})))
        shapes.setdefault(item in gold, set()).add((outside, tuple(sorted(blocks)), metadata_keys,
                                                    json.dumps([m["role"] for m in body["messages"]])))
    assert shapes[True] <= shapes[False], "a gold item's prompt differs from a real item's beyond its text"


def test_planted_items_never_enter_the_tables(db):
    sid = quality_study(db)
    prepare_study(db, sid)
    data = load_ratings(db, sid)
    assert not set(planted(db, sid)) & set(data.items)
    assert data.planted_items == len(planted(db, sid)) == 4


async def test_the_planted_audit_flags_gold_items_that_stand_out(store, loopback_server):
    from workbench.gateway.api import ModelSettings
    from workbench.judges.audit import audit_study
    from workbench.judges.planted_audit import audit_planted

    db, gateway = store
    sid = quality_study(db, pilot_items=False)
    prepare_study(db, sid)
    sealed = planted(db, sid)

    def spotter(body):  # an auditor that recognises the built gold texts' wording
        response = split(user_text(body))[0]["RESPONSE"]
        check = "decision gate" in response or "Go ahead immediately" in response
        return json.dumps({"guess": "check" if check else "study", "reason": "its wording"})

    loopback_server.responder = spotter
    settings = ModelSettings(model="openai/auditor", api_base=loopback_server.url)
    report = await audit_planted(db, gateway, sid, settings)
    assert (report.gold, report.gold_called_check, report.real, report.real_called_check) == (2, 2, 7, 0)
    from scipy.stats import fisher_exact

    assert report.p_value == pytest.approx(fisher_exact([[2, 0], [0, 7]], alternative="greater").pvalue)
    assert report.leak_suspected
    attention = {i for i, p in sealed.items() if p["kind"] == "attention"}
    for body in loopback_server.requests:  # attention items are never audited
        assert not any(blind_rows.blind_item(db, i)["text"] in user_text(body) for i in attention)
    # the setup audit leaves planted items out: they have no setup to guess
    loopback_server.requests.clear()
    loopback_server.responder = lambda body: json.dumps({"guess": "B1", "reason": "a guess"})
    setup = await audit_study(db, gateway, sid, ModelSettings(model="openai/auditor2", api_base=loopback_server.url))
    assert setup.n + setup.invalid == 7


async def test_the_planted_audit_passes_when_gold_items_blend_in(store, loopback_server):
    from workbench.gateway.api import ModelSettings
    from workbench.judges.planted_audit import audit_planted

    db, gateway = store
    sid = quality_study(db, pilot_items=False)
    prepare_study(db, sid)
    loopback_server.responder = lambda body: json.dumps({"guess": "study", "reason": "reads like the rest"})
    report = await audit_planted(db, gateway, sid, ModelSettings(model="openai/auditor", api_base=loopback_server.url))
    assert report.gold_called_check == 0 and report.p_value == 1.0 and not report.leak_suspected


async def test_a_failed_audit_call_is_counted_said_and_asked_again_next_time(store, loopback_server):
    from tests.support.loopback import Reply
    from workbench.gateway.api import ModelSettings
    from workbench.judges.planted_audit import audit_planted

    db, gateway = store
    sid = quality_study(db, pilot_items=False)
    prepare_study(db, sid)
    first = min(i["id"] for i in blind_rows.blind_items(db, sid) if planted(db, sid).get(i["id"], {}).get("kind")
                != "attention")
    first_text = blind_rows.blind_item(db, first)["text"]
    study = lambda body: json.dumps({"guess": "study", "reason": "reads like the rest"})  # noqa: E731
    loopback_server.responder = lambda body: (Reply.status(401, message="bad key") if first_text in user_text(body)
                                              else study(body))
    said: list[str] = []
    settings = ModelSettings(model="openai/auditor", api_base=loopback_server.url)
    report = await audit_planted(db, gateway, sid, settings, progress=said.append)
    assert report.failed_calls == 1 and report.gold + report.real == 8
    assert len(said) == 1 and said[0].startswith(f"planted audit: call failed for {first} (")
    assert said[0].endswith("it will be retried next time")
    loopback_server.requests.clear()
    loopback_server.responder = study
    report = await audit_planted(db, gateway, sid, settings)
    assert report.failed_calls == 0 and report.gold + report.real == 9
    assert len(loopback_server.requests) == 1 and first_text in user_text(loopback_server.requests[0])


def test_gold_file_items_a_length_would_tell_apart_are_left_out_and_named(db):
    """A gold file's item longer than every real item or shorter than all of them is never planted (its
    length alone would give it away); `evaluators qc` and the report name it, with its length and the band."""
    from tests.evaluators.helpers import NEUTRAL, TEXTS
    from workbench.evaluators.report import quality_text

    expected = {"anticipation": {"anticipation": 3}}
    gold = [{"name": "fits", "case": "harbor-expansion", "text": NEUTRAL + " Demand gates hold each stage.",
             "expected": expected},
            {"name": "too-long", "case": "harbor-expansion", "text": NEUTRAL * 6, "expected": expected},
            {"name": "too-short", "case": "harbor-expansion", "text": "RECOMMENDATION: Wait. " + "word " * 20,
             "expected": expected}]
    sid = quality_study(db, pilot_items=False, quality={"gold_rate": 1.0, "attention_rate": 0.0,
                                                        "gold_file": "gold.toml", "gold_items": gold})
    prepare_study(db, sid)
    sealed = planted(db, sid)
    assert sorted(p["source"] for p in sealed.values()) == ["fits"]
    lengths = [len(i["text"]) for i in blind_rows.blind_items(db, sid) if i["id"] not in sealed]
    lo, hi = min(lengths), max(lengths)
    assert (lo, hi) == (min(map(len, TEXTS.values())), max(map(len, TEXTS.values())))  # the scrubber kept them
    assert len(gold[2]["text"]) < lo <= len(gold[0]["text"]) <= hi < len(gold[1]["text"])
    sq = study_quality(db, sid)
    assert sq.gold_left_out == [{"name": "too-long", "length": len(gold[1]["text"]), "band": [lo, hi]},
                                {"name": "too-short", "length": len(gold[2]["text"]), "band": [lo, hi]}]
    assert sq.lengths["outside"] == 0 and sq.planted["gold"] == 1
    text = quality_text(sq)
    assert (f"gold file gold.toml: item 'too-long' left out: {len(gold[1]['text'])} characters, outside the real "
            f"items' length band {lo}-{hi} characters (a length would tell it apart)") in text
    assert "item 'too-short' left out" in text and "item 'fits'" not in text
    assert sq.to_dict()["gold_left_out"] == sq.gold_left_out
