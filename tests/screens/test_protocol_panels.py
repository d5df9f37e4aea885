"""Another protocol's own screens open from the app: `o` in Runs and Metrics, and the `panels: …` palette."""

from __future__ import annotations

import pytest
from textual.screen import Screen
from textual.widgets import Static

from screens.launch import make_app
from screens.protocol_panels import study_panels
from workbench.protocol import registry
from workbench.protocol.base import RunPlan, StudyProtocol


class PanelScreen(Screen):
    def __init__(self, db, study_id: str) -> None:
        super().__init__()
        self.study_id = study_id

    def compose(self):
        yield Static(f"panel of {self.study_id}", id="panel-note")


class PanelProtocol(StudyProtocol):
    name = "panel-toy"
    panels = {"run": f"{__name__}:PanelScreen", "metrics": f"{__name__}:PanelScreen"}

    def conditions(self):
        return ["only"]

    def planned_runs(self, db, study_id, definition):
        return [RunPlan("x", "only", 0)]


@pytest.fixture
def store_with_toy_study(tmp_path):
    from workbench.paths import open_workbench_store
    from workbench.studies import create_study

    registry.register(PanelProtocol())
    db_path = tmp_path / "store.db"
    db = open_workbench_store(db_path)
    create_study(db, text='name = "toy-study"\nprotocol = "panel-toy"\n', name="toy.toml")
    db.close()
    yield db_path
    registry.unregister("panel-toy")


async def test_o_opens_the_protocols_screen_from_runs_and_metrics(store_with_toy_study):
    app = make_app(store_with_toy_study)
    async with app.run_test(size=(80, 24)) as pilot:
        assert study_panels(app.db, "toy-study")["run"].endswith(":PanelScreen")
        await pilot.press("3")  # Runs
        await pilot.pause()
        runs = app.screen
        runs.show_study("toy-study")
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, PanelScreen) and app.screen.study_id == "toy-study"
        app.pop_screen()
        await pilot.pause()
        assert app.screen is runs


async def test_a_hindsight_study_has_no_panel_key(tmp_path):
    from workbench.paths import open_workbench_store

    db_path = tmp_path / "store.db"
    db = open_workbench_store(db_path)
    assert study_panels(db, "no-such-study") == {}
    db.close()
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await pilot.pause()
        assert app.screen.check_action("protocol_panel", ()) is False


def test_a_panel_opened_on_the_running_study_gets_its_events():
    from screens.protocol_panels import PanelFeed
    from workbench.events import Event

    class Watching:
        is_attached = True

        def __init__(self):
            self.seen = []

        def feed(self, event):
            self.seen.append(event.kind)

    feed, watching, closed = PanelFeed(), Watching(), Watching()
    feed.add(watching)
    feed.add(closed)
    feed.add(object())  # a panel without feed() is not fed
    feed.emit(Event("token", run_id="r"))
    closed.is_attached = False  # popped: no longer fed, and forgotten
    feed.emit(Event("turn_finished", run_id="r"))
    assert watching.seen == ["token", "turn_finished"] and closed.seen == ["token"]
    assert feed.screens == [watching]
