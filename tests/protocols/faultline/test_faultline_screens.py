"""The faultline screens standalone over a finished scripted study: Pilot tests at 80x24 (the live
debate side by side with streaming, the crux browser's jump to the cited messages, the stance chart,
the metrics verdict) and snapshots of the belief graph and the spread plot."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App

from tests.protocols.faultline.faultline_kit import PAIR, TOPIC, gateway, scripted
from tests.support.loopback import loopback
from workbench.events import Event

DEBATE = f"{TOPIC}--{PAIR}"


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A store with a finished study (graph-20, qbaf, both baselines) run through the shared runner."""
    from tests.protocols.faultline.test_faultline_end_to_end import write_study
    from store import open_store
    from workbench.protocols.faultline.graphs import build_study_graphs
    from workbench.runs.runner import run_study
    from workbench.studies import create_study, load_study

    tmp = tmp_path_factory.mktemp("fl-screens")
    with loopback() as server:
        server.responder = scripted
        db_path = tmp / "store.db"
        db = open_store(db_path)
        create_study(db, write_study(tmp, server, conditions=("graph-20", "qbaf", "single", "self-consistency")))

        async def go():
            await build_study_graphs(db, gateway(db, db_path), "fl-e2e", load_study(db, "fl-e2e")["definition"])
            return await run_study(db, gateway(db, db_path), "fl-e2e")

        summary = asyncio.run(go())
        assert summary.complete
    yield db, "fl-e2e"
    db.close()


def run_of(db, sid, cond):
    from workbench.protocols.faultline.views import debate_runs

    return next(r["id"] for r in debate_runs(db, sid) if r["condition"] == cond)


def host(screen):
    class FaultlineApp(App):
        def on_mount(self) -> None:
            self.push_screen(screen)

    return FaultlineApp()


async def test_debate_side_by_side_and_streaming_at_80x24(finished):
    from screens.faultline.debate import DebateScreen

    db, sid = finished
    run_id = run_of(db, sid, "graph-20")
    app = host(DebateScreen(db, sid, run_id))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        a, b = screen.query_one("#msg-A-r1"), screen.query_one("#msg-B-r1")
        assert a.parent is b.parent and a.region.x < b.region.x          # one round, two columns
        assert a.region.right <= 80 and b.region.right <= 80
        assert "Reactors are clean and safe" in str(a.render())
        assert "Round 1 of 1" in str(screen.query_one("#msg-M-r1").render())
        # live: a turn starts and streams into its column
        screen.feed(Event("turn_started", run_id=run_id, turn="A-r9", agent="tech-optimist",
                          payload={"phase": "round"}))
        await pilot.pause()
        await app.workers.wait_for_complete()
        for piece in ("Streaming ", "words ", "arrive"):
            screen.feed(Event("token", run_id=run_id, turn="A-r9", agent="tech-optimist", payload={"text": piece}))
        await pilot.pause()
        assert "Streaming words arrive" in str(screen.query_one("#live-A-r9").render())
        screen.feed(Event("token", run_id="another-run", turn="A-r9", payload={"text": "nope"}))
        assert "nope" not in screen.live["A-r9"]
        await pilot.press("s")
        await pilot.pause()
        chart = str(app.screen.query_one("#fl-stance-chart").render())
        assert "Technology optimist" in chart and "+2" in chart and "+1" in chart
        await pilot.press("escape", "c")
        await pilot.pause()
        assert "Is nuclear waste storage" in str(app.screen.query_one("#fl-crux-detail").render())


async def test_crux_browser_shows_a_card_and_jumps_to_its_messages(finished):
    from screens.faultline.crux_browser import CruxBrowserScreen
    from screens.faultline.transcript import DebateTranscript

    db, sid = finished
    app = host(CruxBrowserScreen(db, sid, run_of(db, sid, "qbaf")))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        detail = str(app.screen.query_one("#fl-crux-detail").render())
        assert "Is nuclear waste storage a solved problem?" in detail and "A-r1, B-r1" in detail
        await pilot.press("j")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        debate = app.screen
        assert isinstance(debate, DebateTranscript) and debate.focus_ids == ["A-r1", "B-r1"]
        assert debate.query_one("#msg-A-r1").has_class("fl-cited")
        assert not debate.query_one("#msg-A-open").has_class("fl-cited")
        await pilot.press("escape")
        await pilot.press("down")
        await pilot.pause()
        assert "How fast must electricity emissions fall" in str(app.screen.query_one("#fl-crux-detail").render())


async def test_metrics_panel_puts_the_verdict_first(finished):
    from screens.faultline.metrics_panel import FaultlineMetricsScreen
    from workbench.protocols.faultline.views import metrics_document

    db, sid = finished
    doc = metrics_document(db, sid)
    app = host(FaultlineMetricsScreen(db, sid))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        verdict = str(screen.query_one("#fl-verdict").render())
        h = doc["headline"]
        assert f"Debate beats self-consistency on equal votes (ACC): {h['answer']}" in verdict
        assert "ACC: all debate conditions − self-consistency on 2 votes: mean ACC difference" in verdict
        seed = h["five_votes"]["mean_difference"]
        assert f"Seed 002's comparison (five-vote majority; not the verdict): {seed['value']:.3f}" in verdict
        assert screen.query_one("#fl-verdict").region.y < screen.query_one("#fl-metrics-table").region.y
        table = screen.query_one("#fl-metrics-table")
        assert table.get_row("self-consistency")[-1] == f"{doc['conditions']['self-consistency']['ACC']['value']:.2f}"
        assert table.get_row("graph-20")[-1] == "1.00"
        table.focus()
        table.move_cursor(row=table.get_row_index("graph-20"))
        await pilot.pause()
        reasons = str(screen.query_one("#fl-errors").render())
        assert "CR >0.4: undefined in all 1 repeated debates: 1 run(s) of this debate have crux cards" in reasons


def test_belief_graph_snapshot(snap_compare, finished):
    from screens.faultline.graph_panel import BeliefGraphScreen

    db, sid = finished
    assert snap_compare(host(BeliefGraphScreen(db, sid)), terminal_size=(80, 24))


def test_spread_plot_snapshot(snap_compare, finished):
    from screens.faultline.metrics_panel import FaultlineMetricsScreen

    db, sid = finished

    async def computed(pilot):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.screen.query_one("#fl-metrics-table").focus()   # one focus state, whatever the timing
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(host(FaultlineMetricsScreen(db, sid)), terminal_size=(100, 40), run_before=computed)


async def test_belief_graph_panel_marks_the_nodes_a_run_drew_on(finished):
    from screens.faultline.graph_panel import BeliefGraphScreen

    db, sid = finished
    app = host(BeliefGraphScreen(db, sid, run_of(db, sid, "graph-20")))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#fl-graph-table")
        assert app.screen.key == "precautionary-ethicist:20"
        # the scripted persona repeats its belief n1 word for word in each of its three speeches
        assert table.get_row("n1")[3] == "B-open, B-r1, B-close"
        assert table.get_row("n2")[3] == ""
        assert table.get_row("n1")[2] == "+n2"          # n1 supports n2


async def test_metrics_panel_shows_the_steps_while_it_computes(finished):
    """Issue 24 item 7: the panel's status line says what `metrics` says on stderr (one wording)."""
    from screens.faultline.metrics_panel import FaultlineMetricsScreen
    from workbench.metrics.embeddings import LOADING, MEASURING, progress_text

    db, sid = finished
    runs = db.execute("SELECT count(*) FROM runs WHERE study_id = ? AND status IN ('done', 'done_with_errors')",
                      [sid]).fetchone()[0]
    screen = FaultlineMetricsScreen(db, sid)
    said: list[str] = []
    shown = screen.say
    screen.say = lambda text: (said.append(text), shown(text))
    app = host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    line = "Computing the metrics: {} …".format
    measured = [text for text in said if text.endswith("runs measured …")]
    assert measured == [line(progress_text(MEASURING, k, runs)) for k in range(runs + 1)]
    assert said[0] == measured[0]
    # after the last run, only CR's crux model (mpnet) may still be loading: whether it is depends on
    # whether another test of this module filled the store's embedding cache first (xdist's order)
    assert set(said[said.index(measured[-1]) + 1:]) <= {line(progress_text(LOADING, 0, 0))}

