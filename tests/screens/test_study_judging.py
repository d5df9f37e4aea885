"""Issue 24, item 4: judging and the calibration pilots from the Studies screen. The judge runs the core
`judge_study` against a loopback model (no network); its progress and judge errors reach the detail
pane. The pilots dialog shows each rater's check and releases a held rater with a recorded reason."""

from __future__ import annotations

from scoring_seed import seed_study
from study_screen_helpers import STUDIES_SIZE as SIZE
from study_screen_helpers import hold_rater, open_from_studies, open_studies, wait_until
from textual.widgets import Input, Static

from screens.ask_dialog import AskDialog
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from store import open_store
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)
from workbench import scoring


async def test_judging_shows_progress_and_counts_judge_errors(tmp_path, loopback_server, capsys):  # noqa: F811
    """The detail pane counts what `judge` prints and `judge --json` holds, in the same unit (item-rubric
    pairs), on a twin store judged in batch; its progress runs to n/n pairs and it does not end in "ok"."""
    import asyncio
    import json

    from tests.judges.scripted import anticipation_only_judge
    from workbench.cli.main import main
    from workbench.rubrics import units

    loopback_server.responder = anticipation_only_judge
    path, twin = tmp_path / "store.db", tmp_path / "twin.db"
    sid = seed_study(path, judge_api_base=loopback_server.url)["study_id"]
    seed_study(twin, judge_api_base=loopback_server.url)
    app = make_app(path)
    said: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await open_studies(pilot)
        screen = app.screen
        show = screen.say_work
        screen.say_work = lambda study_id, text: (said.append(text), show(study_id, text))
        await pilot.press("j")
        work = screen.query_one("#study-work", Static)
        await wait_until(pilot, lambda: screen.judging is None and "judge errors" in str(work.render()),
                         timeout=120, what="the summary")
        text = str(work.render())
    capsys.readouterr()  # the batch command runs its own event loop: in a thread, beside the test's
    assert await asyncio.to_thread(main, ["--batch", "--db", str(twin), "judge", sid]) == 0
    batch_text = capsys.readouterr().out
    assert await asyncio.to_thread(main, ["--batch", "--db", str(twin), "--json", "judge", sid]) == 0
    (j,) = json.loads(capsys.readouterr().out)["judges"]  # the twin was judged: its study totals
    n, errors = j["study_judged"], j["study_judge_errors"]
    assert (n, errors) == (6, 4)
    counted = f"{n}/{n} {units.PAIRS} judged: {n - errors} ok, {errors} judge errors"
    assert text.splitlines()[0].startswith("judge-a (openai/judge-a") and counted in text.splitlines()[0]
    assert text.splitlines()[0] == batch_text.strip().splitlines()[1]  # the batch summary's judge line
    assert text.splitlines()[-1] == batch_text.strip().splitlines()[-1] != "ok"
    progress = [t for t in said if t.startswith(f"judging {sid}: judge-a: ")]
    assert len(progress) == n and progress[-1].endswith(f"({n}/{n} {units.PAIRS})  (c cancels)")


async def test_pilots_show_each_check_and_release_a_held_rater_with_a_reason(tmp_path):
    path = tmp_path / "store.db"
    sid = seed_study(path, pilot_items=True)["study_id"]
    hold_rater(path, sid)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await open_from_studies(pilot, "l", ChoiceDialog, "the pilots dialog")
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "rater rater-a: failed" in text and "(held)" in text and "rater rater-b:" in text
        await pilot.press("1")  # Release rater-a
        await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the reason")
        app.screen.query_one(Input).value = "re-read the anchors"
        await pilot.press("enter")
        await wait_until(pilot, lambda: scoring.progress(app.db, sid, "rater-a").phase != "held",
                         what="the release")
    db = open_store(path)
    try:
        row = next(db["calibration_releases"].rows_where("study_id = ?", [sid]))
    finally:
        db.close()
    assert row["rater"] == "rater-a" and row["reason"] == "re-read the anchors"


async def test_judging_is_cancelled_with_c_and_keeps_what_was_judged(tmp_path, loopback_server):  # noqa: F811
    from tests.support.loopback import Reply

    loopback_server.responder = lambda body: Reply.hung(60)  # every judge call waits: cancel mid-flight
    path = tmp_path / "store.db"
    sid = seed_study(path, judge_api_base=loopback_server.url)["study_id"]
    app = make_app(path)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await open_studies(pilot)
        screen = app.screen
        screen.notify = lambda message, **kw: notes.append(message)
        work = screen.query_one("#study-work", Static)
        await pilot.press("j")
        await wait_until(pilot, lambda: loopback_server.count > 0, timeout=60, what="a judge call in flight")
        await pilot.press("j")  # one judging at a time
        assert any("one judging at a time" in n for n in notes)
        await pilot.press("c")
        await wait_until(pilot, lambda: "cancelled" in str(work.render()) and screen.judging is None, timeout=60,
                         what="the cancellation")
        await app.workers.wait_for_complete()
        assert "what was judged is kept" in str(work.render())
    db = open_store(path)
    try:
        calls = list(db["calls"].rows_where("study_id = ?", [sid]))
        verdicts = list(db["verdicts"].rows_where("study_id = ?", [sid]))
    finally:
        db.close()
    assert calls and all(c["status"] == "cancelled" for c in calls) and not verdicts
