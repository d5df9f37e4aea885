"""Long judge calls show life (issue 40): while a judge call has been in flight longer than a few seconds (lowered
here), judging says once a heartbeat which calls, how long, the tokens received and their rate (streamed) or
that a whole reply is awaited, the item-rubric pairs ended and the command's ETA: the same line in batch
(`workbench --batch judge`, at most one a second) and on the Studies screen's judging pane. The gateway's
`call_ended` event is what lets a caller outside the runner see a call end."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from store import open_store
from store.settings import set_setting
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import naive_judge
from tests.support.loopback import Reply
from workbench.cases.library import BOOTSTRAP_KEY
from workbench.events import CALL_ENDED, CALL_SENT, TOKEN, Event, ListSink
from workbench.judges.run import JudgeSummary, JudgingPace, judge_study
from workbench.gateway import live_calls
from workbench.gateway.live_calls import LiveCalls


def judge(url: str) -> dict:
    return {"name": "j1", "model": "openai/j1", "api_base": url, "temperature": 0.0, "pipeline": "direct",
            "runs": 1}


def slow(latency: float = 0.0, chunk_delay: float = 0.0):
    """The naive judge's verdicts, each slow to come: late (a whole reply) or a word at a time (a stream)."""
    def respond(body):
        return Reply.text(naive_judge(body), latency=latency, chunk_delay=chunk_delay)
    return respond


def file_study(tmp_path, url: str) -> tuple:
    path = tmp_path / "judging.db"
    db = open_store(path)
    set_setting(db, BOOTSTRAP_KEY, True)  # the fixture study brings its own rubrics and case
    sid = make_study(db, conditions=["B1"], pilot_items=False, judges=[judge(url)])
    return path, db, sid


async def test_a_streamed_judge_call_shows_its_tokens_their_rate_and_an_eta(tmp_path, loopback_server):
    from workbench.gateway import build_gateway

    loopback_server.responder = slow(chunk_delay=0.05)  # calls of ~2 s: beats past long_call_after, under load too
    path, db, sid = file_study(tmp_path, loopback_server.url)
    said: list[str] = []
    events = ListSink()
    report = await judge_study(db, build_gateway(db, path, stream=True), sid, concurrency=1, progress=said.append,
                               sink=events, long_call_after=0.1, heartbeat=0.1)
    assert report.ok and report.judges[0].ok == 2
    beats = [s for s in said if s.startswith("working: ")]
    assert beats, said
    # "working: j1 judge/anticipation 0s, 14 tokens, 61.3 tokens/s; 0/2 item-rubric pairs, eta 1s"
    found = [re.search(r"j1 judge/\S+ \d+s, (\d+) tokens, ([\d.]+) tokens/s; (\d)/2 item-rubric pairs, eta (\S+)", b)
             for b in beats]
    counted = [m for m in found if m]
    assert counted, beats
    assert all(float(m.group(2)) > 0 for m in counted) and len({m.group(1) for m in counted}) > 1  # tokens grow
    assert all(m.group(4) != "?" for m in counted)  # the token rate gives an ETA before any pair has ended
    sent = [e.payload["call"] for e in events.events if e.kind == CALL_SENT]
    ended = [e.payload["call"] for e in events.events if e.kind == CALL_ENDED]
    assert sent and sorted(sent) == sorted(ended)  # every judge call's end is an event, by its number


async def test_the_studies_screen_shows_the_judging_heartbeat(tmp_path, loopback_server, monkeypatch):
    from textual.widgets import Static

    from screens.launch import make_app
    from tests.screens.scoring_seed import seed_study
    from tests.screens.study_screen_helpers import open_studies, wait_until

    monkeypatch.setattr(live_calls, "LONG_CALL_AFTER", 0.1)  # the defaults the Studies screen judges with
    monkeypatch.setattr(live_calls, "HEARTBEAT", 0.1)
    loopback_server.responder = slow(latency=0.6)
    path = tmp_path / "studies.db"
    sid = seed_study(path, conditions=("B1",), judge_api_base=loopback_server.url)["study_id"]
    app = make_app(path)
    said: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        await open_studies(pilot)
        screen = app.screen
        show = screen.say_work
        screen.say_work = lambda study_id, text: (said.append(text), show(study_id, text))
        await pilot.press("j")
        work = screen.query_one("#study-work", Static)
        await wait_until(pilot, lambda: "working: " in str(work.render()), timeout=60, what="a heartbeat")
        shown = str(work.render())
        await wait_until(pilot, lambda: screen.judging is None, timeout=60, what="the end of judging")
    assert re.search(rf"judging {sid}: working: judge-a judge/\S+ \d+s, a whole reply: no tokens until it lands"
                     r".*; \d+/\d+ item-rubric pairs, eta \S+", shown), shown
    assert any(s.startswith(f"judging {sid}: judge-a: ") for s in said)  # each pair's line still comes


def test_batch_judge_prints_one_heartbeat_line_a_second_for_every_long_call(tmp_path, loopback_server, capsys,
                                                                            monkeypatch):
    from workbench.cli.main import main

    monkeypatch.setattr(live_calls, "LONG_CALL_AFTER", 0.1)  # a long call from 0.1 s; the heartbeat stays 1 s
    loopback_server.responder = slow(latency=1.2)
    path, db, sid = file_study(tmp_path, loopback_server.url)
    db.close()
    assert main(["--batch", "--db", str(path), "judge", sid, "--max-connections", "2"]) == 0
    err = capsys.readouterr().err
    working = [line for line in err.splitlines() if "working: " in line]
    # two calls long at once for 1.1 s: one line a beat (1 or 2 by the beat's phase), never one per call
    assert 1 <= len(working) <= 2, err
    for line in working:
        assert line.count("a whole reply: no tokens until it lands") == 2 and "0/2 item-rubric pairs, eta ?" in line
    assert len({re.search(r"anticipation (\d+)s", line).group(1) for line in working}) == len(working)  # a second on


@pytest.mark.parametrize("judged, expected", [(1, 30.0), (0, 400.0)])
def test_the_eta_comes_from_the_pace_per_pair_else_from_the_token_rate(judged, expected):
    """1 of 4 pairs ended in 10 s: the 3 left take 30 s. None ended yet: 4 calls of max_tokens 100 at the
    stream's 1 token a second (10 tokens in the 10 s since its first) take 400 s."""
    now = [100.0]
    live = LiveCalls(after=0.0, clock=lambda: now[0])
    live.update(Event(CALL_SENT, agent="j1", payload={"call": 1, "stream": True, "max_tokens": 100}))
    for _ in range(10):
        live.update(Event(TOKEN, agent="j1", payload={"call": 1, "text": "x"}))
    summary = JudgeSummary("j1", "openai/j1", "direct", runs=1, to_judge=4, judged=judged)
    pace = JudgingPace([SimpleNamespace(runs=1)], [summary], live, clock=lambda: now[0])
    now[0] = 110.0
    assert pace.eta() == expected
    live.update(Event(CALL_ENDED, agent="j1", payload={"call": 1, "ok": True}))
    assert live.calls == {} and live.long() == []  # the gateway's end of the call ends its signs of life
