"""Issue 24, item 4: a rater's offline scoring packet from the Studies screen: export for a chosen rater to a
chosen file, import it back filled in (scores recorded with source "packet"); an edited packet is refused
and nothing is written."""

from __future__ import annotations

import json

from scoring_seed import seed_study
from study_screen_helpers import wait_until
from textual.widgets import Input

from screens.ask_dialog import AskDialog
from screens.confirm import ChoiceDialog
from screens.launch import make_app
from store import scores as score_rows

SIZE = (140, 40)


async def answer(pilot, text: str) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the question")
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


async def test_a_packet_goes_out_for_a_chosen_rater_and_comes_back_as_scores(tmp_path):
    store = tmp_path / "store.db"
    sid = seed_study(store)["study_id"]
    packet_path = tmp_path / "b.json"
    app = make_app(store)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen", what="Studies")
        app.screen.notify = lambda message, **kw: notes.append(message)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the rater list")
        await pilot.press("2")  # rater-b
        await answer(pilot, str(packet_path))
        await wait_until(pilot, packet_path.exists, what="the packet")
        assert any("for rater-b" in n for n in notes)
        packet = json.loads(packet_path.read_text())
        first = next(iter(packet["answers"].values()))
        first["scores"]["anticipation"]["anticipation"] = 2
        packet_path.write_text(json.dumps(packet))
        edited = tmp_path / "edited.json"
        tampered = json.loads(packet_path.read_text())
        tampered["sealed"]["items"][0]["response"] += " (an added sentence)"
        edited.write_text(json.dumps(tampered))
        await pilot.press("i")
        await answer(pilot, str(edited))
        assert any("packet refused" in n for n in notes)
        assert score_rows.rater_rows(app.db, sid, "rater-b") == []
        await pilot.press("i")
        await answer(pilot, str(packet_path))
        assert any(n.startswith("imported 1 score(s)") for n in notes)
        rows = score_rows.rater_rows(app.db, sid, "rater-b")
        assert [(r["criterion"], r["value"], r["source"]) for r in rows] == [("anticipation", 2, "packet")]
