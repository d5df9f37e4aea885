"""Study progress (issue 15): a total fixed before the first call, a bar that ends at 100%, an ETA from
measured throughput. Pure bookkeeping: events in, snapshots out."""

from __future__ import annotations

import pytest

from workbench.cli.run_display import PlainDisplay, progress_line
from workbench.events import PROGRESS, RUN_CANCELLED, RUN_FAILED, RUN_FINISHED, RUN_STARTED, TURN_FINISHED, Event
from workbench.runs import progress as progress_module
from workbench.runs.progress import StudyProgress

RUNS = [{"id": "s/c/B1/0", "case_id": "c", "condition": "B1", "replicate": 0, "status": "pending"},
        {"id": "s/c/C2/0", "case_id": "c", "condition": "C2", "replicate": 0, "status": "pending"}]


def turn(run_id, replayed=False):
    return Event(TURN_FINISHED, run_id=run_id, payload={"replayed": replayed, "input_tokens": 1,
                                                        "output_tokens": 1, "cost": 0.0})


def test_a_run_making_more_calls_than_declared_does_not_grow_the_total():
    p = StudyProgress(RUNS, {"s/c/B1/0": 2, "s/c/C2/0": 5}, extra_calls=3)
    assert p.snapshot()["calls_expected"] == 10
    p.update(Event(RUN_STARTED, run_id="s/c/C2/0"))
    for _ in range(8):  # three seconds more than it declared
        p.update(turn("s/c/C2/0"))
        snap = p.snapshot()
        assert snap["calls_expected"] == 10 and snap["calls_done"] <= 4  # capped below its share until it ends
    p.update(Event(RUN_FINISHED, run_id="s/c/C2/0"))
    snap = p.snapshot()
    assert (snap["calls_done"], snap["calls_expected"], snap["calls_made"]) == (5, 10, 8)


def test_short_follow_ups_settle_but_a_failed_run_counts_what_it_did_so_the_bar_never_reads_100():
    """Issue 34: a study with a failed run read "100% (43/43 calls, 15 made)"; its runs' calls are what was
    done, the follow-up's unmade calls are settled."""
    p = StudyProgress(RUNS, {"s/c/B1/0": 2, "s/c/C2/0": 5}, extra_calls=3)
    p.update(Event(RUN_STARTED, run_id="s/c/B1/0"))
    p.update(turn("s/c/B1/0"))
    p.update(Event(RUN_FAILED, run_id="s/c/B1/0", payload={"error": "HTTP 400"}))
    p.update(Event(RUN_STARTED, run_id="s/c/C2/0"))
    for _ in range(5):
        p.update(turn("s/c/C2/0"))
    p.update(Event(RUN_FINISHED, run_id="s/c/C2/0"))
    for _ in range(2):  # the follow-up needed two of its three calls
        p.update(turn(None))
    assert p.snapshot()["calls_done"] == 8
    p.follow_up_ended(3, 2)
    snap = p.snapshot()
    assert (snap["calls_done"], snap["calls_expected"], snap["fraction"]) == (9, 10, 0.9)
    assert snap["calls_made"] == 8
    assert progress_line(snap).startswith("progress 90% (9/10 calls, 8 made)")


def test_a_cancelled_study_never_reads_100_percent():
    p = StudyProgress(RUNS, {"s/c/B1/0": 1, "s/c/C2/0": 1})
    p.update(Event(RUN_STARTED, run_id="s/c/B1/0"))
    p.update(turn("s/c/B1/0"))
    p.update(Event(RUN_CANCELLED, run_id="s/c/B1/0"))  # its one call made, then cancelled
    p.update(Event(RUN_CANCELLED, run_id="s/c/C2/0"))  # cancelled before its call
    snap = p.snapshot()
    assert (snap["calls_done"], snap["calls_expected"]) == (1, 2)
    assert progress_line(snap).startswith("progress 50% (1/2 calls)")


def test_the_eta_follows_the_recent_rate_not_the_session_average(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    runs = [{"id": f"s/c/B1/{i}", "case_id": "c", "condition": "B1", "replicate": i, "status": "pending"}
            for i in range(100)]
    p = StudyProgress(runs, {r["id"]: 1 for r in runs})
    clock[0] += 100.0  # a slow start: nothing for 100 s
    for r in runs[:40]:  # then one call a second
        p.update(Event(RUN_STARTED, run_id=r["id"]))
        p.update(turn(r["id"]))
        p.update(Event(RUN_FINISHED, run_id=r["id"]))
        clock[0] += 1.0
    clock[0] -= 1.0
    snap = p.snapshot()
    assert snap["calls_done"] == 40
    assert snap["eta_seconds"] == 60.0  # 60 calls left at 1/s (the session average would say ~208 s)
    for r in runs[40:50]:  # replayed calls are instant and do not flatter the rate
        p.update(Event(RUN_STARTED, run_id=r["id"]))
        p.update(turn(r["id"], replayed=True))
        p.update(Event(RUN_FINISHED, run_id=r["id"]))
    assert p.snapshot()["eta_seconds"] == 50.0


def test_plain_display_announces_the_plan_and_prints_the_final_100(capsys):
    import io

    out = io.StringIO()
    now, slept = [0.0], []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    display = PlainDisplay(out, clock=lambda: now[0], sleep=sleep)
    p = StudyProgress(RUNS[:1], {"s/c/B1/0": 1}, extra_calls=1)
    display.emit(Event(PROGRESS, payload=p.snapshot()))
    p.update(Event(RUN_STARTED, run_id="s/c/B1/0"))
    p.update(turn("s/c/B1/0"))
    p.update(Event(RUN_FINISHED, run_id="s/c/B1/0"))
    display.emit(Event(PROGRESS, payload={**p.snapshot(), "run": p.runs["s/c/B1/0"].to_dict()}))
    now[0] += 0.3
    p.follow_up_ended(1, 0)  # a follow-up that made no call
    display.emit(Event(PROGRESS, payload=p.snapshot()))
    display.emit(Event(PROGRESS, payload=p.snapshot()))  # the same again: not repeated
    lines = [line.split(" ", 1)[1] for line in out.getvalue().splitlines()]
    assert lines[0] == "planned   1 runs, 2 calls"
    assert lines[1].startswith("progress 0% (0/2 calls)")
    assert lines[2].startswith("done") and "c/B1/0" in lines[2]
    # 50% and then 100% came within a second of the last progress line: held, the latest replacing the other
    assert len(lines) == 3
    display.close()  # the final state is always shown, a whole second after the progress line before it
    lines = [line.split(" ", 1)[1] for line in out.getvalue().splitlines()]
    assert lines[3].startswith("progress 100% (2/2 calls, 1 made)") and len(lines) == 4
    assert slept == [pytest.approx(0.7)]


def test_a_pause_is_shown_at_once_and_a_final_line_a_second_on_needs_no_wait():
    import io

    now, slept = [0.0], []
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: now[0], sleep=slept.append)
    p = StudyProgress(RUNS[:1], {"s/c/B1/0": 1})
    display.emit(Event(PROGRESS, payload=p.snapshot()))
    now[0] += 0.1
    display.emit(Event(PROGRESS, payload={**p.snapshot(), "paused": True}))  # Ctrl-C: not held for a second
    assert sum(line.split(" ", 1)[1].startswith("progress") for line in out.getvalue().splitlines()) == 2
    now[0] += 5.0
    display.close()
    assert slept == []


def test_the_batch_progress_line_counts_waiting_calls_and_comes_at_most_once_a_second():
    """Issue 40: 5,000 waiting calls were 5,000 lines; now they are a count in a line printed at most once a
    second (the clock is the test's), and the last state is printed on close."""
    import io

    from workbench.events import CALL_SENT, CALL_WAITING

    now = [0.0]
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: now[0])
    p = StudyProgress(RUNS, {"s/c/B1/0": 1, "s/c/C2/0": 1})

    def feed(event):
        changed = p.update(event)
        snap = p.snapshot()
        if changed is not None:
            snap["run"] = changed.to_dict()
        display.emit(event)
        display.emit(Event(PROGRESS, payload=snap))

    feed(Event(RUN_STARTED, run_id="s/c/B1/0", payload={"attempt": 1}))
    for _ in range(300):  # a burst of waiting calls within one second
        feed(Event(CALL_WAITING, run_id="s/c/B1/0", turn="t", payload={"endpoint": "http://x"}))
        now[0] += 0.001
    lines = out.getvalue().splitlines()
    assert sum("progress" in line for line in lines) == 1 and not any("for a connection" in x for x in lines)
    now[0] += 1.0  # a second on, the next event brings out the held line: the latest count
    feed(Event(CALL_SENT, run_id="s/c/B1/0", turn="t", payload={}))
    progress_lines = [x for x in out.getvalue().splitlines() if "progress" in x]
    assert len(progress_lines) == 2 and "300 calls waiting" in progress_lines[-1]
    feed(Event(CALL_SENT, run_id="s/c/B1/0", turn="t", payload={}))  # within the second: held
    assert "298 calls waiting" not in out.getvalue()
    display.close()
    assert "298 calls waiting" in out.getvalue().splitlines()[-1]
