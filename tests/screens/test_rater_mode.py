"""Rater mode (`workbench --rater NAME --study STUDY`): everything a locked rater can reach, and nothing else.

The study is the blindness test's: every condition's tells in the outputs,
the study's model names, the case notes with the seed's predictions, and
rater B done with a private note. Rater A opens the app locked to the study
and then presses every key a keyboard has that could lead somewhere (digits,
letters, function keys, ctrl+letters, the App's and the screen's bindings),
on the desk and inside each dialog the desk opens, and asks the command
palette for every section by name. After each step the app must still be on
the locked desk (or a dialog of it), and the whole rendered screen plus the
whole text of every widget must pass the same leak check as
test_scoring_blindness.py: no condition, model, run id, timestamp, case note
or other rater (name, score or note).
"""

from __future__ import annotations

import re
import string

import pytest
from scoring_seed import rendered, seed_study
from screen_helpers import picked, settle, type_text
from test_scoring_blindness import CONDITIONS, OTHER_NOTE, leaks, whole_text
from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable

from screens.launch import make_app
from screens.rater_desk import RaterApp, RaterScoringScreen
from screens.sections import SECTIONS
from store import blind as blind_rows
from store import open_store
from workbench import scoring
from screens.launch import main
from workbench.cli.main import build_parser
from workbench.scoring.rater_lock import RaterLock

SIZE = (120, 36)
ME, OTHER = "rater-a", "rater-b"
DIALOGS = {"HelpScreen", "RubricGuide", "NoteDialog", "CommandPalette"}
SECTION_WORDS = re.compile(r"\b(?:Cases|Studies|Runs|Metrics|Settings|go:|cases:)")
DESK_TITLES = {"score: next unscored item", "score: one response or both", "score: show or hide the case",
               "score: whole rubric", "score: help", "score: quit"}

LETTERS = list(string.ascii_lowercase)
KEYS = [*"1234567890", *LETTERS, *[f"f{n}" for n in range(1, 13)],
        "tab", "shift+tab", "escape", "enter", "space", "backspace", "delete", "insert", "home", "end",
        "pageup", "pagedown", "up", "down", "left", "right", "question_mark", "colon", "slash",
        "left_square_bracket", "right_square_bracket", "left_curly_bracket", "right_curly_bracket",
        *[f"ctrl+{c}" for c in LETTERS if c != "q"]]  # ctrl+q quits: pressed last
IN_DIALOG_KEYS = [*"1234567890", "tab", "shift+tab", "f1", "question_mark", "i", "g", "n"]
# (Textual's own commands, theme, keys, screenshot, are absent from the whole list checked first.)
PALETTE_WORDS = ["go", "cases", "runs", "metrics", "studies", "settings", "scoring", "open", "rater", "switch",
                 # the Studies screen's finishing actions (issue 24): none reachable from the desk
                 "judge", "unblind", "export", "packet", "report", "pilots", "adjudicate", "topology"]


@pytest.fixture
def study(tmp_path):
    """Every condition with the calibration pilots; rater B has scored all of it and left a private note."""
    path = tmp_path / "store.db"
    info = seed_study(path, name="glenda-locked", conditions=CONDITIONS, pilot_items=True)
    sid = info["study_id"]
    db = open_store(path)
    try:
        scoring.open_rater(db, sid, OTHER)
        expectations = blind_rows.read_pilot_expectations(db, sid)
        for q in scoring.queue(db, sid, OTHER):  # the pilots first: once scored, the rest opens
            view = scoring.item_view(db, sid, OTHER, q.item_id)
            high = expectations.get(q.item_id, {"direction": "high"})["direction"] == "high"
            for rubric in view.rubrics:
                for criterion in rubric.criteria:
                    scoring.record_score(db, sid, OTHER, q.item_id, rubric.id, criterion.id,
                                         criterion.max if high else criterion.min)
            scoring.record_note(db, sid, OTHER, q.item_id, OTHER_NOTE)
    finally:
        db.close()
    return path, sid, info["run_ids"]


def all_text(app) -> str:
    """The rendered screen, the whole text of every widget on every screen of the stack, every row of
    every table (help scrolls) and every command the palette offers."""
    parts = [rendered(app)] + [whole_text(screen) for screen in app.screen_stack]
    for table in app.screen.query(DataTable):
        parts += [" ".join(str(c) for c in table.get_row_at(k)) for k in range(table.row_count)]
    parts += palette_titles(app)
    return "\n".join(parts)


def palette_titles(app) -> list[str]:
    if not isinstance(app.screen, CommandPalette):
        return []
    hits = app.screen.query_one(CommandList)
    options = [hits.get_option_at_index(k) for k in range(hits.option_count)]
    # a hit, or the palette's own line (e.g. its "no matches" notice while a search settles): both are shown
    return [(o.hit.text if hasattr(o, "hit") else str(o.prompt)) or "" for o in options]


class Walk:
    """Rater A's session: every step is checked for where it left the app and what it shows."""

    def __init__(self, app, pilot, sid: str, run_ids: list[str]) -> None:
        self.app, self.pilot, self.sid, self.run_ids = app, pilot, sid, run_ids
        self.steps = 0

    @property
    def desk(self) -> RaterScoringScreen:
        return self.app.screen_stack[0]

    def check(self, step: str) -> None:
        app = self.app
        self.steps += 1
        assert app.current_mode == "scoring" and app.sections == [], step
        assert isinstance(self.desk, RaterScoringScreen), f"{step}: left the desk for {self.desk!r}"
        top = type(app.screen).__name__
        assert app.screen is self.desk or top in DIALOGS, f"{step}: reached {top}"
        assert all(type(s).__name__ in DIALOGS for s in app.screen_stack[1:]), step
        session = self.desk.session
        assert session is not None and (session.study_id, session.rater) == (self.sid, ME), step
        assert not self.desk.query("#section-bar"), step
        assert picked(self.desk) == [], f"{step}: the study picker was filled"
        text = all_text(app)
        found = leaks(text, self.run_ids)
        assert found == [], f"{step}: {found}"
        assert OTHER not in text, f"{step}: names the other rater"
        assert not SECTION_WORDS.search(text), f"{step}: {SECTION_WORDS.search(text).group(0)!r}"

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        # The desk's actions are synchronous: once every widget has handled its messages, pause(0) repaints
        # the screen; waiting for the process to look idle (pause()) only adds sleeps (issue 15: a fast suite).
        await self.pilot.pause(0)

    async def back_to_desk(self, step: str) -> None:
        for _ in range(4):
            if self.app.screen is self.desk:
                return
            await self.press("escape")
        raise AssertionError(f"{step}: escape does not lead back to the desk ({type(self.app.screen).__name__})")


async def test_every_key_and_palette_command_stays_on_the_locked_desk_and_reveals_nothing(study):
    path, sid, run_ids = study
    app = make_app(path, RaterLock(sid, ME))
    assert isinstance(app, RaterApp)
    async with app.run_test(size=SIZE) as pilot:
        walk = Walk(app, pilot, sid, run_ids)
        await settle(pilot)
        walk.check("on entry")
        # Rater B scored every criterion of the pilots on screen; rater A sees no value at all.
        grid = str(walk.desk.query_one("#criteria-grid").content)
        rows = [line for line in grid.splitlines() if re.search(r"\d–\d", line)]
        assert rows and all(line.split()[-2:] == ["·", "·"] for line in rows), grid

        # Every key the App or the desk binds is among the keys pressed.
        bound = {k.strip() for b in [*type(app).BINDINGS, *walk.desk.BINDINGS] for k in b.key.split(",")}
        bound |= set(walk.desk.active_bindings)
        keys = KEYS + sorted(bound - set(KEYS) - {"ctrl+q"})

        for key in keys:  # on the desk
            await walk.press(key)
            walk.check(f"desk: {key}")
            await walk.back_to_desk(f"desk: {key}")

        for opener in ("question_mark", "r", "j"):  # inside each dialog the desk opens
            for key in IN_DIALOG_KEYS:
                if app.screen is walk.desk:  # the last key closed it (or saved the note): open it again
                    await walk.press(opener)
                    assert app.screen is not walk.desk, f"{opener} opened nothing"
                await walk.press(key)
                walk.check(f"{opener} then {key}")
            await walk.back_to_desk(f"{opener} dialog")

        await walk.press("ctrl+p")  # the palette's whole list: the desk's own commands only
        assert set(palette_titles(app)) == DESK_TITLES
        walk.check("palette")
        await walk.back_to_desk("palette")
        await walk.press("ctrl+p")  # a word that should match does (so the search has run when we look)
        await type_text(pilot, "rubric")
        await settle(pilot, 0.02)
        assert palette_titles(app) == ["score: whole rubric"]
        await walk.press("enter")
        assert type(app.screen).__name__ == "RubricGuide"
        walk.check("palette: rubric, enter")
        await walk.back_to_desk("palette: rubric")
        for word in PALETTE_WORDS:  # asking for a section (or anything else) by name finds nothing
            await walk.press("ctrl+p")
            await type_text(pilot, word)
            await settle(pilot, 0.02)
            titles = palette_titles(app)
            assert all(t in DESK_TITLES for t in titles), f"palette '{word}': {titles}"
            walk.check(f"palette: {word}")
            await walk.press("enter")
            walk.check(f"palette: {word}, enter")
            await walk.back_to_desk(f"palette: {word}")

        assert walk.steps > 140
        await walk.press("ctrl+q")
    assert app.return_value == 0 and app.return_code == 0  # ctrl+q quit the app, nothing else did


async def test_help_lists_only_what_the_rater_can_do(study):
    path, sid, _ = study
    app = make_app(path, RaterLock(sid, ME))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert type(help_screen).__name__ == "HelpScreen"
        assert not help_screen.query("#help-sections") and not help_screen.query("#help-store")
        table = help_screen.query_one("#help-keys", DataTable)
        rows = {str(table.get_row_at(k)[1]) for k in range(table.row_count)}
        assert {"Score", "Note", "Undo", "Skip", "Next", "Previous", "Rubric", "Quit", "Help"} <= rows
        assert "Rater" not in rows and "Back" not in rows  # switching rater and the picker are off
        footnote = str(help_screen.query_one("#help-footnote").content)
        assert "score:" in footnote and "go:" not in footnote and "cases:" not in footnote


async def test_switch_rater_is_off_even_when_called_directly(study):
    path, sid, _ = study
    app = make_app(path, RaterLock(sid, ME))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        desk = app.screen
        session = desk.session
        feedback = desk.query_one("#desk-feedback")
        desk.action_switch_rater()
        assert "switching rater is turned off" in str(feedback.content)
        assert desk.open_session(sid, OTHER) is False
        assert "only your own scoring" in str(feedback.content)
        app.action_go("metrics")
        app.open_cases(None, "new")
        await settle(pilot)
        assert app.screen is desk and desk.session is session and app.current_mode == "scoring"
        assert picked(desk) == [] and OTHER not in rendered(app)


async def test_an_internal_error_ends_the_app_without_showing_its_local_variables(study, capsys, monkeypatch):
    """Textual prints a crash's traceback with locals; in rater mode it never reaches the terminal."""
    path, sid, _ = study

    def broken(self) -> None:
        sealed = "SEALED-LOCAL-C2"  # stands for a sealed row a core function had in hand  # noqa: F841
        raise RuntimeError("boom")

    monkeypatch.setattr(RaterScoringScreen, "action_toggle_single", broken)
    app = make_app(path, RaterLock(sid, ME))
    with pytest.raises(RuntimeError, match="boom"):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("v")
            await settle(pilot)
    printed = capsys.readouterr()
    assert "SEALED-LOCAL-C2" not in printed.err + printed.out
    assert "SEALED-LOCAL-C2" in app.withheld_errors.getvalue()  # Textual did render it, with the locals
    assert app.return_code == 1 and "internal error" in app.exit_note() and "SEALED" not in app.exit_note()


# -- refusals --------------------------------------------------------------------------------------

def test_rater_mode_with_batch_is_a_usage_error(study, capsys):
    path, sid, _ = study
    for argv in (["--batch", "--db", str(path), "--rater", ME, "--study", sid, "cases", "list"],
                 ["--db", str(path), "--rater", ME],            # a rater needs a study
                 ["--db", str(path), "--study", sid]):          # and a study a rater
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2, argv
    err = capsys.readouterr().err
    assert "do not go with --batch" in err and "needs both --rater NAME and --study STUDY" in err


def test_a_commands_own_rater_option_is_not_rater_mode():
    args = build_parser().parse_args(["--batch", "packet", "export", "s1", "--rater", ME, "--out", "x.json"])
    assert args.rater == ME and args.tui_rater is None and args.tui_study is None


@pytest.mark.parametrize("rater, study_id, why", [
    ("nobody", None, "'nobody' is not a rater of study"),
    (ME, "no-such-study", "there is no study 'no-such-study'"),
])
def test_an_unknown_rater_or_study_exits_1_with_why(study, capsys, rater, study_id, why):
    path, sid, _ = study
    assert main(["--db", str(path), "--rater", rater, "--study", study_id or sid]) == 1
    err = capsys.readouterr().err
    assert why in err and OTHER not in err  # the study's other raters are not listed


def test_an_unblinded_study_is_refused(study, capsys):
    from workbench.scoring.unblind import unblind

    path, sid, _ = study
    db = open_store(path)
    unblind(db, sid, by="researcher", force=True)
    db.close()
    assert main(["--db", str(path), "--rater", ME, "--study", sid]) == 1
    assert "is unblinded" in capsys.readouterr().err


def test_a_missing_store_is_refused_and_not_created(tmp_path, capsys):
    missing = tmp_path / "typo.db"
    assert main(["--db", str(missing), "--rater", ME, "--study", "s"]) == 1
    assert "no store at" in capsys.readouterr().err and not missing.exists()


async def test_a_study_with_nothing_to_score_ends_the_app_with_code_1_and_why(tmp_path):
    path = tmp_path / "store.db"
    sid = seed_study(path, name="not-run-yet", run=False)["study_id"]
    app = make_app(path, RaterLock(sid, ME))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert app.return_code == 1 and "no finished run" in app.exit_note()


# -- the researcher's app is unchanged ----------------------------------------------------------------

async def test_without_a_lock_the_app_keeps_every_section_and_the_picker(study):
    path, _sid, _ = study
    app = make_app(path)
    assert not isinstance(app, RaterApp)
    assert [s.id for s in app.sections] == [s.id for s in SECTIONS]
    assert {"cases", "studies", "runs", "scoring", "metrics", "settings"} == {s.id for s in SECTIONS}
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert type(app.screen).__name__ == "ScoringScreen" and app.screen.query("#section-bar")
        assert len(picked(app.screen)) == 1  # the picker lists the study
        await pilot.press("question_mark")
        await settle(pilot)
        assert app.screen.query_one("#help-sections", DataTable).row_count == len(SECTIONS)
        await pilot.press("escape", "5")
        await settle(pilot)
        assert app.current_mode == "metrics"
