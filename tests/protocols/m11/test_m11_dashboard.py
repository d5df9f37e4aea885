"""The M11 dashboard, standalone over a store with results: Pilot tests at 80x24 and snapshots."""

from __future__ import annotations

import pytest
from textual.app import App

from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B, SCRIPTS

PHONE = {"id": "phone-case", "title": "Phone case for iPhone 15 Pro", "validated_use": "Protecting a phone",
         "attribute_table": ["iPhone 15 Pro fit", "Shockproof"], "hard_constraints": ["iPhone 15 Pro fit"],
         "reasoning": "Device fit is the mechanism.", "expected": ["iPhone 15 Pro fit"]}


def _report(item: dict, run_index: int, script: dict, *, error: str | None = None) -> dict:
    from workbench.protocols.m11.scoring import band, overall

    if error:
        return {"kind": "likert", "item_id": item["id"], "run_index": run_index, "status": "error",
                "failed_stage": "critic", "error": error, "raw": ["x", "y"], "retries": {"critic": 1}}
    scores = script["scores"]
    weaknesses = [{"id": f"W{i}", "severity": s, "category": c, "issue": issue, "evidence": "e"}
                  for i, (s, c, issue) in enumerate(script["weaknesses"], start=1)]
    rebuttals = [{"id": f"W{i}", "verdict": v, "argument": "as shown"} for i, v in enumerate(script["verdicts"], 1)]
    return {"kind": "likert", "item_id": item["id"], "run_index": run_index, "status": "ok", "scores": scores,
            "overall": overall(scores), "summary": script["summary"], "band": band(overall(scores)),
            "evidence": {c: "e" for c in scores}, "retries": {},
            "debate": {"weaknesses": weaknesses, "rebuttals": rebuttals,
                       "metajudge": [{"sycophantic": False, "reason": "fine"}]}, "sycophancy_unresolved": False}


@pytest.fixture
def results_store(tmp_path):
    """A store with an M11 study whose runs are finished (written through the store, no model)."""
    from store.runs import finish_run, start_attempt
    from workbench.protocols.m11 import PROTOCOL

    db, db_path = m11kit.make_store(tmp_path)
    d = m11kit.definition(items=m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A, EXAMPLE_B, PHONE]))
    study_id = m11kit.save_study(db, d)
    PROTOCOL.load_items(db, study_id, d)
    items = {EXAMPLE_A["id"]: EXAMPLE_A, EXAMPLE_B["id"]: EXAMPLE_B, PHONE["id"]: PHONE}
    for row in m11kit.plan_runs(db, study_id, d):
        start_attempt(db, row["id"])
        item = items[row["case_id"]]
        script = SCRIPTS.get(item["title"])
        if row["condition"] == "binary":
            report = {"kind": "binary", "item_id": item["id"], "status": "ok", "retries": {},
                      "verdict": "FAIL" if item is EXAMPLE_B else "PASS", "reason": "r"}
        else:
            report = _report(item, 0, script) if script else _report(item, 0, {}, error="found 2 weakness(es)")
        finish_run(db, row["id"], "done", output={"text": "t", "report": report})
    yield db, study_id
    db.close()


def _app(screen):
    class DashboardApp(App):
        def on_mount(self) -> None:
            self.push_screen(screen)

    return DashboardApp()


async def test_overview_and_tabs_at_80x24(results_store):
    from textual.widgets import Static, TabbedContent

    from screens.m11.dashboard import M11Dashboard

    db, study_id = results_store
    app = _app(M11Dashboard(db, study_id))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        overview = str(screen.query_one("#m11-overview", Static).render())
        # the same numbers as the metrics document: 2 scored, 1 of them passing; binary agrees on both
        assert "50.0% of 2 scored (1 unscored)" in overview
        assert "agreement 1.000" in overview
        assert "PASS        " in overview and " 3.5–4.4 " in overview and " 0.0–2.4 " in overview
        screen.query_one(TabbedContent).active = "m11-tab-likert"
        await pilot.pause()
        likert = str(screen.query_one("#m11-likert", Static).render())
        assert "accuracy" in likert and "3.00" in likert  # (5 + 1) / 2
        screen.query_one(TabbedContent).active = "m11-tab-confidence"
        await pilot.pause()
        conf = str(screen.query_one("#m11-confidence", Static).render())
        assert "Counted errors: critic 1" in conf


async def test_the_sample_browser_shows_input_output_expected_and_the_debate(results_store):
    from textual.widgets import OptionList, Static

    from screens.m11.debate import DebateScreen

    db, study_id = results_store
    app = _app(DebateScreen(db, study_id))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        debate = str(screen.query_one("#m11-debate", Static).render())
        assert "seed-a-earbuds: overall 4.4 PASS" in debate
        options = screen.query_one("#m11-samples", OptionList)
        options.focus()
        await pilot.press("down")
        await pilot.pause()
        debate = str(screen.query_one("#m11-debate", Static).render())
        assert "overall 2.0 FAIL" in debate
        assert "W1 [critical] accuracy: Stainless Steel is MATERIAL" in debate
        assert "NEVER violation: Stainless Steel (material)" in debate
        assert "(none)" in str(screen.query_one("#m11-expected", Static).render())
        await pilot.press("down")
        await pilot.pause()
        assert "counted error at critic" in str(screen.query_one("#m11-debate", Static).render())


def test_snapshot_overview_80x24(snap_compare, results_store):
    from screens.m11.dashboard import M11Dashboard

    db, study_id = results_store
    assert snap_compare(_app(M11Dashboard(db, study_id)), terminal_size=(80, 24))


def test_snapshot_sample_browser_large(snap_compare, results_store):
    from screens.m11.debate import DebateScreen

    db, study_id = results_store

    async def second(pilot) -> None:
        await pilot.pause()
        pilot.app.screen.query_one("#m11-samples").focus()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(_app(DebateScreen(db, study_id)), terminal_size=(140, 44), run_before=second)
