"""Independent samples are independent: every (replicate, sample) draw gets its own seed, derived from
the study's seed, sent to the server and recorded with the call (issue 25 item 6)."""

from __future__ import annotations

import hashlib
import json

from store.calls import calls_for
from workbench.gateway import CallRequest, ModelSettings
from workbench.gateway.seeds import draw_seed, sample_seed


def test_sample_zero_keeps_the_draws_seed_and_no_seed_stays_none():
    assert sample_seed(7, 0) == 7 and draw_seed(7, 0) == 7
    assert sample_seed(None, 3) is None and draw_seed(None, 3) is None


def test_sample_seeds_are_the_documented_hash_of_seed_and_sample():
    # recomputed here from the rule the module documents, not read back from it
    for seed, k in [(7, 1), (7, 4), (8, 1), (123456, 2)]:
        expect = int.from_bytes(hashlib.sha256(f"workbench-sample:{seed}:{k}".encode()).digest()[:8], "big") % 2**31
        assert sample_seed(seed, k) == expect


def test_no_two_replicate_sample_pairs_share_a_seed():
    seeds = {(d, k): sample_seed(draw_seed(7, d), k) for d in range(20) for k in range(10)}
    assert len(set(seeds.values())) == len(seeds)
    assert all(0 <= s < 2**31 for s in seeds.values())


async def test_each_sample_is_sent_and_recorded_with_its_own_seed(db, make_gateway, loopback_server):
    loopback_server.responder = lambda body: f"drawn with seed {body.get('seed')}"
    gateway = make_gateway()
    settings = ModelSettings(model="openai/test", api_base=loopback_server.url, seed=7, temperature=0.7)
    prompt = [{"role": "user", "content": "the same prompt"}]
    texts = [(await gateway.call(CallRequest(messages=prompt, settings=settings, study_id="s1", sample=k))).text
             for k in range(5)]
    sent = [body["seed"] for body in loopback_server.requests]
    assert sent == [7] + [sample_seed(7, k) for k in range(1, 5)] and len(set(sent)) == 5
    assert len(set(texts)) == 5
    recorded = [json.loads(r["settings"])["seed"] for r in calls_for(db, study_id="s1")]
    assert recorded == sent
    # the replay key follows the seed: asking sample 3 again is served from the log, no new request
    again = await gateway.call(CallRequest(messages=prompt, settings=settings, study_id="s1", sample=3))
    assert again.replayed and again.text == texts[3] and loopback_server.count == 5
