"""The TUI's blind review pages through the study's pre-registered `[quality] review_sample` verdicts of a
judge (20 when the study names none), as `evaluators review` lists them."""

from __future__ import annotations

import json

from study_screen_helpers import STUDIES_SIZE as SIZE
from study_screen_helpers import open_studies, wait_until
from test_evaluator_panel import scored_study

from screens.launch import make_app
from screens.verdict_review import VerdictReviewScreen
from store import metrics_data as md
from store import open_store
from store.quality import planted_kinds


def pre_register(path, sid: str, size: int) -> None:
    """The study's [quality] with `review_sample = size` (as a study file naming it would give it)."""
    db = open_store(path)
    definition = json.loads(db["studies"].get(sid)["definition"])
    definition["quality"]["review_sample"] = size
    db["studies"].update(sid, {"definition": json.dumps(definition)})
    db.close()


async def pages(path, sid: str) -> int:
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await open_studies(pilot)
        app.push_screen(VerdictReviewScreen(sid, "judge-a"))
        await wait_until(pilot, lambda: isinstance(app.screen, VerdictReviewScreen), what="the review")
        await pilot.pause()
        return len(app.screen.units)


async def test_the_review_pages_the_pre_registered_sample(tmp_path):
    path = tmp_path / "store.db"
    sid = scored_study(path)
    db = open_store(path)
    reviewable = len([v for v in md.current_verdicts(db, sid) if v["item_id"] not in planted_kinds(db, sid)])
    db.close()
    assert 4 < reviewable < 20
    assert await pages(path, sid) == reviewable  # no review_sample: up to 20, here all of them
    pre_register(path, sid, 4)
    assert await pages(path, sid) == 4
