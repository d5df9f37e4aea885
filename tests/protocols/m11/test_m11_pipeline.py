"""The M11 pipeline against the loopback server: the seed's Examples A and B, the retry rules, events."""

from __future__ import annotations

import json

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from workbench.protocols.m11 import PROTOCOL
from workbench.protocols.m11.results import sample_results


async def _study(m11_store, tmp_path, server, records, **kw):
    db, db_path = m11_store
    d = m11kit.definition(items=m11kit.write_items(tmp_path / "items.jsonl", records), **kw)
    study_id = m11kit.save_study(db, d)
    PROTOCOL.load_items(db, study_id, d)
    gw = m11kit.gateway(db, db_path)
    await m11kit.run_all(db, gw, study_id, d, m11kit.settings(server))
    return db, study_id, d


async def test_examples_a_and_b_give_the_seeds_overall_and_band(m11_store, m11_server, tmp_path):
    db, study_id, _ = await _study(m11_store, tmp_path, m11_server, [EXAMPLE_A, EXAMPLE_B])
    by_id = {r["id"]: r for r in sample_results(db, study_id)}
    a, b = by_id["seed-a-earbuds"], by_id["seed-b-water-bottle"]
    assert a["overall"] == 4.4 and a["band"] == "PASS"
    assert a["scores"] == {"accuracy": 5, "relevance": 4, "completeness": 5, "clarity": 4, "reasoning": 4}
    assert b["overall"] == 2.0 and b["band"] == "FAIL"
    assert a["binary"] == "PASS" and b["binary"] == "FAIL"
    # the output shape of seed 003 §5, kept with the whole debate
    from store.outputs import outputs_for_study

    likert = [o for o in outputs_for_study(db, study_id) if o["condition"] == "likert"]
    shape = json.loads(next(o for o in likert if o["case_id"] == "seed-b-water-bottle")["text"])
    assert set(shape) == {"overall", "scores", "summary"} and shape["overall"] == 2.0
    report = next(o for o in likert if o["case_id"] == "seed-b-water-bottle")["report"]
    assert [w["severity"] for w in report["debate"]["weaknesses"]] == ["critical", "critical", "major", "major"]
    assert [r["verdict"] for r in report["debate"]["rebuttals"]] == ["valid"] * 4
    # the stage temperatures are the seed's
    temps = {m11kit.stage_of(body): body["temperature"] for body in m11_server.requests}
    assert temps == {"critic": 0.7, "defender": 0.5, "judge": 0.3, "metajudge": 0.2, "binary": 0.3}
    assert m11_server.count == 2 * 4 + 2


async def test_a_critic_with_two_weaknesses_is_retried_once_then_counted(m11_store, m11_server, tmp_path):
    two = json.dumps({"weaknesses": [{"id": "W1", "severity": "minor", "category": "clarity", "issue": "x"},
                                     {"id": "W2", "severity": "minor", "category": "clarity", "issue": "y"}]})
    m11_server.responder = lambda body: m11kit.scripted(body, {"critic": two})
    db, study_id, _ = await _study(m11_store, tmp_path, m11_server, [EXAMPLE_A], conditions=("likert",))
    [result] = sample_results(db, study_id)
    assert result["overall"] is None and result["ok_runs"] == 0
    assert result["errors"] == [{"run_index": 0, "stage": "critic",
                                 "error": "found 2 weakness(es); at least 3 are required"}]
    assert m11_server.count == 2  # the first ask and one retry, then nothing more
    retry_prompt = m11_server.requests[1]["messages"][-1]["content"]
    assert "could not be used: found 2 weakness(es)" in retry_prompt


async def test_a_retried_critic_that_recovers_continues_the_pipeline(m11_store, m11_server, tmp_path):
    def critic(body):
        return "no JSON here" if "could not be used" not in body["messages"][-1]["content"] else None

    m11_server.responder = lambda body: m11kit.scripted(body, {"critic": critic})
    db, study_id, _ = await _study(m11_store, tmp_path, m11_server, [EXAMPLE_B], conditions=("likert",))
    [result] = sample_results(db, study_id)
    assert result["overall"] == 2.0
    assert result["run_reports"][0]["retries"] == {"critic": 1}
    assert m11_server.count == 5


async def test_a_sycophancy_flag_has_the_judge_score_once_more(m11_store, m11_server, tmp_path):
    def meta(body):
        again = "sycophantic" in body["messages"][-1]["content"].split("JUDGE SCORES")[0] and False
        first = "summary: Over-constrained" in body["messages"][-1]["content"] and not again
        return json.dumps({"sycophantic": first and not _seen.setdefault("x", False), "reason": "too kind"})

    _seen: dict = {}

    def meta_once(body):
        reply = meta(body)
        _seen["x"] = True
        return reply

    def judge(body):
        if "previous scores sycophantic: too kind" in body["messages"][-1]["content"]:
            return json.dumps({"scores": {c: {"score": 1, "evidence": "strict"} for c in
                                          ("accuracy", "relevance", "completeness", "clarity", "reasoning")},
                               "summary": "Strictly scored."})
        return None

    m11_server.responder = lambda body: m11kit.scripted(body, {"metajudge": meta_once, "judge": judge})
    db, study_id, _ = await _study(m11_store, tmp_path, m11_server, [EXAMPLE_B], conditions=("likert",))
    [result] = sample_results(db, study_id)
    report = result["run_reports"][0]
    assert report["retries"] == {"sycophancy": 1}
    assert [c["sycophantic"] for c in report["debate"]["metajudge"]] == [True, False]
    assert result["overall"] == 1.0 and report["sycophancy_unresolved"] is False
    assert m11_server.count == 6
    # the first verdict, the one flagged, stays in the results beside the one that counts (not only in the log)
    first, second = report["judge_verdicts"]
    assert (first["round"], first["sycophantic"], first["overall"], first["band"]) == (1, True, 2.0, "FAIL")
    assert first["scores"] == {"accuracy": 1, "relevance": 2, "completeness": 3, "clarity": 3, "reasoning": 1}
    assert first["summary"] == "Over-constrained: materials and safety listed as mechanisms."
    assert (second["round"], second["sycophantic"], second["overall"]) == (2, False, 1.0)
    from workbench.protocols.m11.export import export_document

    [exported] = export_document(db, study_id)["samples"]
    assert exported["pipeline_runs"][0]["judge_verdicts"] == report["judge_verdicts"]
    from screens.m11.render import debate

    shown = debate(exported).plain
    assert "Judge, round 1 (flagged sycophantic): overall 2.0 FAIL; accuracy 1, relevance 2" in shown


async def test_three_runs_give_confidence_from_their_spread(m11_store, m11_server, tmp_path):
    def judge(body):  # the third run's draw (seed 7 + 2) scores one point lower on two criteria
        if body.get("seed") == 9:
            return json.dumps({"scores": {"accuracy": {"score": 4, "evidence": "e"},
                                          "relevance": {"score": 3, "evidence": "e"},
                                          "completeness": {"score": 5, "evidence": "e"},
                                          "clarity": {"score": 4, "evidence": "e"},
                                          "reasoning": {"score": 4, "evidence": "e"}}, "summary": "s"})
        return None

    m11_server.responder = lambda body: m11kit.scripted(body, {"judge": judge})
    db, study_id, _ = await _study(m11_store, tmp_path, m11_server, [EXAMPLE_A], conditions=("likert",), runs=3)
    [result] = sample_results(db, study_id)
    assert result["run_overalls"] == [4.4, 4.4, 4.0]
    assert result["overall"] == 4.3 and result["spread"] == 0.4      # mean 4.267, shown and banded as 4.3
    assert result["confidence"] == "HIGH"  # spread 0.4, all three in PASS
    assert m11_server.count == 12
