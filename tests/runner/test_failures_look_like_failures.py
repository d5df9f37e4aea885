"""Issue 25 item 5: a queued call reads "waiting", an unpriced cost reads "unknown", a resumed command's
progress counts its own calls, and `--retry-failed` names `--resume`."""

from __future__ import annotations

import io

import pytest

from workbench.cli.run_display import PlainDisplay, percent, progress_line
from workbench.events import CALL_SENT, CALL_WAITING, PROGRESS, TURN_STARTED, Event
from workbench.runs.progress import StudyProgress
from workbench.runs.view import TranscriptModel, cell_fields
from workbench.studies.costs import cost_text
from workbench.studies.counts import StudyCounts


def _row(run_id: str, status: str) -> dict:
    return {"id": run_id, "case_id": "c", "condition": run_id, "replicate": 0, "status": status}


# --- cost -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cost, unknown, priced, shown", [
    (0.0, False, None, "$0.0000"),
    (0.0123, False, None, "$0.0123"),
    (0.0, True, None, "unknown"),
    (0.0, 4, 0, "unknown"),
    (0.0, 2, 3, "≥$0.0000 (+ 2 calls of unknown price)"),   # priced calls that cost nothing (a free model)
    (0.5, 2, 3, "≥$0.5000 (+ 2 calls of unknown price)"),
    (0.5, True, None, "≥$0.5000"),
])
def test_one_cost_format(cost, unknown, priced, shown):
    assert cost_text(cost, unknown, priced=priced) == shown


def test_counts_read_unknown_when_no_call_had_a_price():
    counts = StudyCounts(runs={"done": 1}, calls_made=3, calls_ok=3, calls_failed=0, calls_replayed=0,
                         input_tokens=10, output_tokens=20, cost=0.0, cost_unknown_calls=3, judged=0, judge_errors=0)
    assert "unknown" in counts.calls_text() and "$0.0000" not in counts.calls_text()


def test_m11_actual_cost_with_no_price_is_unknown():
    from workbench.protocols.m11.cost import actual
    from workbench.protocols.m11.report import _actual

    a = actual([{"id": "x", "cost": {"cost": 0.0, "cost_unknown": True}}])
    assert a["text"] == "unknown" and a["note"] is None
    assert _actual(a).startswith("unknown") and "$0.0000" not in _actual(a)


# --- waiting --------------------------------------------------------------------------------------------

def test_a_queued_call_shows_waiting_until_it_is_sent():
    model = TranscriptModel()
    model.consume(Event(TURN_STARTED, run_id="r", turn="t", agent="critic", payload={"label": "Critic"}))
    model.consume(Event(CALL_WAITING, run_id="r", turn="t", agent="critic", payload={"endpoint": "http://x"}))
    [entry] = model.entries
    assert entry.footer() == "waiting for a connection…"
    model.consume(Event(CALL_SENT, run_id="r", turn="t", agent="critic", payload={}))
    assert entry.footer() == "streaming…"


def test_progress_counts_waiting_calls_for_the_grid_and_the_batch_display():
    progress = StudyProgress([_row("a", "pending")], {"a": 2})
    progress.update(Event("run_started", run_id="a", payload={}))
    progress.update(Event(CALL_WAITING, run_id="a", turn="t", payload={}))
    snap = progress.snapshot()
    assert snap["calls_waiting"] == 1 and "1 calls waiting" in progress_line(snap)
    state = progress.runs["a"].to_dict()
    assert cell_fields(state)["waiting"] == "waiting"
    progress.update(Event(CALL_SENT, run_id="a", turn="t", payload={}))
    assert progress.snapshot()["calls_waiting"] == 0 and "waiting" not in progress_line(progress.snapshot())

    out = io.StringIO()  # issue 40: a count in the progress line, never a line per waiting call
    PlainDisplay(out).emit(Event(CALL_WAITING, run_id="s/c/B1/0", turn="answer", payload={"endpoint": "http://x"}))
    assert out.getvalue() == ""


# --- a resumed command's progress -------------------------------------------------------------------------

def test_a_resumed_command_counts_its_own_calls():
    runs = [_row("done1", "done"), _row("done2", "done"), _row("retry", "failed")]
    progress = StudyProgress(runs, {"done1": 16, "done2": 12, "retry": 4}, selected={"retry"})
    snap = progress.snapshot()
    # before its first call: 0 of its own 4 calls, not "100% (32/32 calls, 0 made)"
    assert (snap["calls_done"], snap["calls_expected"], snap["fraction"]) == (0, 4, 0.0)
    assert percent(snap) == "0%" and snap["runs"]["done"] == 2 and snap["runs"]["pending"] == 1
    progress.update(Event("run_started", run_id="retry", payload={}))
    progress.update(Event("turn_finished", run_id="retry", turn="t", payload={"cost": None}))
    assert progress.snapshot()["calls_done"] == 1


async def test_a_resumed_study_starts_below_100_percent(store, server, capsys):
    """Through the runner: a failed run retried with --retry-failed starts at 0 of its own calls."""
    from tests.runner.studykit import create, gateway, study_text
    from tests.support.loopback import Reply
    from workbench.events import ListSink
    from workbench.runs.runner import run_study
    from tests.runner.studykit import scripted

    db, db_path = store

    def refuse_b2(body):
        if "Think step by step" in body["messages"][-1]["content"]:
            return Reply.unauthorized()
        return scripted(body)

    server.responder = refuse_b2
    study = create(db, study_text("resumed", conditions=("B1", "B2"), api_base=server.url))
    await run_study(db, gateway(db, db_path), study)
    server.responder = scripted
    sink = ListSink()
    await run_study(db, gateway(db, db_path), study, sink=sink, retry_failed=True)
    first = next(e.payload for e in sink.events if e.kind == PROGRESS)
    assert first["calls_done"] == 0 and first["calls_expected"] < 4 and percent(first) == "0%"
    last = [e.payload for e in sink.events if e.kind == PROGRESS][-1]
    assert percent(last) == "100%"


# --- --retry-failed -------------------------------------------------------------------------------------

def test_retry_failed_without_resume_names_resume(tmp_path, monkeypatch, capsys):
    import shutil
    from pathlib import Path

    from workbench.cli.main import main

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "cases", tmp_path / "cases")
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(tmp_path / "cases"))
    db = str(tmp_path / "store.db")
    assert main(["--batch", "--db", db, "study", "create", str(root / "studies" / "glenda-crock-mock.toml")]) == 0
    from store import open_store
    from store.runs import finish_run
    from workbench.runs.runner import prepare_study

    conn = open_store(db)  # a study already run, one run failed: the case where the message misled
    first = prepare_study(conn, "glenda-crock-mock")[0]["id"]
    finish_run(conn, first, "failed", error="401")
    conn.close()
    capsys.readouterr()
    code = main(["--batch", "--db", db, "run", "glenda-crock-mock", "--retry-failed"])
    err = capsys.readouterr().err
    assert code == 2 and "--retry-failed needs --resume" in err
    assert "workbench --batch run glenda-crock-mock --resume --retry-failed" in err
