"""Long calls show life (issue 40): a call in flight longer than a few seconds (a parameter, lowered here) is
shown once a heartbeat with its elapsed time, and, when it streams, the tokens received and their rate; the
batch display prints it as a `working` line at most once a second, the Runs screen in its progress line."""

from __future__ import annotations

import io

from tests.runner.studykit import create, gateway, scripted, study_text
from tests.support.loopback import Reply
from workbench.cli.run_display import PlainDisplay
from workbench.events import PROGRESS, Event, ListSink
from workbench.runs.runner import run_study
from workbench.runs.view import progress_line


def slow_answer(chunk_delay: float = 0.0, latency: float = 0.0):
    def respond(body):
        text = scripted(body)
        if text.startswith("An answer"):  # B1's one answer: slow; the extraction after it is not
            return Reply.text(text, latency=latency, chunk_delay=chunk_delay)
        return text
    return respond


class Both:
    """The batch display and a list of events, one sink."""

    def __init__(self) -> None:
        self.out, self.events = io.StringIO(), ListSink()
        self.display = PlainDisplay(self.out)

    def emit(self, event) -> None:
        self.events.emit(event)
        self.display.emit(event)


async def test_a_whole_reply_slow_to_land_gets_a_heartbeat(store, server):
    db, db_path = store
    server.responder = slow_answer(latency=0.6)
    sid = create(db, study_text(api_base=server.url))
    sink = Both()
    summary = await run_study(db, gateway(db, db_path), sid, sink=sink, long_call_after=0.1, heartbeat=0.1)
    assert summary.complete
    beats = [e.payload for e in sink.events.events if e.kind == PROGRESS and e.payload.get("long_calls")]
    assert beats, "no heartbeat while the answer was in flight"
    [call] = beats[-1]["long_calls"]
    assert call["turn"] == "answer" and call["streamed"] is False and call["elapsed"] >= 0.1
    working = [line for line in sink.out.getvalue().splitlines() if " working " in line]
    assert working and "answer" in working[0] and "a whole reply: no tokens until it lands" in working[0]
    assert len(working) <= 1  # at most one a second, however many beats came within it
    assert "a whole reply" in progress_line(beats[-1])  # what the Runs screen shows


async def test_a_streamed_reply_shows_its_tokens_and_their_rate(store, server):
    db, db_path = store
    server.responder = slow_answer(chunk_delay=0.02)
    sid = create(db, study_text(api_base=server.url))
    sink = Both()
    await run_study(db, gateway(db, db_path, stream=True), sid, sink=sink, long_call_after=0.1, heartbeat=0.1)
    beats = [c for e in sink.events.events if e.kind == PROGRESS for c in e.payload.get("long_calls") or []]
    streamed = [c for c in beats if c["tokens"] >= 2]
    assert streamed and all(c["streamed"] for c in streamed)
    assert streamed[-1]["rate"] and streamed[-1]["rate"] > 0
    assert max(c["tokens"] for c in streamed) > min(c["tokens"] for c in streamed)  # they grow as they arrive


def test_the_runs_screen_keeps_the_last_heartbeat_until_the_next_while_runs_run():
    """The Runs screen's model: a progress snapshot between two heartbeats keeps the long calls shown; once no
    run is running they go."""
    from workbench.runs.view import LiveStudy

    live = LiveStudy([])
    running = {"runs": {"running": 1}, "total_runs": 1}
    long = [{"run_id": "s/c/B1/0", "turn": "answer", "elapsed": 7.0, "tokens": 0, "rate": None, "streamed": False}]
    live.emit(Event(PROGRESS, payload={**running, "long_calls": long}))
    live.emit(Event(PROGRESS, payload=dict(running)))
    assert live.progress["long_calls"] == long
    live.emit(Event(PROGRESS, payload={"runs": {"running": 0, "done": 1}, "total_runs": 1}))
    assert "long_calls" not in live.progress
