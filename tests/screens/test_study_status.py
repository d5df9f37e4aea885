"""Issue 24, item 4: a study's status is defined once (store.studies.study_status) and every place says the
same: `study list`, `study show`, the Studies screen (its list and its detail pane), Metrics (its study
choice and status line) and the report's heading, before and after unblinding."""

from __future__ import annotations

import json

from scoring_seed import rendered, seed_study
from study_screen_helpers import batch, wait_until
from textual.widgets import Select, Static

from screens.launch import make_app
from store import open_store
from store.studies import status_text, study_status
from workbench.scoring.unblind import unblind

SIZE = (140, 40)


def the_four_places(capsys, store, sid, tmp_path) -> dict[str, str]:
    """What each place says the status is (the line or cell that carries it)."""
    listed = next(line for line in batch(capsys, store, "study", "list").splitlines() if line.startswith(sid))
    shown = batch(capsys, store, "study", "show", sid).splitlines()[0]
    listed_json = json.loads(batch(capsys, store, "--json", "study", "list"))["studies"][0]
    report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.md"
    batch(capsys, store, "report", sid, "--out", str(report), "--no-dq")
    heading = next(line for line in report.read_text().splitlines() if line.startswith("- Status:"))
    return {"study list": listed.split("  ")[2], "study list --json": listed_json["status_text"],
            "study show": shown.split("status ", 1)[1], "report": heading.removeprefix("- Status: ")}


async def screens_say(store, sid) -> dict[str, str]:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen", what="Studies")
        await pilot.pause()
        table = app.screen.query_one("#study-table")
        cell = str(table.get_row(sid)[1])
        detail = str(app.screen.query_one("#study-summary", Static).render()).splitlines()[0]
        await pilot.press("5")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "MetricsScreen", what="Metrics")
        select = app.screen.query_one("#study-select", Select)
        await wait_until(pilot, lambda: select.value == sid, what="the study choice")
        choice = next(line for line in rendered(app).splitlines() if f"{sid} (hindsight, " in line)
        rest = choice.split(f"{sid} (hindsight, ", 1)[1]
        label = rest[:rest.rindex(")")]  # the choice's closing parenthesis
        status = app.screen.query_one("#metrics-status", Static)
        # the panels are on screen once `shown` names the study ("Computing <study> ..." names it before)
        await wait_until(pilot, lambda: app.screen.shown == sid, timeout=60, what="the study's panels")
        line = str(status.render())
    return {"Studies list": cell, "Studies detail": detail.split("status ", 1)[1],
            "Metrics choice": label,
            "Metrics status": line.removeprefix(f"{sid}: ")}


def test_the_one_definition():
    assert study_status({}) == "draft"
    assert study_status({"frozen_at": "t"}) == "frozen"
    assert study_status({"frozen_at": "t", "unblinded_at": "u"}) == "unblinded"
    assert status_text({"frozen_at": "t", "unblinded_at": "u", "unblind_forced": 1}) == "unblinded (forced)"
    assert status_text({"frozen_at": "t", "unblinded_at": None, "unblind_forced": 0}) == "frozen"


async def test_every_place_says_frozen_then_unblinded(tmp_path, capsys):
    store = tmp_path / "store.db"
    sid = seed_study(store)["study_id"]
    out = tmp_path / "reports"
    out.mkdir()
    for expected in ("frozen", "unblinded (forced)"):
        places = {**the_four_places(capsys, store, sid, out), **await screens_say(store, sid)}
        assert all(said.startswith(expected) for said in places.values()), places
        if expected == "frozen":  # nothing says unblinded before the key is opened
            assert not any("unblinded" in said.split(";")[0] for said in places.values()), places
            db = open_store(store)
            try:
                unblind(db, sid, by="tester", force=True, reason="rater-b left")
            finally:
                db.close()
    assert "by tester" in places["report"] and "by tester" in places["Metrics status"]
