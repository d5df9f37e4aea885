"""The debate and baseline programs against the loopback server with scripted replies: graphs built
and frozen, every architecture's turns, extraction with retry-then-error, kill-and-resume without a
repeated call, and replay with zero requests."""

from __future__ import annotations

import json

import pytest

from tests.protocols.faultline.faultline_kit import PAIR, TOPIC, gateway, make_study
from workbench.events import ListSink
from workbench.protocols.faultline import PROTOCOL
from workbench.runs.context import RunContext
from workbench.runs.control import RunCancelled, RunControl
from workbench.runs.settings import study_model_settings

DEBATE = f"{TOPIC}--{PAIR}"


def ctx_for(db, gw, sid, d, item, cond, *, replicate=0, control=None, on_result=None, sink=None):
    from store.runs import ensure_runs

    run_id = f"{sid}-{item}-{cond}-{replicate}"
    ensure_runs(db, sid, [{"id": run_id, "case_id": item, "condition": cond, "replicate": replicate}])
    return RunContext(gateway=gw, sink=sink or ListSink(), settings=study_model_settings(d),
                      item=PROTOCOL.item_payload(db, sid, item), options=d["faultline"], study_id=sid,
                      run_id=run_id, case_id=item, condition=cond, replicate=replicate, draw=replicate,
                      control=control or RunControl(), on_result=on_result, definition=d)


async def build_graphs(db, db_path, sid, d):
    from workbench.protocols.faultline.graphs import build_study_graphs

    return await build_study_graphs(db, gateway(db, db_path), sid, d)


@pytest.fixture
def study(tmp_path, fl_server):
    def make(**kw):
        db, db_path, sid, d = make_study(tmp_path, api_base=fl_server.url, **kw)
        return db, db_path, sid, d
    return make


async def test_graphs_are_built_once_stored_and_frozen(study, fl_server):
    from workbench.studies.definition import StudyError

    db, db_path, sid, d = study(conditions=("graph-20", "plain"))
    with pytest.raises(StudyError, match="belief graphs not built yet.*faultline graphs fl-study"):
        PROTOCOL.frozen_artefacts(db, sid, d)
    assert await build_graphs(db, db_path, sid, d) == {"built": 2, "failed": 0, "already": 0}
    assert fl_server.count == 2
    again = await build_graphs(db, db_path, sid, d)
    assert again == {"built": 0, "failed": 0, "already": 2} and fl_server.count == 2
    pinned = PROTOCOL.frozen_artefacts(db, sid, d)
    graphs = {ref: json.loads(c) for kind, ref, c in pinned if kind == "belief_graph"}
    assert set(graphs) == {"tech-optimist:20", "precautionary-ethicist:20"}
    assert len(graphs["tech-optimist:20"]["nodes"]) == 20 and graphs["tech-optimist:20"]["edges"]
    assert any(kind == "prompt" and ref == "faultline.CRUX_CARDS" for kind, ref, _ in pinned)
    # the payload a debate run gets carries its personas' graphs
    assert set(PROTOCOL.item_payload(db, sid, DEBATE)["graphs"]) == set(graphs)


async def test_graph_injection_debate_runs_every_turn(study, fl_server):
    db, db_path, sid, d = study(conditions=("graph-20",), rounds=2)
    await build_graphs(db, db_path, sid, d)
    before = fl_server.count
    sink = ListSink()
    ctx = ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "graph-20", sink=sink)
    out = await PROTOCOL.program(ctx)
    plan = next(p for p in PROTOCOL.planned_runs(db, sid, d) if p.item_id == DEBATE)
    assert fl_server.count - before == PROTOCOL.expected_calls(d, plan) == 2 + 4 + 2 + 1 + 8 + 4
    r = out.report
    assert [m["id"] for m in r["messages"]] == ["A-open", "B-open", "M-r1", "A-r1", "B-r1", "M-r2", "A-r2", "B-r2",
                                                "M-close", "A-close", "B-close"]
    # the graph is in the persona's context; the opponent's words are in the next speaker's
    first_round = next(b for b in fl_server.requests if "Round 1 of 2" in b["messages"][-1]["content"])
    assert "Your beliefs, as a graph" in first_round["messages"][0]["content"]
    assert "n1 (credence" in first_round["messages"][0]["content"]
    assert r["cruxes"][0]["messages"] == ["A-r1", "B-r1"] and r["cruxes"][0]["unknown_messages"] == []
    assert r["stances"]["opening"]["tech-optimist"]["new-build"] == 2
    assert r["stances"]["closing"]["precautionary-ethicist"]["new-build"] == -1
    assert r["claims"]["A-r1"] and r["errors"] == []
    kinds = {e.kind for e in sink.events}
    assert {"debate_message", "moderator", "crux_card", "stance", "turn_started", "turn_finished"} <= kinds


async def test_qbaf_debate_puts_the_dfquad_crux_to_the_next_round(study, fl_server):
    db, db_path, sid, d = study(conditions=("qbaf",), rounds=2)
    out = await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "qbaf"))
    q = out.report["qbaf"][0]
    # a2 attacks a1. optimist: σ(a1) = 0.9 − 0.9·0.4 = 0.54, σ(a2) = 0.4; ethicist: σ(a1) = 0.3 − 0.3·0.8 = 0.06
    assert q["strengths"]["tech-optimist"]["a1"] == pytest.approx(0.54)
    assert q["strengths"]["precautionary-ethicist"]["a1"] == pytest.approx(0.06)
    # divergence: a1 0.48, a2 0.4 → a1 is the crux
    assert q["crux"] == "a1" and q["divergence"] == pytest.approx(0.48)
    moderator = next(m for m in out.report["messages"] if m["id"] == "M-r2")
    assert moderator["text"].startswith('The crux so far: "New reactors cut emissions."')
    round2 = next(b for b in fl_server.requests if "Round 2 of 2" in b["messages"][-1]["content"])
    assert "The crux so far" in round2["messages"][-1]["content"]


async def test_latent_debate_hides_private_notes_from_the_other_side(study, fl_server):
    db, db_path, sid, d = study(conditions=("latent-20",), rounds=1)
    await build_graphs(db, db_path, sid, d)
    out = await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "latent-20"))
    a_open = next(m for m in out.report["messages"] if m["id"] == "A-open")
    assert a_open["private"].startswith("my belief n1") and "PRIVATE" not in a_open["text"]
    b_round = next(b for b in fl_server.requests if "Round 1 of 1" in b["messages"][-1]["content"]
                   and "Precautionary ethicist" in b["messages"][0]["content"])
    assert "my belief n1 bears on this (opening)" not in b_round["messages"][-1]["content"].split(
        "Your private notes so far")[0]
    assert out.report["latent_format_misses"] == 0


async def test_unparseable_extraction_is_retried_once_then_counted(study, fl_server):
    db, db_path, sid, d = study(conditions=("plain",), rounds=1)
    base = fl_server.responder

    def broken_stances(body):
        last = body["messages"][-1]["content"]
        if "give the stance" in body["messages"][0]["content"] and "Precautionary ethicist" in \
                body["messages"][0]["content"] and "closing" in body["messages"][0]["content"].split("Statement:")[1][:40]:
            return "I would rather not say."
        return base(body)

    fl_server.responder = broken_stances
    out = await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "plain"))
    r = out.report
    assert r["stances"]["closing"]["precautionary-ethicist"] is None      # missing, never made up
    assert [e["turn"] for e in r["errors"]] == ["stance:precautionary-ethicist:closing"]
    retries = [b for b in fl_server.requests if b["messages"][-1]["content"].startswith("That reply could not")]
    assert len(retries) == 1


async def test_baselines_single_and_self_consistency(study, fl_server):
    db, db_path, sid, d = study(conditions=("single", "self-consistency"))
    gw = gateway(db, db_path)
    single = await PROTOCOL.program(ctx_for(db, gw, sid, d, TOPIC, "single"))
    assert single.report["final"] == {"chernobyl-year": 1, "plants-emit-co2": 1}
    before = fl_server.count
    sc = await PROTOCOL.program(ctx_for(db, gw, sid, d, TOPIC, "self-consistency"))
    assert PROTOCOL.expected_calls(
        d, next(p for p in PROTOCOL.planned_runs(db, sid, d) if p.condition == "self-consistency")) == 10
    # sample 0 is the single-agent answer's very draw (same prompt, seed and replicate): served from the log
    assert fl_server.count - before == 8
    answers = [b for b in fl_server.requests if "Answer the question" in b["messages"][-1]["content"]]
    assert len(answers) == 5 and len({json.dumps(a["messages"]) for a in answers}) == 1  # one identical prompt
    assert len(sc.report["stances"]) == 5 and sc.report["final"]["plants-emit-co2"] == 1


async def test_killed_mid_round_resumes_without_repeating_a_call_and_replays_with_zero(study, fl_server):
    db, db_path, sid, d = study(conditions=("qbaf",), rounds=2)
    control, seen = RunControl(), []

    def on_result(turn, result):
        seen.append(turn)
        if turn == "A-r1":   # killed after persona A's first round message, before B answers
            control.cancel("killed")

    with pytest.raises(RunCancelled):
        await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "qbaf", control=control,
                                       on_result=on_result))
    made = fl_server.count
    assert made == 3   # two openings and A-r1
    first = await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "qbaf"))
    expected = PROTOCOL.expected_calls(d, next(p for p in PROTOCOL.planned_runs(db, sid, d)))
    assert fl_server.count == expected        # the three made before the kill were replayed, not repeated
    bodies = [json.dumps(b["messages"], sort_keys=True) for b in fl_server.requests]
    assert len(bodies) == len(set(bodies))
    replay = await PROTOCOL.program(ctx_for(db, gateway(db, db_path, replay_only=True), sid, d, DEBATE, "qbaf"))
    assert fl_server.count == expected and replay.report == first.report



async def test_crux_cards_and_the_argument_map_have_room_to_quote_the_debate(study, fl_server):
    """Issue 25: both steps quote the debate; they no longer inherit a debate turn's max_tokens (and are cut)."""
    db, db_path, sid, d = study(conditions=("qbaf",), rounds=2)
    await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "qbaf"))
    turn_max = d["model"]["max_tokens"]
    debate = [b for b in fl_server.requests if "taking part in a structured debate" in b["messages"][0]["content"]
              and len(b["messages"]) == 2]
    assert debate and {b["max_tokens"] for b in debate} == {turn_max}
    asks = [b for b in fl_server.requests if b["messages"][-1]["content"].startswith("Below is a")]
    maps = [b for b in asks if "bipolar argumentation framework" in b["messages"][-1]["content"]]
    cards = [b for b in asks if "Write crux cards" in b["messages"][-1]["content"]]
    # sized to the debate so far (never below the turn's own): the finished debate needs more than a turn
    assert maps and all(b["max_tokens"] >= turn_max for b in maps)
    assert cards and all(b["max_tokens"] > turn_max for b in cards)


def test_room_to_copy_grows_with_the_source_and_never_shrinks():
    from workbench.gateway.api import ModelSettings
    from workbench.runs.truncation import room_to_copy

    assert room_to_copy(ModelSettings(max_tokens=1024), "x" * 30).max_tokens == 1024
    assert room_to_copy(ModelSettings(max_tokens=256), "x" * 3000).max_tokens == 1256


async def test_a_rejected_structured_reply_titles_its_retry_with_the_reason(study, fl_server):
    from workbench.runs.view import TranscriptModel

    db, db_path, sid, d = study(conditions=("plain",), rounds=1)
    base = fl_server.responder

    def broken_stances(body):
        if "give the stance" in body["messages"][0]["content"] and "Precautionary ethicist" in \
                body["messages"][0]["content"] and "closing" in body["messages"][0]["content"].split("Statement:")[1][:40]:
            return "I would rather not say."
        return base(body)

    fl_server.responder = broken_stances
    sink = ListSink()
    await PROTOCOL.program(ctx_for(db, gateway(db, db_path), sid, d, DEBATE, "plain", sink=sink))
    model = TranscriptModel()
    for e in sink.events:
        model.consume(e)
    titles = [e.title for e in model.entries if getattr(e, "kind", "") == "turn"
              and e.turn.startswith("stance:precautionary-ethicist:closing")]
    assert len(titles) == 2 and titles[1] == titles[0] + " · retry 1", titles
    [note] = [e for e in model.entries if getattr(e, "kind", "") == "retry"]
    assert note.body and "asked again" in note.title
