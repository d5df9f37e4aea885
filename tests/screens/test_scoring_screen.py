"""Pilot tests of the Scoring screen: picking who scores, keyboard scoring, undo, notes, skip,
next/previous, calibration pilots first, quitting mid-item and carrying on, and snapshots."""

from __future__ import annotations

import html
import re


import pytest
from scoring_seed import rendered, seed_study
from screen_helpers import choose_in_palette, picked
from textual.widgets import Input

from screens.launch import make_app
from store import blind as blind_rows
from store import open_store
from tests.screens.screen_helpers import one_screen_app
from store import scores as score_rows

SIZE = (120, 36)
SNAP_SIZE = (140, 44)
HIGH = [3, 3, 1, 1, 1]   # anticipation, epistemic humility, three glenda-crock criteria
LOW = [0, 0, 0, 0, 0]


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store.db"


def rows(store, study_id: str, rater: str = "rater-a") -> list[dict]:
    """The scores table as another process would read it (a fresh connection: only committed rows)."""
    db = open_store(store)
    try:
        return score_rows.rater_rows(db, study_id, rater)
    finally:
        db.close()


async def open_scoring(pilot, rater_downs: int = 0) -> None:
    """From the app's first screen to the rater's desk, with keys only."""
    await pilot.press("4")          # the Scoring section
    await pilot.pause()
    await pilot.press(*["down"] * rater_downs, "enter")
    await pilot.pause()


def session(app):
    return app.screen.session


def current(app) -> dict[str, dict[str, int | None]]:
    """label -> {"rubric/criterion": value} for the pair on screen."""
    return {v.label: {f"{r}/{c}": val for r, cs in v.scores.items() for c, val in cs.items()}
            for v in session(app).views}


def guide_text(app) -> str:
    """The focused criterion's anchors and note, whole (the pane may be scrolled)."""
    return str(app.screen.query_one("#anchor-text").content)


# -- who is scoring ------------------------------------------------------------------------------

async def test_the_picker_lists_frozen_studies_and_only_the_chosen_studys_raters(store):
    """Scoring's study picker is the sections' one (screens/widgets/study_picker.py), with the rater list
    below it: choosing a study lists its raters and moves there; escape goes back to the picker."""
    seed_study(store, name="alpha-study", raters=("ann", "bob"))
    seed_study(store, name="beta-study", raters=("cy",))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause()
        studies = app.screen.query_one("#study-select")
        raters = app.screen.query_one("#rater-list")
        assert sorted(picked(app.screen)) == ["alpha-study", "beta-study"]
        assert "alpha-study (hindsight, frozen)" in str(studies._options)  # the look of Runs' and Metrics'
        shown = studies.value
        assert [raters.get_option_at_index(k).id for k in range(raters.option_count)] == \
            {"alpha-study": ["ann", "bob"], "beta-study": ["cy"]}[shown]
        assert app.focused is studies  # two studies: choose the study first
        other = "alpha-study" if shown == "beta-study" else "beta-study"
        await pilot.press("enter", "down" if picked(app.screen).index(other) else "up", "enter")
        await pilot.pause()
        assert studies.value == other
        assert [raters.get_option_at_index(k).id for k in range(raters.option_count)] == \
            {"alpha-study": ["ann", "bob"], "beta-study": ["cy"]}[other]
        assert app.focused is raters
        await pilot.press("escape")
        assert app.focused is studies
        await pilot.press("tab", "enter")
        await pilot.pause()
        rater = {"alpha-study": "ann", "beta-study": "cy"}[other]
        assert session(app).rater == rater and session(app).study_id == other
        assert f"{rater} · {other} · pair 1 of 1" in rendered(app)
        await pilot.press("i")  # back to choosing
        await pilot.pause()
        assert app.screen.session is None and "Who is scoring?" in rendered(app)
        await pilot.press("ctrl+p")  # the palette opens a study as a rater too
        await pilot.pause()
        await choose_in_palette(pilot, "score: open alpha-study as bob")
        await pilot.pause()
        assert (session(app).study_id, session(app).rater) == ("alpha-study", "bob")


async def test_a_study_that_cannot_be_scored_yet_says_why_in_the_picker(store):
    seed_study(store, name="not-run-yet", run=False)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        assert app.screen.session is None
        text = rendered(app)
        assert "Cannot open scoring for rater-a" in text and "no finished run" in text


async def test_at_80x24_the_desk_line_keeps_pair_n_of_m_whole(store):
    """Issue 15: the progress bar gives way under 100 columns; "pair N of M" is never cut."""
    seed_study(store)
    app = make_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_scoring(pilot)
        where = app.screen.query_one("#desk-where")
        text = str(where.render())
        assert "pair 1 of 1" in text
        assert where.size.width >= len(text)
        assert app.screen.query_one("#desk-count").size.width >= len("0/2 scored")


async def test_at_80x24_the_desk_reads_twelve_lines_keeps_its_keys_and_folds_the_anchors(store):
    """Issue 33, item 6: at 80x24 a response shows at least 12 lines, the footer keeps the keys a rater needs
    (score, note, undo, next, case, rubric, rater, leave), the focused criterion stays in the grid's view as
    the cursor moves, and the anchors fold into r's guide, where every one is whole; at 140x40 they stay
    beside the grid."""
    from textual.widgets import Footer

    from screens.scoring_parts import RubricGuide

    seed_study(store)
    app = make_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_scoring(pilot)
        await pilot.pause(0.2)
        response = app.screen.query_one("#response-0")
        assert response.content_region.height >= 12, response.content_region
        footer = app.screen.query_one(Footer)
        edge = footer.query_one(".pinned-keys").region.x  # Quit, Help and the palette key, docked right
        shown = {k.action.split("(")[0] for k in footer.query("FooterKey") if k.region.right <= edge and k.region.width}
        assert {"score", "note", "undo", "next_pair", "toggle_context", "rubric_guide", "switch_rater"} <= shown, shown
        assert "help" in {k.action for k in footer.query_one(".pinned-keys").query("FooterKey")}
        assert "Esc leave the desk" in str(app.screen.query_one("#section-bar").render())  # Esc: named above
        assert not app.screen.query_one("#anchor-guide").display  # folded at 80 columns
        for _ in range(4):  # down to the last criterion: the compact grid's window moves along (issue 43)
            await pilot.press("down")
        await pilot.pause()
        focused = [r for r in str(app.screen.query_one("#criteria-grid").content).splitlines() if r.startswith("▸")]
        assert len(focused) == 1 and app.screen.session.focused_cell.criterion_name in focused[0], focused
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RubricGuide)
        cell = app.screen_stack[-2].session.focused_cell
        rubric = next(r for r in app.screen_stack[-2].session.view.rubrics if r.id == cell.rubric_id)
        criterion = next(c for c in rubric.criteria if c.id == cell.criterion_id)
        svg = html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")
        words = " ".join(svg.split())
        for anchor in criterion.anchors:  # the focused criterion's anchors, on screen at 80 columns
            assert " ".join(anchor.text.split()[:4]) in words, anchor.text
    app = make_app(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_scoring(pilot)
        assert app.screen.query_one("#anchor-guide").display


# -- scoring with the keyboard -------------------------------------------------------------------

async def test_a_rater_scores_a_two_item_study_with_the_keyboard_only_and_undoes_a_score(store):
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        assert [v.label for v in s.views] == ["Response Alpha", "Response Beta"]
        assert (s.response, s.cell) == (0, 0)
        assert "0/2 scored" in rendered(app)
        await pilot.press("2", "3", "1", "0", "1")  # Alpha, criterion by criterion
        assert (s.response, s.cell) == (1, 0)        # on to Beta's first criterion
        await pilot.press("1", "2", "0", "1", "1")
        await pilot.pause()
        alpha, beta = (v.item_id for v in s.views)
        stored = rows(store, sid)
        expected = [(alpha, v, "score", "tui") for v in (2, 3, 1, 0, 1)]
        expected += [(beta, v, "score", "tui") for v in (1, 2, 0, 1, 1)]
        assert [(r["item_id"], r["value"], r["action"], r["source"]) for r in stored] == expected
        assert "2/2 scored" in rendered(app)
        assert "every item is scored" in rendered(app)

        await pilot.press("u")  # undo the last score: Beta's frame analysis
        await pilot.pause()
        assert (s.response, s.focused_cell.criterion_id) == (1, "frame_analysis")
        assert current(app)["Response Beta"]["glenda-crock/frame_analysis"] is None
        assert "1/2 scored" in rendered(app)
        assert "undone: Response Beta · Frame analysis is back to —" in rendered(app)
        last = rows(store, sid)[-1]
        assert (last["action"], last["value"], last["item_id"]) == ("undo", None, beta)

        await pilot.press("0")  # score it again
        await pilot.pause()
        assert current(app)["Response Beta"]["glenda-crock/frame_analysis"] == 0
        assert [r["action"] for r in rows(store, sid)].count("score") == 11


async def test_keys_move_the_focus_and_an_out_of_range_number_writes_nothing(store):
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        await pilot.press("down", "down")
        assert s.focused_cell.criterion_id == "coercion_recognition"
        await pilot.press("3")  # coercion recognition is 0-1
        await pilot.pause()
        assert rows(store, sid) == []
        assert "not saved: Coercion recognition takes a score from 0 to 1" in rendered(app)
        await pilot.press("right")
        assert (s.response, s.focused_cell.criterion_id) == (1, "coercion_recognition")
        await pilot.press("up")
        assert s.focused_cell.criterion_id == "calibration"
        await pilot.pause()
        guide = guide_text(app)  # Epistemic Humility's two steps, in order, above its anchors
        assert guide.index("Step 1. List the confidence claims.") < guide.index("Step 2. Score calibration.") \
            < guide.index("0 Confidently wrong")
        await pilot.press("tab", "tab", "tab", "tab")  # past Beta's last criterion round to Alpha's first
        assert (s.response, s.cell) == (0, 0)
        await pilot.press("shift+tab")
        assert (s.response, s.cell) == (1, 4)
        await pilot.press("left", "1")
        await pilot.pause()
        stored = rows(store, sid)
        assert [(r["item_id"], r["criterion"], r["value"]) for r in stored] == \
            [(s.views[0].item_id, "frame_analysis", 1)]


async def test_quit_mid_item_then_reopen_and_continue_where_you_were(store):
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        alpha = session(app).views[0].item_id
        await pilot.press("2", "1")
        await pilot.pause()
        # Already committed: another connection (another process, or the store after a crash) sees them.
        assert [(r["item_id"], r["value"]) for r in rows(store, sid)] == [(alpha, 2), (alpha, 1)]
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0

    again = make_app(store)
    async with again.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(again)
        assert s.views[0].item_id == alpha
        assert (s.response, s.focused_cell.criterion_id) == (0, "coercion_recognition")  # the first open cell
        assert current(again)["Response Alpha"] == {
            "anticipation/anticipation": 2, "epistemic-humility/calibration": 1,
            "glenda-crock/coercion_recognition": None, "glenda-crock/compliance_trap": None,
            "glenda-crock/frame_analysis": None}
        await pilot.press("1", "1", "0")
        await pilot.pause()
        assert s.response == 1 and "1/2 scored" in rendered(again)
    # closed without quitting (a dropped session): nothing lost either
    stored = rows(store, sid)
    assert [r["value"] for r in stored] == [2, 1, 1, 1, 0] and all(r["item_id"] == alpha for r in stored)


async def note_on_alphas_anticipation(pilot, store, sid: str, alpha: str, text: str) -> None:
    """`j`, the note dialog named for Alpha's Anticipation, `text`, enter: the note is stored at once."""
    await pilot.press("j")
    await pilot.pause()
    assert type(pilot.app.screen).__name__ == "NoteDialog"
    assert "Justification · Response Alpha · Anticipation › Anticipation" in rendered(pilot.app)
    await pilot.press(*text)
    await pilot.press("enter")
    await pilot.pause()
    note = rows(store, sid)[-1]
    assert (note["action"], note["note"], note["item_id"], note["criterion"]) == ("note", text, alpha, "anticipation")


async def test_notes_are_saved_at_once_escape_keeps_the_old_one_and_quitting_saves_a_draft(store):
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        alpha = session(app).views[0].item_id
        await note_on_alphas_anticipation(pilot, store, sid, alpha, "quotes smallest")
        assert "Your note: quotes smallest" in guide_text(app)
        assert "·✎" in rendered(app)  # the grid marks the noted cell

        await pilot.press("j")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "quotes smallest"
        await pilot.press("x", "escape")
        await pilot.pause()
        assert len(rows(store, sid)) == 1

        await pilot.press("down", "j")
        await pilot.pause()
        await pilot.press(*"half typed")
        await pilot.press("ctrl+q")  # quitting with a note open saves it
        await pilot.pause()
    assert app.return_code == 0
    last = rows(store, sid)[-1]
    assert (last["note"], last["criterion"]) == ("half typed", "calibration")


async def test_skip_next_previous_one_response_and_hiding_the_case(store):
    sid = seed_study(store, conditions=("B1", "B2", "B3", "C1"))["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        first = [v.item_id for v in s.views]
        assert s.unit_number == 1 and len(s.units) == 2
        await pilot.press("s")  # skip the pair: on to the next unscored one
        await pilot.pause()
        assert s.unit_number == 2 and "skipped: it comes round again at the end" in rendered(app)
        assert [r["action"] for r in rows(store, sid)] == ["skip", "skip"]
        assert [v.label for v in s.views] == ["Response Gamma", "Response Delta"]
        await pilot.press("n")
        assert "this is your last pair" in rendered(app)
        await pilot.press("p")
        await pilot.pause()
        assert [v.item_id for v in s.views] == first
        assert "pair 1 of 2" in rendered(app)
        assert "skipped" in rendered(app)

        await pilot.press("v")  # one response at a time
        await pilot.pause()
        assert app.screen.query_one("#response-1").display is False
        assert "Response Alpha" in rendered(app) and "Response Beta" not in rendered(app)
        await pilot.press("right")
        await pilot.pause()
        assert app.screen.query_one("#response-0").display is False
        assert "Response Beta" in rendered(app) and "Response Alpha" not in rendered(app)
        await pilot.press("v", "c")
        await pilot.pause()
        assert "Scenario" not in rendered(app) and "Response Alpha" in rendered(app)
        await pilot.press("c", "r")
        await pilot.pause()
        assert type(app.screen).__name__ == "RubricGuide"
        await pilot.press("escape")
        await pilot.pause()
        assert "Scenario" in rendered(app)


async def test_scores_written_elsewhere_show_on_return_and_g_finds_the_next_unscored(store):
    from workbench import scoring

    sid = seed_study(store, conditions=("B1", "B2", "B3", "C1"))["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        await pilot.press("n")
        await pilot.pause()
        assert s.unit_number == 2
        await pilot.press("g")  # back to where the next unscored item is
        assert s.unit_number == 1
        # The same rater scores the first item somewhere else (another terminal, a packet import) ...
        other = open_store(store)
        first = s.views[0]
        for rubric in first.rubrics:
            for criterion in rubric.criteria:
                scoring.record_score(other, sid, "rater-a", first.item_id, rubric.id, criterion.id, 1,
                                     source="packet")
        other.close()
        await app.run_action("go('settings')")  # ... and after a look at another section (on the desk,
        await pilot.pause()                     # number keys score: sections are reached by the palette)
        await pilot.press("4")
        await pilot.pause()
        assert current(app)["Response Alpha"]["anticipation/anticipation"] == 1
        assert "1/4 scored" in rendered(app)


async def test_calibration_pilots_come_first_and_the_rest_open_once_they_go_the_right_way(store):
    sid = seed_study(store, pilot_items=True)["study_id"]
    db = open_store(store)
    expectations = blind_rows.read_pilot_expectations(db, sid)  # the test peeks at the sealed key
    db.close()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        assert set(v.item_id for v in s.views) == set(expectations)
        assert "Calibration: score the two calibration items first" in rendered(app)
        await pilot.press("n")
        assert set(v.item_id for v in s.views) == set(expectations)  # the rest wait
        assert "the rest wait for calibration" in rendered(app)
        # Score them the wrong way round: held, with the core's reason.
        for view in list(s.views):
            await pilot.press(*[str(v) for v in (LOW if expectations[view.item_id]["direction"] == "high" else HIGH)])
        await pilot.pause()
        assert s.phase == "held" and "Held: calibration not passed" in rendered(app)
        await pilot.press("n")
        assert set(v.item_id for v in s.views) == set(expectations)
        # Re-score the right way: released.
        for k, view in enumerate(list(s.views)):
            s.response, s.cell = k, 0
            await pilot.press(*[str(v) for v in (HIGH if expectations[view.item_id]["direction"] == "high" else LOW)])
        await pilot.pause()
        assert s.phase == "scoring" and "Calibration:" not in rendered(app)
        await pilot.press("n")
        await pilot.pause()
        assert s.unit_number == 2 and not set(v.item_id for v in s.views) & set(expectations)
        assert [v.label for v in s.views] == ["Response Gamma", "Response Delta"]
        assert "2/4 scored" in rendered(app)


async def test_an_unblinded_study_is_read_only(store):
    from workbench.scoring.unblind import unblind

    sid = seed_study(store)["study_id"]
    db = open_store(store)
    unblind(db, sid, by="researcher", force=True)
    db.close()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        assert "scoring is closed" in rendered(app)
        await pilot.press("2")
        await pilot.pause()
        assert "not saved" in rendered(app)
        assert rows(store, sid) == []


def test_every_binding_has_an_id_and_a_description():
    from screens.note_dialog import NoteDialog
    from screens.scoring import ScoringScreen
    from screens.scoring_parts import RubricGuide

    for cls in (ScoringScreen, NoteDialog, RubricGuide):
        ids = [b.id for b in cls.BINDINGS]
        assert all(ids) and len(set(ids)) == len(ids), cls
        assert all(b.description and b.tooltip for b in cls.BINDINGS), cls


# -- snapshots -----------------------------------------------------------------------------------

def _scoringscreen():
    from screens.scoring import ScoringScreen

    return ScoringScreen()


ScoringOnlyApp = one_screen_app(_scoringscreen)


def _snap_app(tmp_path) -> ScoringOnlyApp:
    path = tmp_path / "store.db"
    seed_study(path)
    return ScoringOnlyApp(path)


def test_snapshot_choosing_who_scores(snap_compare, tmp_path):
    assert snap_compare(_snap_app(tmp_path), terminal_size=SNAP_SIZE)


def test_snapshot_scoring_a_pair(snap_compare, tmp_path):
    assert snap_compare(_snap_app(tmp_path), press=["enter", "2", "3", "1", "down"], terminal_size=SNAP_SIZE)


def test_snapshot_the_note_dialog(snap_compare, tmp_path):
    assert snap_compare(_snap_app(tmp_path), press=["enter", "right", "j", *"quotes it"], terminal_size=SNAP_SIZE)


def test_snapshot_scoring_a_pair_at_80x24(snap_compare, tmp_path):
    """Issue 15: at 80x24 the desk keeps "pair N of M" and the scores whole."""
    assert snap_compare(_snap_app(tmp_path), press=["enter", "2", "3", "1", "down"], terminal_size=(80, 24))


async def test_a_note_right_after_a_score_is_the_scored_criterions(store):
    """Issue 43 item 5: a score moves the focus on, so `j` pressed next used to open the note of the criterion
    not yet scored. It is the scored criterion's (focused and named while it is written); then the focus
    goes on to where the score had moved it."""
    sid = seed_study(store)["study_id"]
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_scoring(pilot)
        s = session(app)
        alpha = s.views[0].item_id
        await pilot.press("2")  # Anticipation scored; the focus moves to Epistemic humility
        await pilot.pause()
        moved = (s.response, s.cell)
        assert s.focused_cell.criterion_id == "calibration"
        await note_on_alphas_anticipation(pilot, store, sid, alpha, "names the trap")
        assert (s.response, s.cell) == moved  # on to the next criterion again
        await pilot.press("j")  # a second `j`: the focused criterion's, as ever
        await pilot.pause()
        assert "Justification · Response Alpha · Epistemic Humility" in rendered(app)
