"""Issue 24, item 4: a rater's offline scoring packet from the Studies screen: export for a chosen rater to a
chosen file, import it back filled in (scores recorded with source "packet"); an edited packet is refused
and nothing is written."""

from __future__ import annotations

import json

from scoring_seed import seed_study
from study_screen_helpers import STUDIES_SIZE as SIZE
from study_screen_helpers import answer, open_studies, seeded_studies, wait_until

from screens.confirm import ChoiceDialog
from screens.launch import make_app
from store import scores as score_rows
from tests.scoring.scoring_helpers import fill_packet_pilots


async def test_a_packet_goes_out_for_a_chosen_rater_and_comes_back_as_scores(tmp_path):
    packet_path = tmp_path / "b.json"
    notes: list[str] = []
    async with seeded_studies(tmp_path) as (app, pilot, sid):
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


async def test_a_held_raters_packet_dialogs_say_so_and_how_to_release(tmp_path):
    """Issue 24 item 7: after a failed calibration pilot, importing the rater's packet and exporting the next
    one say the rater is held and name the release; the rater list marks them."""
    from textual.widgets import Button, Static

    from store import blind as blind_rows
    from store import open_store
    from workbench.scoring.packets import export_packet

    store = tmp_path / "store.db"
    sid = seed_study(store, pilot_items=True)["study_id"]
    db = open_store(store)
    first = tmp_path / "first.json"
    export_packet(db, sid, "rater-a", first)
    expectations = blind_rows.read_pilot_expectations(db, sid)
    db.close()
    packet = json.loads(first.read_text())
    fill_packet_pilots(packet, expectations, right_way=False)
    first.write_text(json.dumps(packet))
    again = tmp_path / "again.json"
    app = make_app(store)
    notes: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        await open_studies(pilot)
        app.screen.notify = lambda message, **kw: notes.append((message, kw.get("severity", "information")))
        await pilot.press("i")
        await answer(pilot, str(first))
        (imported, severity), = notes
        assert imported.startswith("imported ") and "rater-a is HELD by the failed calibration pilot" in imported
        assert f"workbench --batch pilots {sid} --release rater-a" in imported and severity == "warning"
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the rater list")
        await pilot.pause()
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels[:2] == ["rater-a (held) (1)", "rater-b (2)"]
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "rater-a is HELD" in text and "--release rater-a" in text
        await pilot.press("1")
        await answer(pilot, str(again))
        await wait_until(pilot, lambda: len(notes) == 2, what="the export's note")
        exported, severity = notes[1]
        assert exported.startswith("wrote 2 item(s) for rater-a") and "is HELD" in exported and severity == "warning"
    assert len(json.loads(again.read_text())["sealed"]["items"]) == 2
