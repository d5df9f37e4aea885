"""What the live screen reads: the transcript folded into panels, and the grid from the store."""

from __future__ import annotations

from tests.runner.studykit import create, gateway, study_text
from workbench.events import Event, ListSink
from workbench.run_progress import study_grid
from workbench.runner import prepare_study, run_study
from workbench.transcript_view import ProtocolItem, TranscriptView, TurnPanel


async def test_live_and_stored_transcripts_give_the_same_panels(store, server):
    db, db_path = store
    study = create(db, study_text("views", conditions=("C2",), api_base=server.url))
    grid = study_grid(db, study)  # before anything was prepared: an empty grid with its axes
    assert grid["cases"] == ["toll-bridge"] and grid["cells"]["toll-bridge"]["C2"] == []
    prepare_study(db, study)
    (cell,) = study_grid(db, study)["cells"]["toll-bridge"]["C2"]
    assert cell["status"] == "pending" and cell["elapsed"] is None

    sink = ListSink()
    await run_study(db, gateway(db, db_path), study, sink=sink)
    run_id = f"{study}/toll-bridge/C2/0"
    live = TranscriptView(run_id)
    streamed_text = {}
    for event in sink.events:
        changed = live.apply(event)
        if event.kind == "token" and isinstance(changed, TurnPanel):
            streamed_text[changed.turn] = changed.text
    stored = TranscriptView.from_store(db, run_id)

    panels = [i for i in live.items if isinstance(i, TurnPanel)]
    assert len(panels) == 30 and all(p.status == "done" for p in panels)
    assert [p.turn for p in panels] == [i.turn for i in stored.items if isinstance(i, TurnPanel)]
    assert [p.text for p in panels] == [i.text for i in stored.items if isinstance(i, TurnPanel)]
    assert streamed_text["question"] == live.panels["question"].text  # the tokens added up to the text
    assert live.panels["motion"].label == "Strategist moves the main motion"
    assert [e["kind"] for e in live.panels["motion"].protocol] == ["motion"]
    votes = live.protocol("vote")
    assert len(votes) == 10 and {v["on"] for v in votes} == {"amendment 1", "main motion"}
    results = [i for i in live.items if isinstance(i, ProtocolItem)]
    assert [(i.kind, i.payload["status"]) for i in results] == [("amendment", "adopted")]
    assert live.status == stored.status == "done"

    (cell,) = study_grid(db, study)["cells"]["toll-bridge"]["C2"]
    assert cell["status"] == "done" and cell["input_tokens"] > 0 and cell["elapsed"] >= 0


def test_a_retried_call_clears_the_partial_text():
    view = TranscriptView("r")
    view.apply(Event("turn_started", run_id="r", turn="t", agent="a", payload={"label": "L"}))
    view.apply(Event("token", run_id="r", turn="t", payload={"text": "half an ans"}))
    view.apply(Event("call_retry", run_id="r", turn="t", payload={"attempt": 1}))
    assert view.panels["t"].text == ""
    view.apply(Event("token", run_id="r", turn="t", payload={"text": "whole"}))
    view.apply(Event("turn_finished", run_id="r", turn="t", payload={"text": "whole answer"}))
    assert view.panels["t"].text == "whole answer" and view.panels["t"].status == "done"
    assert view.apply(Event("token", run_id="other", turn="t", payload={"text": "x"})) is None
