"""Self-consistency's five samples are five independent draws (issue 25 item 6): under a server that
answers by the request's seed, as llama-cpp-python's does, they are five different requests with five
different answers. Before, all five went with the study's seed and came back byte-identical."""

from __future__ import annotations

import json

from tests.protocols.faultline.faultline_kit import TOPIC, gateway, make_study, scripted
from tests.protocols.faultline.test_faultline_programs import ctx_for
from workbench.gateway.seeds import sample_seed
from workbench.protocols.faultline import PROTOCOL


def seeded(body: dict) -> str:
    """A seeding server: the same prompt with the same seed gets the same answer, another seed another."""
    if "Answer the question, and say for each claim" in body["messages"][-1]["content"]:
        return f"{scripted(body)} (an answer drawn with seed {body.get('seed')})"
    return scripted(body)


async def test_five_self_consistency_samples_are_five_different_requests_and_answers(tmp_path, loopback_server):
    loopback_server.responder = seeded
    db, db_path, sid, d = make_study(tmp_path, api_base=loopback_server.url, conditions=("self-consistency",))
    out = await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, TOPIC, "self-consistency"))
    asked = [b for b in loopback_server.requests if "Answer the question" in b["messages"][-1]["content"]]
    assert len(asked) == 5
    assert len({json.dumps(b["messages"]) for b in asked}) == 1           # one identical prompt ...
    assert sorted(b["seed"] for b in asked) == sorted([7] + [sample_seed(7, k) for k in range(1, 5)])
    assert len({json.dumps(b, sort_keys=True) for b in asked}) == 5       # ... in five different requests
    assert len(set(out.report["answers"])) == 5                           # with five different answers
    settings = [json.loads(r["settings"])["seed"] for r in db["calls"].rows_where("turn like 'answer%'")]
    assert sorted(settings) == sorted(b["seed"] for b in asked)           # each recorded with its seed


async def test_through_the_runner_every_replicate_and_sample_draws_with_its_own_seed(tmp_path, loopback_server):
    from store import open_store
    from tests.protocols.faultline.test_faultline_end_to_end import write_study
    from workbench.gateway.seeds import draw_seed
    from workbench.runs.runner import prepare_study, run_study
    from workbench.studies import create_study

    loopback_server.responder = seeded
    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    create_study(db, write_study(tmp_path, loopback_server, conditions=("single", "self-consistency"), replicates=2))
    prepare_study(db, "fl-e2e")
    await run_study(db, gateway(db, db_path), "fl-e2e")
    asked = [b["seed"] for b in loopback_server.requests if "Answer the question" in b["messages"][-1]["content"]]
    # single's answer is self-consistency's sample 0 of the same replicate: one draw (the same request,
    # sent twice when the two runs overlap, else served from the log); every other draw has its own seed
    expect = {sample_seed(draw_seed(7, d), k) for d in (0, 1) for k in range(5)}
    assert set(asked) == expect and len(expect) == 10
    made = [r for r in db["calls"].rows_where("turn like 'answer%' and status = 'ok'")]
    by_seed = {json.loads(r["settings"])["seed"]: r["response"] for r in made}
    assert set(by_seed) == expect and len(set(by_seed.values())) == 10   # ten draws, ten answers
