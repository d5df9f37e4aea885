"""The Runs section: a study run live from the screen against the loopback model server; pause, resume,
cancel and retry through the keys; finished transcripts from the store; snapshots of the grid and transcript."""

from __future__ import annotations

import pytest
from screen_helpers import choose_in_palette
from study_screen_helpers import SEEDED, OneScreenApp, seed_study, study_toml, wait_until
from textual.widgets import Static

from store import runs as run_rows
from tests.support.loopback import Reply, loopback_server  # noqa: F401  (the fixture)
from workbench.studies import create_study, run_id

SIZE = (130, 40)
REPORT = "RECOMMENDATION: resist\nREASONING: precedent\nRISKS: a shutdown\nCONFIDENCE: medium"


def slow_reply(words: int = 24, delay: float = 0.02):
    """A responder streaming `words` words, one chunk every `delay` seconds, then the report. A call no one
    watches is not streamed (issue 20): it gets the whole reply after as long as the stream would take."""
    def respond(body: dict) -> Reply:
        text = " ".join(f"word{i}" for i in range(words)) + "\n\n" + REPORT
        if body.get("stream"):
            return Reply.text(text, chunk_delay=delay)
        return Reply.text(text, latency=words * delay)

    return respond


def live_study(app, server, name: str = "live-study", conditions=("B1", "C1")) -> str:
    create_study(app.db, text=study_toml(name, conditions=conditions, model="openai/test", api_base=server.url,
                                         extra="[architectures.C1]\nrespondents = 2\n"))
    return name


def grid(app):
    return app.screen.query_one("#run-grid")


def statuses(app) -> dict[str, str]:
    return {rid.split("/", 1)[1]: s["status"] for rid, s in grid(app).states.items()}


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_runs(pilot, study_id: str) -> None:
    await pilot.press("3")
    await pilot.pause()
    assert type(pilot.app.screen).__name__ == "RunsScreen"
    pilot.app.screen.select_study(study_id)
    await pilot.pause()


async def test_a_study_streams_into_the_live_transcript_and_the_grid_reaches_done(app, loopback_server):
    # About 3 s per turn, so a loaded machine still catches a turn mid-stream.
    loopback_server.responder = slow_reply(words=60, delay=0.05)
    study_id = live_study(app, loopback_server)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot, study_id)
        assert statuses(app) == {"coercion-drill/B1/0": "pending", "coercion-drill/C1/0": "pending"}
        await pilot.press("down", "enter")  # the C1 cell: its transcript, before it starts
        view = app.screen.query_one("#transcript")
        assert view.run_id == run_id(study_id, "coercion-drill", "C1", 0)
        await pilot.press("s")

        def streaming_panel():
            panels = view.turn_panels()
            return next((p for p in panels if p.entry.status == "streaming" and "word3" in p.shown_text()), None)

        await wait_until(pilot, lambda: streaming_panel() is not None, what="tokens in a streaming panel")
        panel = streaming_panel()
        partial = panel.shown_text()
        # Which C1 turn is caught streaming depends on timing (the framing, a respondent or the
        # synthesis); each panel is titled with its agent and what the turn does.
        assert panel.border_title in {
            "coordinator · Coordinator frames the question", "coordinator · Coordinator synthesizes",
        } or panel.border_title.startswith("respondent")
        assert panel.border_title == panel.entry.title
        assert "CONFIDENCE" not in partial  # seen mid-stream, not after the fact
        assert "streaming" in panel.classes
        assert "▶ running" in str(grid(app).get_cell("C1/0", "coercion-drill"))

        await wait_until(pilot, lambda: not app.screen.running, what="the study's run to end")
        # the screen's last refresh after the run lands a moment later on a loaded machine
        def settled() -> bool:  # every panel, the last one included, shows its whole text
            panels = view.turn_panels()
            return len(panels) == 5 and all(p.finished and p.shown_text() == p.entry.text for p in panels)

        await wait_until(pilot, settled, what="every turn's panel to show its whole text")
        assert statuses(app) == {"coercion-drill/B1/0": "done", "coercion-drill/C1/0": "done"}
        cell = str(grid(app).get_cell("C1/0", "coercion-drill"))
        assert cell.startswith("✓ done") and "tok" in cell and "unknown" in cell  # loopback has no price
        titles = [p.border_title for p in view.turn_panels()]
        assert titles == ["coordinator · Coordinator frames the question", "respondent-1 · Adviser 1 of 2",
                          "respondent-2 · Adviser 2 of 2", "coordinator · Coordinator synthesizes",
                          "extractor · Extraction: copy the report sentences"]  # issue 13: the report-shape step
        for p in view.turn_panels():  # every token arrived, in order, and nothing twice
            assert p.shown_text() == p.entry.text
            assert p.entry.status == "done" and "streaming" not in p.classes
        # issue 20: only the run whose transcript is on screen streams (C1's five calls); B1's two do not
        # issue 20: only the run whose transcript is on screen streams: C1's framing, two respondents and
        # synthesis; B1's answer and extraction do not (C1's extraction repeats B1's request: served from the log)
        assert sorted(bool(b.get("stream")) for b in loopback_server.requests) == [False] * 2 + [True] * 4
        assert "2 done" in text_of(app, "#progress-text")
        assert all(r["status"] == "done" for r in run_rows.list_runs(app.db, study_id))
        # B1 answer + extraction, C1 frame + 2 respondents + synthesis + extraction (issue 13); the two
        # final texts are the same scripted words, so the second extraction is served from the call log
        assert loopback_server.count == 6


async def test_pause_holds_new_turns_resume_continues_and_cancel_stops(app, loopback_server):
    # the framing turn streams for about 4 s: time enough to press p while it does, on a loaded machine too
    framing_reply, slow_respondents = slow_reply(words=80, delay=0.05), {"on": True}

    def respond(body: dict) -> Reply:
        if slow_respondents["on"] and body["messages"][0]["content"].startswith("You are adviser"):
            return slow_reply(words=200, delay=0.05)(body)  # ten seconds: cancelled long before the end
        return framing_reply(body)

    loopback_server.responder = respond
    study_id = live_study(app, loopback_server, name="pause-study", conditions=("C1",))
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot, study_id)
        screen = app.screen
        await pilot.press("enter", "s")
        view = screen.query_one("#transcript")
        framing = lambda: next(iter(view.turn_panels()), None)  # noqa: E731
        await wait_until(pilot, lambda: framing() is not None and "word3" in framing().shown_text(),
                         what="the framing turn streaming")
        await pilot.press("p")  # while the framing turn streams
        assert screen.control.paused
        assert screen.active_bindings["p"].binding.id == "runs.resume"  # the same key now resumes
        await wait_until(pilot, lambda: framing().entry.status == "done", what="the turn in flight to finish")
        await pilot.pause(0.5)
        assert loopback_server.count == 1  # nothing new started while paused
        assert framing().shown_text() == framing().entry.text  # the turn in flight was kept whole
        assert "paused" in text_of(app, "#progress-text")

        await pilot.press("p")
        assert not screen.control.paused
        await wait_until(pilot, lambda: loopback_server.count >= 2, what="the respondents after resuming")

        await pilot.press("x")  # while the respondents stream
        await wait_until(pilot, lambda: not screen.running, what="the cancelled run to stop")
        await pilot.pause(0.2)
        rows = run_rows.list_runs(app.db, study_id)
        assert [r["status"] for r in rows] == ["cancelled"]
        assert "cancelled" in rows[0]["error"]
        assert statuses(app) == {"coercion-drill/C1/0": "cancelled"}
        assert "■ cancelled" in str(grid(app).get_cell("C1/0", "coercion-drill"))
        assert screen.summary.stopped == "cancelled from the Runs screen"

        slow_respondents["on"] = False
        made = loopback_server.count
        await pilot.press("s")  # s continues a cancelled study; completed calls are replayed
        await wait_until(pilot, lambda: not screen.running and statuses(app)["coercion-drill/C1/0"] == "done",
                         what="the continued run")
        summary = screen.summary
        assert summary.calls == 5 and summary.replayed >= 1  # the framing at least was kept (+ extraction)
        assert loopback_server.count - made == summary.network_calls == 5 - summary.replayed


async def test_a_failed_run_is_retried_alone(app, loopback_server):
    broken = {"on": True}

    def respond(body: dict):
        last = body["messages"][-1]["content"]
        if broken["on"] and "what should we do" in last.lower():
            return Reply.unauthorized()  # not retried by the gateway: the B1 run fails
        return Reply.text("an answer\n\n" + REPORT)

    loopback_server.responder = respond
    study_id = live_study(app, loopback_server, name="retry-study")
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot, study_id)
        screen = app.screen
        await pilot.press("s")
        await wait_until(pilot, lambda: not screen.running, what="the first run of the study")
        await pilot.pause(0.2)
        assert statuses(app) == {"coercion-drill/B1/0": "failed", "coercion-drill/C1/0": "done"}
        assert "✗ failed" in str(grid(app).get_cell("B1/0", "coercion-drill"))

        await pilot.press("down")  # C1 is done: a retry is refused with a reason
        await pilot.press("t")
        assert not screen.running
        await pilot.press("up")
        broken["on"] = False
        before = loopback_server.count
        await pilot.press("t")
        await wait_until(pilot, lambda: not screen.running and statuses(app)["coercion-drill/B1/0"] == "done",
                         what="the retried run")
        assert loopback_server.count == before + 1  # B1 alone; C1 was not touched
        assert statuses(app) == {"coercion-drill/B1/0": "done", "coercion-drill/C1/0": "done"}


async def test_quitting_while_a_study_runs_asks_then_cancels_its_runs(app, loopback_server):
    # A 40 s stream: the run must still be going at the second quit, however loaded the machine.
    loopback_server.responder = slow_reply(words=400, delay=0.1)
    study_id = live_study(app, loopback_server, name="quit-study", conditions=("B1",))
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot, study_id)
        await pilot.press("s")
        await wait_until(pilot, lambda: loopback_server.count >= 1, what="the first call")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the question")
        await pilot.press("s")  # stay
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "RunsScreen" and app.screen.running
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the question again")
        await pilot.press("q")
        await wait_until(pilot, lambda: app.return_code is not None, what="the app to exit")
    from store import open_store  # the app closed its own connection

    db = open_store(app.db_path)
    assert [(r["status"], r["error"]) for r in run_rows.list_runs(db, study_id)] == [
        ("cancelled", "cancelled: the workbench was closed")]
    db.close()


async def test_a_changed_frozen_study_is_refused_from_the_screen(app, library):
    study_id = "frozen-study"
    create_study(app.db, text=study_toml(study_id))
    from workbench.studies import freeze_study

    freeze_study(app.db, study_id)
    case_file = library.cases / "coercion-drill.md"
    case_file.write_text(case_file.read_text().replace("## Scenario\n", "## Scenario\n\nA new first line.\n"))
    async with app.run_test(size=SIZE) as pilot:
        await open_runs(pilot, study_id)
        await pilot.press("s")
        await wait_until(pilot, lambda: not app.screen.running, what="the refusal")
        await pilot.pause()
        message = text_of(app, "#progress-text")
        assert "create a new study" in message and "coercion-drill" in message
        assert run_rows.list_runs(app.db, study_id) == []  # refused before any run was created


async def test_a_finished_transcript_is_loaded_from_the_store(tmp_path, library):
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")  # C2 of coercion-drill
        view = app.screen.query_one("#transcript")
        assert view.run_id == run_id(SEEDED, "coercion-drill", "C2", 0)
        titles = [p.border_title for p in view.turn_panels()]
        assert titles == ["chair · Chair states the question", "risk-analyst · Risk analyst: opening statement",
                          "strategist · Strategist moves the main motion", "chair · Chair writes the resolution"]
        notes = {tuple(sorted(n.classes)): str(n.render()) for n in view.query(".note")}
        kinds = [c for n in view.query(".note") for c in n.classes if c.startswith("note-")]
        assert kinds == ["note-run", "note-question", "note-motion", "note-second", "note-amendment", "note-vote",
                         "note-vote", "note-amendment", "note-motion", "note-resolution", "note-run"]
        text = view.text()
        assert "MOTION moved by strategist\nResist and disclose the threat." in text
        assert "AMENDMENT 1 adopted (3 aye, 1 nay, 0 abstain)" in text
        assert "VOTE on the amendment 1: Devil's advocate: nay" in text
        assert "RESOLUTION: the motion is carried (4 aye, 1 nay, 0 abstain)" in text
        assert "minority report, Devil's advocate: The committee underrates the shutdown risk." in text
        assert any("tone-nay" in k for k in notes)
        assert view.turn_panels()[1].border_subtitle == "210 in + 13 out tok · perspective, parallel"


async def test_switching_study_clears_the_other_studys_transcript(library):
    """Issue 15: after choosing another study the transcript panel no longer shows the first one's run."""
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    seed_study(app.db, name="second-study")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.select_study(SEEDED)
        await pilot.pause()
        await pilot.press("down", "enter")
        view = app.screen.query_one("#transcript")
        await wait_until(pilot, lambda: view.run_id == run_id(SEEDED, "coercion-drill", "C2", 0), what="the run")
        app.screen.query_one("#study-select").value = "second-study"
        await wait_until(pilot, lambda: view.run_id is None, what="the cleared transcript")
        assert app.screen.study_id == "second-study"
        assert view.border_title.startswith("second-study") and not view.turn_panels()
        assert [str(h.render()) for h in view.query(".transcript-hint")] == [
            "Choose a run in the grid (enter) to see its transcript."]


async def test_the_palette_opens_a_runs_transcript(library):
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await choose_in_palette(pilot, "transcript of coercion-drill C2")
        await wait_until(pilot, lambda: app.screen.query_one("#transcript").run_id is not None, what="the choice")
        assert app.screen.query_one("#transcript").run_id == run_id(SEEDED, "coercion-drill", "C2", 0)
        assert grid(app).selected_run_id() == run_id(SEEDED, "coercion-drill", "C2", 0)


async def test_grid_shows_every_state_with_tokens_cost_and_elapsed(library):
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        g = grid(app)
        assert [str(g.get_row("P1/0")[1]).split()[1], str(g.get_row("P1/1")[1]).split()[1],
                str(g.get_row("P1/2")[1]).split()[1]] == ["done", "failed", "cancelled"]
        assert str(g.get_cell("B1/0", "coercion-drill")) == "✓ done  550 tok  $0.0012  12s"
        assert str(g.get_cell("B1/0", "guild-charter")) == "✓ done  545 tok  unknown  14s"
        # its two sibling committees failed or were cancelled: P1's defining step did not happen (issue 45)
        assert str(g.get_cell("P1/0", "coercion-drill")) == "✓ done †  17.7k tok  $0.0231  1m35s"
        assert str(g.get_cell("C2/0", "guild-charter")).startswith("‖ interrupted  460 tok  unknown")
        assert str(g.get_cell("P1/0", "guild-charter")) == "· pending"
        line = text_of(app, "#progress-text")
        assert line.startswith("10 runs: 4 done, 1 interrupted, 3 pending, 1 failed, 1 cancelled")


async def test_at_80_columns_the_grid_scrolls_to_the_case_column_the_cursor_is_on(library):
    """Issue 15: a case column beyond the width is reached by moving right, not dropped."""
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        g = grid(app)
        g.focus()
        assert g.virtual_size.width > g.size.width and g.scroll_x == 0  # the second case does not fit
        await pilot.press("right")
        await pilot.pause()
        assert g.cursor_coordinate.column == 2  # label, coercion-drill, guild-charter
        assert g.scroll_x > 0
        assert g.scroll_x + g.scrollable_content_region.width >= g.virtual_size.width - 1  # its cells in view


@pytest.mark.parametrize(("open_transcript", "size"), [(False, (130, 48)), (True, (130, 48)), (False, (80, 24))],
                         ids=["grid", "transcript", "grid-80x24"])
def test_runs_screen_snapshot(snap_compare, library, open_transcript, size):
    from screens.runs import RunsScreen

    app = OneScreenApp(library.db, RunsScreen)
    seed_study(app.db)
    # the freeze hash and the run's elapsed clock are the only moving parts: the seeded study is not frozen
    # and every elapsed time comes from the seeded timestamps

    async def run_before(pilot):
        await pilot.pause()
        if open_transcript:
            await pilot.press("down", "enter")
            await pilot.pause(0.3)
            app.screen.query_one("#transcript").scroll_home(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_a_cut_output_is_marked_in_the_grid_and_its_transcript_at_80x24(app, loopback_server):
    """Issue 25: a reply cut at max_tokens shows in the grid cell (✂ cut) and in its turn's footer."""
    from tests.support import real_replies

    def cut_answer(body):
        if "Given this situation" in body["messages"][-1]["content"]:
            return real_replies.reply("b1-answer-cut-at-120")
        return Reply.text(REPORT)

    loopback_server.responder = cut_answer
    study_id = live_study(app, loopback_server, name="cut-study", conditions=("B1",))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_runs(pilot, study_id)
        await pilot.press("s")
        await wait_until(pilot, lambda: statuses(app).get("coercion-drill/B1/0") == "done", what="B1 done")
        await wait_until(pilot, lambda: grid(app).states[run_id(study_id, "coercion-drill", "B1", 0)].get("truncated"),
                         what="the cut mark")
        row_key, col_key = grid(app)._where[run_id(study_id, "coercion-drill", "B1", 0)]
        assert "✂ cut" in str(grid(app).get_cell(row_key, col_key))
        await pilot.press("enter")
        await pilot.pause()
        view = app.screen.query_one("#transcript")
        await wait_until(pilot, lambda: any("cut off at max_tokens (256)" in p.entry.footer()
                                            for p in view.turn_panels()), what="the cut turn's footer")
