"""A judge's runs and retries are independent draws (issue 25 item 6): run r of a judge goes with the
judge's seed + r, and each retry's sample gets its own seed in the gateway, where it is recorded."""

from __future__ import annotations

import json

from store import open_store
from store.calls import calls_for
from tests.support.gateways import test_gateway
from workbench.gateway import ModelSettings
from workbench.gateway.seeds import sample_seed
from workbench.judges.calls import ask_json
from workbench.judges.parse import InvalidReply


def _valid(text: str):
    if "ok" not in text:
        raise InvalidReply("no ok")
    return text


async def test_judge_runs_and_retries_draw_with_their_own_seeds(tmp_path, loopback_server):
    replies = iter(["bad", "ok", "ok", "bad", "bad", "ok"])
    loopback_server.responder = lambda body: next(replies)
    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    gw = test_gateway(db, db_path)
    settings = ModelSettings(model="openai/judge", api_base=loopback_server.url, seed=11, temperature=0.0)
    for run_index in range(3):
        asked = await ask_json(gw, lambda note: [{"role": "user", "content": "judge this"}], _valid,
                               settings=settings, study_id="s1", turn="judge/r", agent="j", replicate=run_index)
        assert asked.ok
    sent = [body["seed"] for body in loopback_server.requests]
    # run 0: seed 11, then its retry (sample 1); run 1: 12; run 2: 13 and two retries (samples 1, 2)
    assert sent == [11, sample_seed(11, 1), 12, 13, sample_seed(13, 1), sample_seed(13, 2)]
    assert [json.loads(r["settings"])["seed"] for r in calls_for(db, study_id="s1")] == sent
