"""A DQ-3 concern assessment cut at max_tokens is a named state (issue 40): counted as cut, not as unparseable, and
its fresh sample is asked with a larger max_tokens (workbench/structured/cut.py), never the same request again."""

from __future__ import annotations

import asyncio
import json

from tests.metrics_integration.conftest import H, seeded  # noqa: F401  (seeded: the fixture)
from tests.metrics_integration.test_concern_coverage import FAST, listed_concerns
from tests.support.loopback import Reply, loopback
from workbench.gateway import ModelSettings, build_gateway
from workbench.protocols.hindsight.metrics.concern_coverage import assess_study_concerns


def cut_below(tokens: int):
    def respond(body):
        whole = json.dumps({"concerns": [{"concern": c, "score": 1, "evidence": ""} for c in listed_concerns(body)]})
        return Reply.text(whole[: len(whole) // 2], finish_reason="length") if body["max_tokens"] < tokens else whole
    return respond


def assess(db, path, run_id: str, below: int):
    with loopback(cut_below(below)) as server:
        settings = ModelSettings(model="openai/concern-cut", api_base=server.url, temperature=0.0, timeout=5,
                                 max_tokens=100)
        summary = asyncio.run(assess_study_concerns(db, path, "seeded-study", settings, run_ids=[run_id],
                                                    gateway=build_gateway(db, path, config=FAST), redo=True))
        return summary, [r["max_tokens"] for r in server.requests]


def test_a_cut_assessment_is_asked_again_with_more_room(seeded):  # noqa: F811
    db, path, s = seeded
    summary, asked = assess(db, path, s.run_ids[(H, "B1", 0)], below=200)
    assert asked == [100, 200]                                     # what cut it changed
    assert (summary.runs_assessed, summary.runs_cut, summary.runs_unparsed, summary.cut_asked_again) == (1, 0, 0, 1)
    assert "1 cut reply asked again with a larger max_tokens" in summary.text()


def test_an_assessment_still_cut_is_counted_cut_not_unparseable(seeded):  # noqa: F811
    db, path, s = seeded
    summary, asked = assess(db, path, s.run_ids[(H, "B1", 0)], below=10 ** 6)
    assert asked == [100, 200]
    assert (summary.runs_assessed, summary.runs_cut, summary.runs_unparsed) == (0, 1, 0)
    assert summary.text().startswith("0/1 runs assessed: 1 reply cut at max_tokens, 1 cut reply asked again")
    raw = json.loads(db.execute("SELECT raw FROM concern_scores WHERE run_id = ? LIMIT 1",
                                [s.run_ids[(H, "B1", 0)]]).fetchone()[0])
    assert raw["error"].startswith("cut at max_tokens 200")
