"""DQ-3 concern coverage: judged by a model through the real gateway (loopback server), or entered by a rater."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.metrics_integration.conftest import BUSINESS, FakeEmbedder, B, G, H
from tests.support.loopback import loopback
from workbench.gateway import GatewayConfig, ModelSettings, build_gateway
from workbench.gateway.retry import RetryPolicy
from workbench.protocols.hindsight.metrics.concern_coverage import (
    ConcernInputError,
    assess_study_concerns,
    parse_concern_reply,
    read_concern_file,
    record_rater_concerns,
)
from workbench.protocols.hindsight.metrics.dq_study import run_decision_quality
from workbench.protocols.hindsight.metrics.study_data import load_study_data

FAST = GatewayConfig(retry=RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.05, max_total=5.0),
                     stall_timeout=2.0)


def listed_concerns(body: dict) -> list[str]:
    user = body["messages"][-1]["content"]
    head = user.split("<analysis>")[0]
    return [line[2:] for line in head.splitlines() if line.startswith("- ")]


def test_parse_reply_shapes():
    concerns = ["Cost", "Security", "Timeline"]
    values, errors, evidence = parse_concern_reply(
        '```json\n{"concerns": [{"concern": "cost", "score": 1, "evidence": "budget table"},'
        ' {"concern": "Security", "score": "partial"}, {"concern": "Timeline", "score": 0.7}]}\n```', concerns)
    assert values == {"Cost": 1.0, "Security": 0.5, "Timeline": None}
    assert "invalid score" in errors["Timeline"] and evidence["Cost"] == "budget table"
    values, errors, _ = parse_concern_reply('Here: {"Cost": 0, "Security": 1}', concerns)
    assert values == {"Cost": 0.0, "Security": 1.0, "Timeline": None} and "missing" in errors["Timeline"]
    with pytest.raises(ValueError):
        parse_concern_reply("I think it covers most of them.", concerns)
    with pytest.raises(ValueError):
        parse_concern_reply('{"concerns": "all good"}', concerns)


def test_assess_through_gateway_with_retry_errors_and_resume(seeded):
    db, path, s = seeded
    bad_run = s.run_ids[(G, "B2", 0)]
    bad_text = load_study_data(db, "seeded-study").outputs[bad_run]
    targets = [s.run_ids[(H, "B1", 0)], bad_run, s.run_ids[(B, "C3", 0)]]

    def responder(body):
        user = body["messages"][-1]["content"]
        if bad_text in user:
            return "Sorry, I cannot produce JSON today."
        return json.dumps({"concerns": [{"concern": c, "score": [1, 0.5, 0][i % 3], "evidence": ""}
                                        for i, c in enumerate(listed_concerns(body))]})

    with loopback(responder) as server:
        settings = ModelSettings(model="openai/concern-test", api_base=server.url, temperature=0.0, timeout=5)
        gateway = build_gateway(db, path, config=FAST)
        summary = asyncio.run(assess_study_concerns(db, path, "seeded-study", settings, gateway=gateway,
                                                    run_ids=targets))
        assert summary.runs_asked == 3 and server.count == 4  # the bad run was asked twice
        # the bad run's replies never parsed: it is counted unparsed, never "assessed"
        assert (summary.runs_assessed, summary.runs_parsed, summary.runs_unparsed) == (2, 2, 1)
        assert summary.text().startswith("2/3 runs assessed: 2 parsed, 1 reply unparseable;")
        first = server.requests[0]["messages"]
        assert first[0]["role"] == "system" and "substantive statement" in first[0]["content"]
        assert "ignore any" in first[0]["content"]
        data = load_study_data(db, "seeded-study")
        rows = [c for c in data.concern_scores if c.run_id == bad_run]
        assert len(rows) == 9 and all(c.value is None and c.source == "model" for c in rows)
        raw = json.loads(db.execute("SELECT raw FROM concern_scores WHERE run_id = ? LIMIT 1",
                                    [bad_run]).fetchone()[0])
        assert "unparseable" in raw["error"] and raw["reply"].startswith("Sorry")
        runs = {r.run_id: r for r in run_decision_quality(data, FakeEmbedder())}
        assert not runs[bad_run].dq3.defined  # unassessed, not 0
        good = runs[s.run_ids[(H, "B1", 0)]]
        assert good.dq3.value == pytest.approx((1 + 0.5 + 0) * 3 / 9)
        assert summary.concerns_failed == 9 and summary.concerns_scored == 18
        # The calls went through the gateway's log with role "concern".
        assert db.execute("SELECT count(*) FROM calls WHERE role = 'concern'").fetchone()[0] >= 3

        # Resume: runs fully assessed are skipped; the failed one is asked again (and still fails).
        server.reset()
        again = asyncio.run(assess_study_concerns(db, path, "seeded-study", settings, gateway=gateway,
                                                  run_ids=targets))
        assert again.runs_skipped == 2 and again.runs_asked == 1 and again.runs_assessed == 0


def test_record_rater_concerns_all_or_nothing(seeded, tmp_path):
    db, _, s = seeded
    rid = s.run_ids[(B, "C3", 0)]
    good = tmp_path / "concerns.csv"
    good.write_text("run_id,concern,value\n" + "".join(
        f"{rid},{c},{v}\n" for c, v in zip(["Performance", "cost", "Security"], ["1", "partial", "absent"])))
    assert record_rater_concerns(db, "seeded-study", "rater-a", read_concern_file(good), source_name=str(good)) == 3
    rows = [c for c in load_study_data(db, "seeded-study").concern_scores if c.run_id == rid]
    assert {(c.concern, c.value, c.source, c.rater) for c in rows} == {
        ("Performance", 1.0, "rater", "rater-a"), ("Cost", 0.5, "rater", "rater-a"),
        ("Security", 0.0, "rater", "rater-a")}
    bad = tmp_path / "bad.csv"
    bad.write_text(f"run_id,concern,value\n{rid},Performance,1\n{rid},Charisma,1\nno-such-run,Cost,1\n"
                   f"{rid},Cost,0.7\n")
    before = db.execute("SELECT count(*) FROM concern_scores").fetchone()[0]
    with pytest.raises(ConcernInputError) as exc:
        record_rater_concerns(db, "seeded-study", "rater-a", read_concern_file(bad), source_name="bad.csv")
    msg = str(exc.value)
    assert "bad.csv:3: concern: 'Charisma'" in msg and "bad.csv:4: run_id" in msg and "bad.csv:5: value" in msg
    assert db.execute("SELECT count(*) FROM concern_scores").fetchone()[0] == before
    header = tmp_path / "header.csv"
    header.write_text("run,concern\nx,y\n")
    with pytest.raises(ConcernInputError, match="header needs the columns"):
        read_concern_file(header)


def test_rater_covering_every_concern_wins_over_model(seeded, tmp_path):
    db, _, s = seeded
    rid = s.run_ids[(H, "C2", 0)]  # the model scored it 6.5 / 9
    rows = [{"run_id": rid, "concern": c, "value": 1, "line": i} for i, c in enumerate(BUSINESS)]
    record_rater_concerns(db, "seeded-study", "rater-b", rows)
    data = load_study_data(db, "seeded-study")
    run = next(r for r in run_decision_quality(data, FakeEmbedder()) if r.run_id == rid)
    assert run.concern_source == "rater" and run.dq3.value == 1.0
