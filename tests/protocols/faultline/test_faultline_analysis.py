"""The study's metrics from stored runs (real MiniLM embeddings through the store's cache): per-debate
documents, CR over repeats, baselines, the headline verdict, the long CSV, and the mock model's
undefined-with-a-reason path."""

from __future__ import annotations

import numpy as np
import pytest

from tests.protocols.faultline.faultline_kit import make_study
from tests.protocols.faultline.test_faultline_programs import DEBATE, build_graphs, ctx_for
from tests.protocols.faultline.faultline_kit import gateway
from workbench.protocols.faultline import PROTOCOL
from workbench.protocols.faultline.analysis import csv_rows, study_metrics, summarise, verdict


async def run_all(db, db_path, sid, d):
    from store.runs import finish_run

    gw = gateway(db, db_path)
    for plan in PROTOCOL.planned_runs(db, sid, d):
        ctx = ctx_for(db, gw, sid, d, plan.item_id, plan.condition, replicate=plan.replicate)
        out = await PROTOCOL.program(ctx)
        finish_run(db, ctx.run_id, "done", output={"text": out.text, "report": out.report})


@pytest.fixture
def ran(tmp_path, fl_server):
    async def make(**kw):
        db, db_path, sid, d = make_study(tmp_path, api_base=fl_server.url, **kw)
        await build_graphs(db, db_path, sid, d)
        await run_all(db, db_path, sid, d)
        return db, sid, d
    return make


async def test_study_metrics_from_scripted_debates(ran, minilm):
    db, sid, d = await ran(conditions=("plain", "graph-20", "single", "self-consistency"), rounds=1, replicates=3)
    doc = study_metrics(db, sid, d)
    debates = [x for x in doc["debates"] if x["condition"] == "graph-20"]
    assert len(debates) == 3 and len(doc["debates"]) == 12
    m = debates[0]["metrics"]
    # each speech: two sentences of its own and (graph in context) its first belief word for word → BA 1/3
    assert m["BA"]["tech-optimist"]["value"] == pytest.approx(1 / 3)
    assert m["BA"]["tech-optimist"]["details"] == {"grounded": 3, "claims": 9}
    # opening stances ±2, closing ±1 on both contested claims: SD 2 → 1
    assert m["dSD"]["value"] == pytest.approx(-1.0)
    # both personas right on both verifiable claims
    assert m["ACC"]["value"] == 1.0
    # spread per round (opening, round 1, closing) is 1 − cos of the two personas' messages
    report = next(o for o in [__import__("store.outputs", fromlist=["x"]).get_output(db, debates[0]["run_id"])])
    msgs = [x for x in report["report"]["messages"] if x["round"] == 1 and x["persona"] != "moderator"]
    v = minilm.embed([x["text"] for x in msgs])
    assert [r["round"] for r in m["spread"]] == [0, 1, 2]
    assert m["spread"][1]["value"] == pytest.approx(1 - float(np.dot(v[0], v[1])), abs=1e-5)
    # card 1 cites A-r1 and B-r1 (its source is their centroid), card 2 cites A-open; CG is the mean cosine
    cards = report["report"]["cruxes"]
    c = minilm.embed([f"{k['question']} {k['diagnosis']}" for k in cards])
    centroid = v.mean(axis=0) / np.linalg.norm(v.mean(axis=0))
    a_open = minilm.embed([next(x["text"] for x in report["report"]["messages"] if x["id"] == "A-open")])[0]
    assert m["CG"]["value"] == pytest.approx((float(c[0] @ centroid) + float(c[1] @ a_open)) / 2, abs=1e-5)
    # the plain control is measured against the persona's smallest built graph: no belief repeated → 0
    plain = next(x for x in doc["debates"] if x["condition"] == "plain")["metrics"]
    assert plain["BA"]["tech-optimist"]["value"] == 0.0
    # CR: the same two crux questions in all three repeats → two clusters, each spanning 3 runs
    cr = {(g["item"], g["condition"]): g for g in doc["crux_recurrence"]}
    assert cr[(DEBATE, "graph-20")]["value"] == 1.0
    # baselines: right on chernobyl-year, wrong on plants-emit-co2
    sc = next(x for x in doc["debates"] if x["condition"] == "self-consistency")["metrics"]
    assert sc["ACC"]["value"] == 0.5 and sc["ACC_equal_votes"]["value"] == 0.5   # five samples, and the first two
    assert doc["conditions"]["single"]["ACC"]["value"] == 0.5
    # every debate ACC is 1.0, every self-consistency 0.5: a difference of 0.5 from 3 self-consistency runs, under
    # the project's minimum of units for a bootstrap CI (issue 30) → no CI → undecided
    h = doc["headline"]
    assert h["basis"] == "equal-votes" and h["comparison"].endswith("self-consistency on 2 votes")
    assert h["mean_difference"]["value"] == pytest.approx(0.5) and h["answer"] == "undecided"
    assert h["why"].startswith("n too small")
    assert doc["conditions"]["graph-20"]["dSD"]["meets"] is False
    # the one pair is of medium divergence: the breakdown has that level only, its 6 debates one item, one
    # independent unit (issue 42: repeats of a topic × pair are not more units)
    assert list(doc["by_divergence"]) == ["medium"] and doc["by_divergence"]["medium"]["dSD"]["n"] == 1
    rows = csv_rows(doc)
    assert {r["metric"] for r in rows} == {"BA", "dSD", "spread", "spread_trend", "CG", "ACC", "ACC_equal_votes", "CR"}
    ba = [r for r in rows if r["metric"] == "BA" and r["condition"] == "graph-20" and r["scope"] == "pooled"]
    assert len(ba) == 3 and ba[0]["threshold"] == "> 0.6" and ba[0]["meets"] is False
    # a second computation embeds nothing new: every vector comes from the store's cache
    from store.embeddings import StoreEmbeddingCache

    cached = StoreEmbeddingCache(db).count()
    study_metrics(db, sid, d)
    assert StoreEmbeddingCache(db).count() == cached


async def test_mock_model_yields_counted_errors_and_undefined_metrics(tmp_path):
    db, db_path, sid, d = make_study(tmp_path, model="mock", conditions=("graph-20", "self-consistency"), rounds=1)
    from workbench.protocols.faultline.graphs import build_study_graphs

    built = await build_study_graphs(db, gateway(db, db_path), sid, d)
    assert built["failed"] == 2      # placeholder text is no graph: stored as failed, not invented
    await run_all(db, db_path, sid, d)
    doc = study_metrics(db, sid, d)
    m = next(x for x in doc["debates"] if x["condition"] == "graph-20")["metrics"]
    assert m["errors"] == 6 + 1 + 4       # claims of 6 speeches, the crux cards, 4 stance sets
    assert "no belief-graph nodes" in m["BA"]["tech-optimist"]["undefined_reason"]
    assert "fewer than two personas" in m["dSD"]["undefined_reason"]
    assert "no crux cards" in m["CG"]["undefined_reason"]
    assert "no stance on a verifiable claim" in m["ACC"]["undefined_reason"]
    assert m["spread"][0]["value"] is not None          # spread needs no extraction
    assert doc["headline"]["answer"] == "undecided"
    assert "a stable cluster spans 3" in doc["crux_recurrence"][0]["undefined_reason"]


def _doc(cond, acc):
    """A run's ACC; self-consistency's read the same on its five samples and its first two."""
    est = {"value": acc}
    two = {"ACC_equal_votes": est} if cond == "self-consistency" else {}
    return {"condition": cond, "metrics": {"ACC": est, **two}}


def test_verdict_yes_no_undecided_from_the_ci():
    docs = [_doc("plain", v) for v in (1.0, 1.0, 0.5, 1.0, 1.0, 0.5)] + \
           [_doc("self-consistency", v) for v in (0.0, 0.5, 0.0, 0.0, 0.5, 0.0)]
    yes = summarise(docs, [], ["plain", "self-consistency"])["headline"]
    assert yes["answer"] == "yes" and yes["mean_difference"]["ci_low"] > 0
    swapped = [_doc("plain" if x["condition"] != "plain" else "self-consistency", x["metrics"]["ACC"]["value"])
               for x in docs]
    assert summarise(swapped, [], ["plain", "self-consistency"])["headline"]["answer"] == "no"
    assert verdict({"value": 0.1, "ci_low": -0.2, "ci_high": 0.3}) == ("undecided", "the CI contains 0")
    none = summarise(docs, [], ["plain"])["headline"]
    assert none["answer"] == "undecided" and "no self-consistency" in none["why"]
