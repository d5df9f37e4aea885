"""workbench/run_view.py: the Runs screen's model without Textual (grid cells, transcript entries, the sink)."""

from __future__ import annotations

from study_screen_helpers import C2_EVENTS, SEEDED, seed_study

from store import open_store
from workbench.events import Event
from workbench.runs.view import (
    LiveStudy, NoteEntry, TranscriptModel, TurnEntry, cell_fields, cost_text, describe, grid_states,
    progress_line, stored_transcript,
)


def ev(kind, turn=None, agent=None, run_id="s/c/C2/0", **payload):
    return Event(kind, run_id=run_id, turn=turn, agent=agent, payload=payload)


def test_tokens_accumulate_per_turn_and_a_failed_attempts_words_are_dropped():
    m = TranscriptModel()
    m.consume(ev("run_started", attempt=1))
    m.consume(ev("turn_started", "a", "member-1", phase="opening", label="One"))
    m.consume(ev("turn_started", "b", "member-2", phase="opening", label="Two"))
    for piece in ("Hel", "lo"):
        m.consume(ev("token", "a", "member-1", text=piece))
    m.consume(ev("token", "b", "member-2", text="void"))
    m.consume(ev("call_retry", "b", "member-2", attempt=1, error="cut stream", wait=0.5, discard_partial=True))
    m.consume(ev("token", "b", "member-2", text="Fresh"))
    turns = [e for e in m.entries if isinstance(e, TurnEntry)]
    assert ["".join(t.pieces) for t in turns] == ["Hello", "Fresh"]
    assert turns[1].generation == 1 and m.streaming
    assert any(isinstance(e, NoteEntry) and e.kind == "retry" for e in m.entries)
    m.consume(ev("turn_finished", "a", "member-1", text="Hello", input_tokens=3, output_tokens=2, cost=None))
    m.consume(ev("turn_failed", "b", "member-2", error="401"))
    assert (turns[0].status, turns[0].footer()) == ("done", "3 in + 2 out tok")
    assert (turns[1].status, turns[1].footer()) == ("failed", "failed: 401")
    assert not m.streaming
    version = m.version
    m.consume(ev("progress", runs={}))
    assert m.version == version  # progress is not part of a transcript


def test_protocol_events_read_as_the_committee_minutes():
    assert describe(ev("motion", text="Resist.", mover="strategist", amended=False, parsed=True)).title == \
        "MOTION moved by strategist"
    unparsed = describe(ev("motion", text="a ramble", mover="strategist", amended=False, parsed=False))
    assert "no MOTION: line" in unparsed.body
    assert describe(ev("second", seconded=False, ruling=True)).tone == "nay"
    vote = describe(ev("vote", on="main motion", vote="nay", reason="Too risky.", name="Devil's advocate"))
    assert (vote.kind, vote.title, vote.body, vote.tone) == (
        "vote", "VOTE on the main motion: Devil's advocate: nay", "Too risky.", "nay")
    ruled = describe(ev("amendment", status="ruled_out", text="x", name="Strategist", note="limit reached"))
    assert ruled.title == "AMENDMENT ruled out of order (Strategist)" and "limit reached" in ruled.body
    res = describe(ev("resolution", motion="Resist.", carried=False, tally={"aye": 2, "nay": 2, "abstain": 1},
                      minority=[]))
    assert (res.title, res.tone) == ("RESOLUTION: the motion is not carried (2 aye, 2 nay, 1 abstain)", "failed")
    assert describe(ev("scenario", title="Tail risk", order=4)).title == "SCENARIO 4: Tail risk"
    assert describe(ev("perspective", text="...", order=1, parallel=True)) is None  # shown on its turn instead
    assert describe(ev("run_failed", error="boom")).body == "boom"


def test_a_stored_transcript_matches_the_live_one(tmp_path, library):
    db = open_store(tmp_path / "s.db")
    from workbench.cases.library import bootstrap

    bootstrap(db)
    seed_study(db)
    stored = stored_transcript(db, f"{SEEDED}/coercion-drill/C2/0")
    live = TranscriptModel()
    for kind, turn, agent, payload in C2_EVENTS:
        if kind == "turn_finished":  # live, the text arrives as tokens first
            for word in payload["text"].split(" "):
                live.consume(Event("token", turn=turn, agent=agent, payload={"text": word}))
        live.consume(Event(kind, turn=turn, agent=agent, payload=payload))
    assert [type(e).__name__ for e in stored.entries] == [type(e).__name__ for e in live.entries]
    assert [e.title for e in stored.entries] == [e.title for e in live.entries]
    assert [e.text for e in stored.entries if isinstance(e, TurnEntry)] == \
        [e.text for e in live.entries if isinstance(e, TurnEntry)]
    db.close()


def test_grid_states_and_cells(tmp_path, library):
    db = open_store(tmp_path / "s.db")
    from workbench.cases.library import bootstrap

    bootstrap(db)
    seed_study(db)
    states = {s["run_id"].split("/", 1)[1]: s for s in grid_states(db, SEEDED)}
    assert len(states) == 10  # 2 cases x (B1, C2, P1 x 3)
    interrupted = states["guild-charter/C2/0"]
    assert interrupted["interrupted"] and cell_fields(interrupted)["status"] == "interrupted"
    done = cell_fields(states["coercion-drill/P1/0"])
    assert (done["tokens"], done["cost"], done["elapsed"]) == ("17.7k tok", "$0.0231", "1m35s")
    assert cell_fields(states["guild-charter/P1/2"]) == {
        "glyph": "·", "status": "pending", "calls": "", "tokens": "0 tok", "cost": "$0.0000", "elapsed": "",
        "cut": "", "waiting": ""}
    cut = cell_fields({**states["coercion-drill/P1/0"], "truncated": True})
    assert cut["cut"] == "✂ cut" and cut["status"] == "done"
    assert cost_text(0.0, True) == "unknown" and cost_text(0.5, True) == "≥$0.5000"
    running = dict(states["coercion-drill/B1/0"], status="running", calls_done=2, calls_expected=7)
    ticking = cell_fields(running, now=1000.0, started_at=925.0)
    assert (ticking["calls"], ticking["elapsed"]) == ("2/7", "1m15s")
    db.close()


def test_the_sink_collects_changes_between_refreshes():
    states = [{"run_id": "s/c/B1/0", "case_id": "c", "condition": "B1", "replicate": 0, "status": "pending",
               "interrupted": False, "input_tokens": 0, "output_tokens": 0, "cost": 0.0, "cost_unknown": False,
               "elapsed": None, "error": None}]
    live = LiveStudy(states)
    live.emit(Event("run_started", run_id="s/c/B1/0", payload={"attempt": 1}, at=100.0))
    live.emit(Event("turn_started", run_id="s/c/B1/0", turn="answer", agent="model", payload={"label": "Answer"}))
    for _ in range(500):  # many tokens: recorded, nothing to refresh for them but the transcript
        live.emit(Event("token", run_id="s/c/B1/0", turn="answer", agent="model", payload={"text": "x"}))
    changed, progress = live.take_changes()
    assert changed == [] and progress is None
    assert "".join(live.transcript("s/c/B1/0").entries[1].pieces) == "x" * 500
    snapshot = {"runs": {"done": 1, "running": 0}, "total_runs": 1, "calls_done": 1, "calls_expected": 1,
                "fraction": 1.0, "elapsed": 3.0, "eta_seconds": 0.0, "paused": False, "input_tokens": 5,
                "output_tokens": 500, "cost": 0.0, "cost_unknown": True,
                "run": {"run_id": "s/c/B1/0", "status": "done", "calls_done": 1, "calls_expected": 1,
                        "input_tokens": 5, "output_tokens": 500, "cost": 0.0, "cost_unknown": True,
                        "elapsed": 3.0, "error": None}}
    live.emit(Event("progress", payload=snapshot))
    changed, progress = live.take_changes()
    assert [c["status"] for c in changed] == ["done"] and progress is snapshot
    assert live.take_changes() == ([], None)
    assert progress_line(snapshot).startswith("1/1 calls · 1/1 runs done, 0 running · 505 tok · unknown")
