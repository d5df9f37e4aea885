"""The protocol contract in the TUI: every section opened on a study of every registered protocol.

Studies (the study's detail), Runs, Scoring, Metrics and each of the protocol's own panels open on the
study of tests/contract/studies.py with no exception (no failed worker either) and show the study's name.
"""

from __future__ import annotations

import html
import re

import pytest
from textual.worker import WorkerState

from screens.launch import make_app
from screens.protocol_panels import open_panel
from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL, STUDIES
from tests.screens.screen_helpers import ASKING_GROUPS
from workbench.protocol import registry

SIZE = (160, 50)


def on_screen(app) -> str:
    """The text the terminal shows, as one string: the screenshot's, and each Static's of the screen on top."""
    from textual.widgets import Static

    svg = html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")
    statics = [str(w.render()) for w in app.screen.query(Static) if w.display]
    return "\n".join([svg, *statics])


async def idle(pilot, timeout: float = 60.0) -> None:
    """Until every worker has ended (done, failed or cancelled: an exclusive worker may be replaced)."""
    waited = 0.0
    while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers
              if w.group not in ASKING_GROUPS):
        assert waited < timeout, "the workers never finished"
        await pilot.pause(0.05)
        waited += 0.05
    await pilot.pause()


async def opened(pilot, what: str, study_name: str, *, named: bool = True) -> None:
    await idle(pilot)
    failed = [w for w in pilot.app.workers if w.state == WorkerState.ERROR]
    assert not failed, f"{what}: worker {failed[0].name} failed: {failed[0].error!r}"
    if named:
        assert study_name in on_screen(pilot.app), f"{what} does not show {study_name}"


@pytest.fixture
def judged_store(built, protocol, tmp_path):
    """Built outside the test's event loop: the batch commands that build it run their own."""
    return stage(built, BY_PROTOCOL[protocol], "judged", tmp_path)


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES])
async def test_every_section_opens_on_the_study(judged_store, protocol):
    study = BY_PROTOCOL[protocol]
    app = make_app(judged_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        app.screen.refresh_list(select=study.name)
        await opened(pilot, "Studies (detail)", study.name)
        assert study.name in str(app.screen.query_one("#study-summary").render())

        await pilot.press("3")
        await pilot.pause()
        app.screen.show_study(study.name)
        await opened(pilot, "Runs", study.name)

        await pilot.press("4")
        await pilot.pause()
        if study.raters:
            assert app.screen.open_session(study.name, "rater-a"), "Scoring: rater-a's session did not open"
        await opened(pilot, "Scoring", study.name, named=study.raters)
        if study.raters:
            await pilot.press("escape")
            await idle(pilot)

        await pilot.press("5")
        await pilot.pause()
        from textual.widgets import Select

        app.screen.query_one("#study-select", Select).value = study.name
        await opened(pilot, "Metrics", study.name)

        for kind in registry.get(protocol).panels:
            panel = open_panel(app, study.name, kind)
            assert panel is not None
            await opened(pilot, f"panel {kind}", study.name)
            app.pop_screen()
            await pilot.pause()
