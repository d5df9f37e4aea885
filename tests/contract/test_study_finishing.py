"""The protocol contract for finishing a study in the TUI (issue 24 item 4): on a judged study of every
registered protocol, the Studies screen unblinds (the dialog, a reason, recorded), then the list says
"unblinded", the report is written to the chosen file and the metrics export to the chosen folder, with no
failed worker."""

from __future__ import annotations

import pytest
from textual.widgets import Input
from textual.worker import WorkerState

from screens.ask_dialog import AskDialog
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from screens.study_actions import FORCE, UNBLIND
from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL, STUDIES
from tests.contract.test_shared_screens import idle
from workbench.blinding.unblind import unblind_state
from workbench.exports.catalog import EXPORTS

SIZE = (140, 40)


@pytest.fixture
def judged_store(built, protocol, tmp_path):
    return stage(built, BY_PROTOCOL[protocol], "judged", tmp_path)


async def until(pilot, ready, what: str, timeout: float = 120.0) -> None:
    waited = 0.0
    while not ready():
        assert waited < timeout, f"never: {what}"
        await pilot.pause(0.05)
        waited += 0.05


async def answer(pilot, text: str) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, AskDialog), "the question")
    pilot.app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES])
async def test_the_studies_screen_finishes_a_study_of_every_protocol(judged_store, protocol, tmp_path):
    study = BY_PROTOCOL[protocol]
    report, metrics = tmp_path / "out" / "report.md", tmp_path / "out" / "metrics"
    app = make_app(judged_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen", "Studies")
        screen = app.screen
        screen.refresh_list(select=study.name)
        await idle(pilot)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the unblind dialog")
        choice = next(c for c in app.screen.choices if c.id in (UNBLIND, FORCE))
        await pilot.press(choice.key)
        await answer(pilot, "the contract suite")
        await until(pilot, lambda: unblind_state(app.db, study.name).unblinded, "the unblinding")
        await pilot.pause()
        assert str(screen.query_one("#study-table").get_row(study.name)[1]).startswith("unblinded")
        await pilot.press("p")
        await answer(pilot, str(report))
        await until(pilot, report.exists, "the report")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the export list")
        await pilot.press(str(next(k for k, e in enumerate(EXPORTS, start=1) if e.id == "metrics")))
        await answer(pilot, str(metrics))
        await until(pilot, lambda: (metrics / "metrics.json").exists(), "the metrics export")
        await idle(pilot)
        failed = [w for w in app.workers if w.state == WorkerState.ERROR]
        assert not failed, f"worker {failed[0].name} failed: {failed[0].error!r}"
    text = report.read_text()
    assert study.name in text and "- Status: unblinded" in text
