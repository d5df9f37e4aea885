"""Blindness of the Scoring screen: render every state a rater can reach and look for leaks.

The study's final outputs carry every condition's tells and the study's model
name; the case's notes hold the seed's predictions per condition; the other
rater has scored everything with extreme values and a private note. Rater A
then walks the screen with the keyboard: the rater picker, every pair (both
responses, one at a time, the note dialog), the whole rubric of every rubric,
and help. Each state's rendered screen, and the whole text of every widget on
it (scrolled-off parts included), must hold no condition id or name, model
name, run id, timestamp, sealed-key word, case note or other rater's score.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from scoring_seed import JUDGE_MODEL, STUDY_MODEL, rendered, seed_study
from textual.widgets import Static

from screens.launch import make_app
from store import blind as blind_rows
from store import open_store
from workbench import scoring

SIZE = (120, 36)
CONDITIONS = ("B1", "B2", "B3", "C1", "C2", "C3", "P1")
CONDITION_ID = re.compile(r"\b(?:B1|B2|B3|C1|C2|C3|P1)\b")
# Condition names and the machinery each condition leaves in its text (whole words, any case).
CONDITION_WORDS = [
    "committee", "hub-and-spoke", "chain-of-thought", "chain of thought", "multi-perspective", "single prompt",
    "peer-agent", "deliberated choice", "fan-out", "respondents?", "coordinator", "robert's rules", "resolved",
    "motion", "seconded", "4-1", "5-0", "in favour", "perspective 1", "panel members", "step[- ]by[- ]step",
]
MODEL_WORDS = [STUDY_MODEL, STUDY_MODEL.split("/")[-1], JUDGE_MODEL, JUDGE_MODEL.split("/")[-1], "gpt-4o",
               "openai", "anthropic", "claude", "mock model"]
SEALED_WORDS = ["pilot_expectation", "scrub_log", "sealed_at", "run_id", "blind_key",
                # gold and attention items (issue 32) carry no mark, and no quality figure reaches the desk
                "gold", "planted", "expected", "outcome:", "quality", "exclude", "straight-lin"]
# the study plants gold and attention items among the real ones
QUALITY = '\n[quality]\ngold_rate = 0.5\nattention_rate = 0.3\nexclude_if = ["gold_exact < 0.7"]\n'
CASE_NOTES = ["Pre-registered predictions", "kept here for the researcher", "Research needed",
              "How the five selection criteria read"]
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
OTHER_NOTE = "RATER-B-PRIVATE-7731"
HIGH, LOW = [3, 3, 1, 1, 1], [0, 0, 0, 0, 0]


def leaks(text: str, run_ids: list[str]) -> list[str]:
    """Everything in `text` a rater must not see (empty: clean)."""
    found = [m.group(0) for m in CONDITION_ID.finditer(text)]
    lowered = text.lower()
    found += [w for w in CONDITION_WORDS if re.search(rf"(?<![\w-]){w}(?![\w-])", lowered)]
    found += [w for w in MODEL_WORDS + SEALED_WORDS + CASE_NOTES + run_ids if w.lower() in lowered]
    found += TIMESTAMP.findall(text)
    if OTHER_NOTE in text:
        found.append(OTHER_NOTE)
    return found


def whole_text(screen) -> str:
    """The full content of every Static on `screen` (not only the part scrolled into view)."""
    console = Console(file=io.StringIO(), width=200, record=True, color_system=None)
    for widget in screen.query(Static):
        content = widget.content
        console.print(content if not isinstance(content, str) else content, markup=False)
    return console.export_text()


@pytest.fixture
def study(tmp_path):
    """Every condition, the calibration pilots, and rater B done with 3s (1s) everywhere and a note."""
    path = tmp_path / "store.db"
    info = seed_study(path, name="glenda-blind", conditions=CONDITIONS, pilot_items=True, extra=QUALITY)
    sid = info["study_id"]
    db = open_store(path)
    scoring.open_rater(db, sid, "rater-b")
    expectations = blind_rows.read_pilot_expectations(db, sid)
    for q in scoring.queue(db, sid, "rater-b"):  # the pilots come first: once scored, the rest opens
        view = scoring.item_view(db, sid, "rater-b", q.item_id)
        high = expectations.get(q.item_id, {"direction": "high"})["direction"] == "high"
        for rubric in view.rubrics:
            for criterion in rubric.criteria:
                value = criterion.max if high else criterion.min
                scoring.record_score(db, sid, "rater-b", q.item_id, rubric.id, criterion.id, value)
        scoring.record_note(db, sid, "rater-b", q.item_id, OTHER_NOTE)
    items = {i["id"]: i["text"] for i in blind_rows.blind_items(db, sid)}
    db.close()
    return path, sid, info["run_ids"], expectations, items


async def walk(app, expectations) -> list[tuple[str, str]]:
    """Rater A's tour of the screen; returns (state, text) for every state reached."""
    seen: list[tuple[str, str]] = []

    def look(state: str, *, screen: bool = True) -> None:
        """The whole text of every widget; with `screen`, the rendered screen too (titles, lists,
        inputs, header and footer) — that export is slow, so once per kind of state."""
        if screen:
            seen.append((state, rendered(app)))
        seen.append((f"{state} (whole widgets)", whole_text(app.screen)))

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause()
        look("rater picker")
        await pilot.press("enter")
        await pilot.pause()
        session = app.screen.session
        look("calibration pair")
        # Rater B scored every criterion of these two; rater A has not: A's grid shows no value at all.
        grid = str(app.screen.query_one("#criteria-grid").content)
        rows = [line for line in grid.splitlines() if re.search(r"\d–\d", line)]
        assert len(rows) == 5 and all(line.split()[-2:] == ["·", "·"] for line in rows), grid
        await pilot.press("question_mark")
        await pilot.pause()
        look("help")
        await pilot.press("escape")
        for k, rubric in enumerate(session.view.rubrics):  # the whole text of every rubric
            session.cell = next(j for j, c in enumerate(session.cells) if c.rubric_id == rubric.id)
            await pilot.press("r")
            await pilot.pause()
            look(f"rubric guide {rubric.id}", screen=k == 0)
            await pilot.press("escape")
        session.response, session.cell = 0, 0
        for view in list(session.views):  # the pilots, the expected way round: the rest opens
            values = HIGH if expectations[view.item_id]["direction"] == "high" else LOW
            await pilot.press(*[str(v) for v in values])
        await pilot.pause()
        assert session.phase == "scoring"
        while True:  # every pair: both responses, one alone, the note dialog
            await pilot.pause()
            look(f"pair {session.unit_number}")
            first = session.unit_number == 1
            await pilot.press("v", "right")
            await pilot.pause()
            look(f"pair {session.unit_number}, one response", screen=first)
            await pilot.press("v", "j")
            await pilot.pause()
            look(f"pair {session.unit_number}, note dialog", screen=first)
            await pilot.press("escape")
            before = session.unit_number
            await pilot.press("n")
            if session.unit_number == before:
                break
        seen.append(("visited", f"{before} of {len(session.units)} pairs"))
    return seen


async def test_no_state_of_the_scoring_screen_reveals_a_condition_model_run_time_or_other_rater(study):
    """Also: rater B's scores never show in rater A's grid (checked during the walk)."""
    path, _sid, run_ids, expectations, items = study
    seen = await walk(make_app(path), expectations)
    # 9 outputs (P1 is 3 runs), 2 pilots, 2 gold items (the one case's two) and 3 attention items (0.3 x 9)
    assert seen[-1] == ("visited", "8 of 8 pairs")
    for state, text in seen:
        assert leaks(text, run_ids) == [], f"{state}: {leaks(text, run_ids)}"
    # The walk saw every response (so the check covered them all), each scrubbed of its tells.
    everything = "\n".join(text for _, text in seen)
    flat = " ".join(everything.split())
    for text in items.values():
        assert " ".join(text.split())[:60] in flat


def test_the_check_catches_what_it_looks_for():
    run_ids = ["glenda-blind/glenda-crock/C2/0"]
    assert leaks("Response Alpha · Anticipation", run_ids) == []
    for planted in ("the committee voted", "as C2 decided", "scored by gpt-4o-mini", "at 2026-01-02 10:11",
                    f"a note: {OTHER_NOTE}", "run glenda-blind/glenda-crock/C2/0", "Respondent 3 said",
                    "Pre-registered predictions (seed 000)"):
        assert leaks(planted, run_ids), planted
