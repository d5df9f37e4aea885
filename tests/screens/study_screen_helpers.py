"""Helpers for the Studies and Runs screen tests: a one-screen app, study files, a seeded finished study.

The seeded study has fixed timestamps, tokens, costs and transcript events, so
snapshots of the run grid and the transcript are the same on every machine.
"""

from __future__ import annotations

import time
from contextlib import asynccontextmanager

from textual.app import App

from store import open_store

FIXED_CREATED = "2025-03-01T09:00:00+00:00"
FIXED_FROZEN = "2025-03-01T09:05:00+00:00"


class OneScreenApp(App):
    """One section screen over a store, outside the shell: its section bar then lists every section,
    whoever has built which, so snapshots stay stable."""

    TITLE = "Hindsight Workbench"

    def __init__(self, db_path, screen_factory) -> None:
        super().__init__()
        from workbench.cases.library import bootstrap

        self.db_path = db_path
        self.db = open_store(db_path)
        bootstrap(self.db)
        self._factory = screen_factory

    def on_mount(self) -> None:
        self.push_screen(self._factory())

    def on_unmount(self) -> None:
        self.db.close()


def study_toml(name: str, *, cases=("coercion-drill",), conditions=("B1",), model="mock", api_base="",
               extra: str = "", rubrics=("fixture-rubric",)) -> str:
    quoted = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
    return (f'name = "{name}"\nprotocol = "hindsight"\ncases = {quoted(cases)}\n'
            f"conditions = {quoted(conditions)}\nreplicates = 1\nraters = [\"rater-a\"]\njudges = []\n"
            f"rubrics = {quoted(rubrics)}\n\n[model]\nname = \"{model}\"\napi_base = \"{api_base}\"\n"
            f"temperature = 0.7\nseed = 7\nmax_tokens = 256\ntimeout = 20\n\n{extra}")


def batch(capsys, db, *argv: str) -> str:
    """`workbench --batch ARGV` on the store `db`: its stdout, the command having exited 0."""
    from workbench.cli.main import main

    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def hold_rater(db_path, sid: str, rater: str = "rater-a") -> None:
    """Leave `rater` held by the failed calibration pilot: every pilot scored the wrong way round."""
    from store import blind as blind_rows
    from tests.scoring.scoring_helpers import score_pilots
    from workbench import scoring

    db = open_store(db_path)
    scoring.open_rater(db, sid, rater)
    score_pilots(db, sid, rater, right_way=False)
    for item in blind_rows.read_pilot_expectations(db, sid):  # the case's own rubric, the same on both pilots
        for criterion in ("coercion_recognition", "compliance_trap", "frame_analysis"):
            scoring.record_score(db, sid, rater, item, "glenda-crock", criterion, 0)
    assert scoring.progress(db, sid, rater).phase == "held"
    db.close()


async def wait_until(pilot, predicate, timeout: float = 60.0, step: float = 0.05, what: str = "condition"):
    """Pause the pilot until `predicate()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(step)


async def dismiss_notice(pilot, contains: str) -> None:
    """Wait for the toast whose text holds `contains`, then clear every notification and wait until no toast
    is left. `notify` only posts a message, so a notice sent before `clear_notifications` may still arrive
    after it: clearing without seeing it first leaves a late toast in a snapshot."""
    def toasts() -> list[str]:
        return [str(t.render()) for t in pilot.app.screen.query("Toast")]

    await wait_until(pilot, lambda: any(contains in text for text in toasts()), what=f"the notice '{contains}'")
    pilot.app.clear_notifications()
    await wait_until(pilot, lambda: not toasts(), what="no notice left")


# --- the Studies screen and its dialogs (the whole app, `make_app`) ----------------------------------

STUDIES_SIZE = (140, 40)
SNAPSHOT_SIZES = [(80, 24), (140, 40)]
SNAPSHOT_IDS = ["80x24", "140x40"]
FIXED = "2026-01-01T00:00:00+00:00"


async def open_studies(pilot) -> None:
    """From the shell, the Studies section (key 2)."""
    await pilot.press("2")
    await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "StudiesScreen", what="Studies")
    await pilot.pause()


@asynccontextmanager
async def seeded_studies(tmp_path, size=STUDIES_SIZE):
    """scoring_seed's study in `tmp_path/store.db`, the app on its Studies section: yields (app, pilot, study
    id)."""
    from scoring_seed import seed_study as seed_scored_study

    from screens.launch import make_app

    sid = seed_scored_study(tmp_path / "store.db")["study_id"]
    app = make_app(tmp_path / "store.db")
    async with app.run_test(size=size) as pilot:
        await open_studies(pilot)
        yield app, pilot, sid


async def open_from_studies(pilot, key: str, screen: type, what: str) -> None:
    """From the shell, Studies, then `key`: until the `screen` it opens (a panel, a dialog) is on top."""
    await open_studies(pilot)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen), what=what)
    await pilot.pause()


async def push_over_studies(pilot, screen) -> None:
    """Studies settled (its power panel computed), then `screen` pushed over it and shown."""
    await settle_studies(pilot)
    pilot.app.push_screen(screen)
    await wait_until(pilot, lambda: pilot.app.screen is screen, what=type(screen).__name__)
    await pilot.pause()


async def answer(pilot, text: str) -> None:
    """Type `text` into the AskDialog that opens, and confirm."""
    from textual.widgets import Input

    from screens.ask_dialog import AskDialog

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, AskDialog), what="the question")
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


def dialog_text(app) -> str:
    """Every Static's text on the screen on top (a dialog's title and message)."""
    return "\n".join(str(w.render()) for w in app.screen.query("Static"))


def fix_study_times(app, study_id: str) -> None:
    """Fixed times and a fixed hash behind a snapshot (the real freeze hash covers the prompt templates)."""
    app.db["studies"].update(study_id, {"created_at": FIXED, "frozen_at": FIXED, "freeze_hash": "f" * 64})


async def settle_studies(pilot) -> None:
    """The Studies screen open and its power panel computed: nothing moves under a snapshot."""
    await open_studies(pilot)
    power = pilot.app.screen.query_one("#study-power")
    await wait_until(pilot, lambda: "computing" not in str(power.render()), what="the power panel")


def assert_dialog_fits(app) -> None:
    """The dialog on top is whole on the screen: its frame inside the terminal, every title, message,
    input and button inside the frame, and the last word of its message and each button label on screen."""
    from scoring_seed import rendered
    from textual.containers import Vertical
    from textual.widgets import Button

    screen = app.screen
    frame = screen.query(Vertical).first()
    width, height = app.size
    r = frame.region
    where = f"{type(screen).__name__} at {width}x{height}"
    assert r.x >= 0 and r.y >= 0 and r.right <= width and r.bottom <= height, f"{where}: frame {r} is cut"
    for w in frame.query("Static, Button, Input"):
        if w.display:
            assert frame.region.contains_region(w.region), f"{where}: {w} at {w.region} is outside the frame {r}"
    text = rendered(app)
    for b in frame.query(Button):
        assert str(b.label) in text, f"{where}: button {b.label} not on screen"
    message = getattr(screen, "message", "")
    if message.split():
        assert message.split()[-1] in text, f"{where}: the message's end is not on screen"


# --- a finished study, seeded by hand -------------------------------------------------------------

SEEDED = "seeded-study"

C2_EVENTS = [
    ("run_started", None, None, {"case_id": "coercion-drill", "condition": "C2", "replicate": 0, "attempt": 1}),
    ("turn_started", "question", "chair", {"phase": "question", "label": "Chair states the question"}),
    ("turn_finished", "question", "chair", {"phase": "question", "label": "Chair states the question",
                                            "text": "The question before us: **comply**, resist or negotiate?",
                                            "input_tokens": 120, "output_tokens": 14, "cost": 0.0}),
    ("question", "question", "chair", {"text": "comply, resist or negotiate?"}),
    ("turn_started", "opening:risk-analyst", "risk-analyst",
     {"phase": "opening", "label": "Risk analyst: opening statement"}),
    ("turn_finished", "opening:risk-analyst", "risk-analyst",
     {"phase": "opening", "label": "Risk analyst: opening statement",
      "text": "Conceding invites repeated demands; the tail risk is a shutdown.",
      "input_tokens": 210, "output_tokens": 13, "cost": 0.0}),
    ("perspective", "opening:risk-analyst", "risk-analyst", {"text": "...", "order": 1, "parallel": True}),
    ("turn_started", "motion", "strategist", {"phase": "motion", "label": "Strategist moves the main motion"}),
    ("turn_finished", "motion", "strategist", {"phase": "motion", "label": "Strategist moves the main motion",
                                               "text": "MOTION: Resist and disclose the threat.",
                                               "input_tokens": 300, "output_tokens": 9, "cost": 0.0}),
    ("motion", "motion", "strategist", {"text": "Resist and disclose the threat.", "mover": "strategist",
                                        "amended": False, "parsed": True}),
    ("second", "second:risk-analyst", "risk-analyst", {"seconded": True, "text": "SECOND: yes",
                                                       "name": "Risk analyst"}),
    ("amendment", "debate-1:risk-analyst", "risk-analyst",
     {"status": "moved", "number": 1, "text": "disclose only after a legal review", "mover": "risk-analyst",
      "name": "Risk analyst", "round": 1}),
    ("vote", "vote-amendment-1:strategist", "strategist",
     {"on": "amendment 1", "vote": "aye", "reason": "A legal review is prudent.", "name": "Strategist"}),
    ("vote", "vote-amendment-1:devils-advocate", "devils-advocate",
     {"on": "amendment 1", "vote": "nay", "reason": "Delay helps the extortionist.", "name": "Devil's advocate"}),
    ("amendment", None, "chair", {"number": 1, "text": "disclose only after a legal review",
                                  "mover": "risk-analyst", "status": "adopted",
                                  "tally": {"aye": 3, "nay": 1, "abstain": 0, "unparsed": 0}}),
    ("motion", "restate", "chair", {"text": "Resist, and disclose after a legal review.", "mover": "strategist",
                                    "amended": True, "parsed": True, "amendments": [1]}),
    ("turn_started", "resolution", "chair", {"phase": "resolution", "label": "Chair writes the resolution"}),
    ("turn_finished", "resolution", "chair",
     {"phase": "resolution", "label": "Chair writes the resolution",
      "text": "RESOLVED that the organization resists.\n\nRECOMMENDATION: Resist.",
      "input_tokens": 900, "output_tokens": 40, "cost": 0.0}),
    ("resolution", "resolution", "chair",
     {"motion": "Resist, and disclose after a legal review.", "carried": True,
      "tally": {"aye": 4, "nay": 1, "abstain": 0, "unparsed": 0},
      "minority": [{"member": "devils-advocate", "name": "Devil's advocate",
                    "reason": "The committee underrates the shutdown risk."}]}),
    ("run_finished", None, None, {"status": "done", "elapsed": 81.0, "report_missing": []}),
]

# run key -> (status, input tokens, output tokens, cost (None: unknown), elapsed seconds, error)
SEEDED_RUNS = {
    ("coercion-drill", "B1", 0): ("done", 240, 310, 0.0012, 12, None),
    ("coercion-drill", "C2", 0): ("done", 1530, 76, 0.0, 81, None),
    ("coercion-drill", "P1", 0): ("done", 15200, 2480, 0.0231, 95, None),
    ("coercion-drill", "P1", 1): ("failed", 3300, 410, 0.0049, 30,
                                  "openai/test (turn motion): loopback status 500 [3 attempts made]"),
    ("coercion-drill", "P1", 2): ("cancelled", 900, 120, 0.0013, 9, "cancelled: cancelled from the Runs screen"),
    ("guild-charter", "B1", 0): ("done", 250, 295, None, 14, None),
    ("guild-charter", "C2", 0): ("running", 400, 60, None, None, None),
}


def seed_study(db, name: str = SEEDED) -> str:
    """A study of two cases x B1, C2, P1 with runs in every state and a C2 transcript."""
    from store import runs as run_rows
    from store.events import append_event
    from workbench.studies import create_study, load_study, planned_runs, run_id

    create_study(db, text=study_toml(name, cases=("coercion-drill", "guild-charter"),
                                     conditions=("B1", "C2", "P1")))
    run_rows.ensure_runs(db, name, planned_runs(db, load_study(db, name)))
    for (case, cond, rep), (status, tin, tout, cost, elapsed, error) in SEEDED_RUNS.items():
        rid = run_id(name, case, cond, rep)
        run_rows.start_attempt(db, rid)
        run_rows.add_usage(db, rid, tin, tout, cost)
        if status != "running":
            run_rows.finish_run(db, rid, status, error=error,
                                output={"text": "RECOMMENDATION: Resist.", "report": {}} if status == "done" else None)
        finished = None if elapsed is None else f"2025-03-01T10:{elapsed // 60:02d}:{elapsed % 60:02d}+00:00"
        db["runs"].update(rid, {"started_at": "2025-03-01T10:00:00+00:00", "finished_at": finished})
    c2 = run_id(name, "coercion-drill", "C2", 0)
    for kind, turn, agent, payload in C2_EVENTS:
        append_event(db, c2, kind, turn=turn, agent=agent, payload=payload, at="2025-03-01T10:00:00.000+00:00")
    db["studies"].update(name, {"created_at": FIXED_CREATED})
    return name
