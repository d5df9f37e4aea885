"""Issue 24, item 4: the Studies screen's dialogs and its judging summary at 80x24 and 140x40 (snapshots),
and a check at both sizes that nothing of a dialog is cut: its frame, title, message, input and buttons
lie inside the terminal, with a held rater (the longest texts: the pilots' release button, the packet
rater list's notice) included."""

from __future__ import annotations

import pytest
from scoring_seed import seed_study
from study_screen_helpers import (
    SNAPSHOT_IDS,
    SNAPSHOT_SIZES,
    assert_dialog_fits,
    dismiss_notice,
    fix_study_times,
    hold_rater,
    settle_studies,
    wait_until,
)
from textual.widgets import Static

from screens.ask_dialog import AskDialog
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from tests.support.loopback import loopback_server  # noqa: F401  (the fixture)

# key -> (the dialog it opens, its id in the snapshots' names)
DIALOGS = {"x": (ChoiceDialog, "export-list"), "l": (ChoiceDialog, "pilots"), "k": (ChoiceDialog, "packet-rater"),
           "p": (AskDialog, "report-path"), "i": (AskDialog, "packet-import"), "u": (ChoiceDialog, "unblind")}


async def open_dialog(pilot, key: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, DIALOGS[key][0]), what=f"the dialog of {key}")
    await pilot.pause()


@pytest.mark.parametrize("key", list(DIALOGS), ids=[name for _, name in DIALOGS.values()])
@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=SNAPSHOT_IDS)
def test_finishing_dialog_snapshot(snap_compare, tmp_path, size, key):
    store = tmp_path / "store.db"
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    fix_study_times(app, sid)

    async def run_before(pilot):
        await settle_studies(pilot)
        await open_dialog(pilot, key)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=SNAPSHOT_IDS)
def test_judging_summary_snapshot(snap_compare, tmp_path, loopback_server, size):  # noqa: F811
    """The detail pane after judging, judge errors counted in item-rubric pairs (its summary's counts
    refreshed: the same pairs)."""
    loopback_server.responder = lambda body: "Sure! {score: 3, this is not json"
    path = tmp_path / "store.db"
    sid = seed_study(path, judge_api_base=loopback_server.url)["study_id"]
    app = make_app(path)
    fix_study_times(app, sid)

    async def run_before(pilot):
        await settle_studies(pilot)
        await pilot.press("j")
        work = pilot.app.screen.query_one("#study-work", Static)
        await wait_until(pilot, lambda: "judge errors" in str(work.render()) and pilot.app.screen.judging is None,
                         timeout=120, what="the summary")
        summary, power = (pilot.app.screen.query_one(f"#study-{w}", Static) for w in ("summary", "power"))
        await wait_until(pilot, lambda: "6 item-rubric pairs judged" in str(summary.render())
                         and "computing" not in str(power.render()), what="the refreshed summary")
        await dismiss_notice(pilot, "judged glenda-scoring")  # the worker's Done notice, whenever it comes
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=SNAPSHOT_IDS)
async def test_no_dialog_is_cut(tmp_path, size):
    path = tmp_path / "store.db"
    sid = seed_study(path, pilot_items=True)["study_id"]
    hold_rater(path, sid)   # held: the pilots dialog gets a release button, the packet rater list its longest notice
    app = make_app(path)
    async with app.run_test(size=size) as pilot:
        await settle_studies(pilot)
        for key in DIALOGS:
            await open_dialog(pilot, key)
            assert_dialog_fits(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen", what="the dialog closed")
