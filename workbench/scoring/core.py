"""The scoring core: everything a rater does, one committed row per action.

The keyboard scoring screen and rater packets both go through here. Every
function takes the store, the study id and the rater's name; every action is
written and committed before the function returns (nothing typed is lost on a
crash or a dropped SSH session), and is refused with a `ScoringError` that
says why when it cannot apply. A rater only ever reads their own rows.

A `RaterDesk` is one rater's view of one study: the study's context (its
definition, frozen rubrics and cases) is read once, and the rater's queue and
rows are re-read before every action (a packet import or another terminal may
have written). The screen keeps one desk for a sitting; the module functions
open one per call.
"""

from __future__ import annotations

import sqlite_utils

from store import blind as blind_rows
from store import scores as score_rows
from store.db import writer
from workbench.blinding.assign import partner_positions
from workbench.blinding.context import BlindingError, StudyContext, load_study
from workbench.rubrics import Rubric
from workbench.pilots.calibration import rater_calibration
from workbench.scoring.state import ITEM_NOTE, RaterState, replay, value_before
from workbench.scoring.views import (
    ItemView,
    Progress,
    QueueEntry,
    RubricView,
    ScoreReceipt,
    position_label,
)

SOURCES = ("tui", "packet", "batch")


class ScoringError(Exception):
    """A scoring action that cannot apply; the message is meant for the rater."""


class ScoringClosed(ScoringError):
    """The study is unblinded: no more scores."""


class CalibrationHold(ScoringError):
    """The rest of the items wait for the calibration pilots."""


# --- one rater's desk --------------------------------------------------------------------------

class RaterDesk:
    """One rater's desk for one study: its context read once, its queue and rows re-read by `refresh`."""

    def __init__(self, db: sqlite_utils.Database, study_id: str, rater: str):
        try:
            self.study: StudyContext = load_study(db, study_id)
        except BlindingError as exc:
            raise ScoringError(str(exc)) from None
        self.db = db
        self.rater = rater
        if rater not in self.study.rater_names:
            raise ScoringError(f"'{rater}' is not a rater of study '{study_id}'")
        self._items: dict[str, dict] = {}
        self.refresh()

    def refresh(self) -> None:
        """Re-read what others may have changed: the unblinding, the rater's queue and rows."""
        row = blind_rows.study_row(self.db, self.study.id)
        if row is not None:
            self.study.unblinded_at = row.get("unblinded_at")
        self.queue = blind_rows.assignments(self.db, self.study.id, self.rater)
        self.by_item = {q["item_id"]: q for q in self.queue}
        self.partners = partner_positions(self.queue)
        self.by_position = {q["position"]: q for q in self.queue}
        if not self.by_item.keys() <= self._items.keys():  # new items were blinded (items never change)
            self._items = {i["id"]: i for i in blind_rows.blind_items(self.db, self.study.id)}
        self._reload_rows()

    def _reload_rows(self) -> None:
        self.rows = score_rows.rater_rows(self.db, self.study.id, self.rater)
        self.state: RaterState = replay(self.rows)

    def items(self) -> dict[str, dict]:
        return self._items

    def item(self, item_id: str) -> dict:
        if item_id not in self.by_item:
            raise ScoringError(f"item {item_id} is not in {self.rater}'s assignment")
        return self.items()[item_id]

    def rubrics(self, item_id: str) -> list[Rubric]:
        return self.study.rubrics_for_case(self.item(item_id)["case_id"])

    def complete(self, item_id: str) -> bool:
        values = self.state.item_values(item_id)
        return all((r.hash, c.id) in values for r in self.rubrics(item_id) for c in r.criteria)

    def pilots(self) -> list[dict]:
        return [q for q in self.queue if q["pilot"]]

    def phase(self) -> tuple[str, str]:
        if self.study.unblinded_at:
            return "closed", "this study is unblinded: scoring is closed"
        if self.queue and all(self.complete(q["item_id"]) for q in self.queue):
            return "complete", "all your items are scored"
        pilots = self.pilots()
        if pilots and not all(self.complete(q["item_id"]) for q in pilots):
            return "calibration", "score the two calibration items first; the rest follow"
        if pilots:
            check = rater_calibration(self.db, self.study, self.rater, self.state)
            if not check.released:
                return "held", check.message
        return "scoring", ""

    def available(self, item_id: str, phase: str | None = None) -> bool:
        phase = phase or self.phase()[0]
        if phase in ("calibration", "held"):
            return bool(self.by_item[item_id]["pilot"])
        return True

    def progress(self) -> Progress:
        phase, message = self.phase()
        done = sum(1 for q in self.queue if self.complete(q["item_id"]))
        return Progress(self.rater, done, len(self.queue), phase, message)

    def partner(self, item_id: str) -> str | None:
        pos = self.partners.get(self.by_item[item_id]["position"])
        return self.by_position[pos]["item_id"] if pos is not None else None

    def view(self, item_id: str) -> ItemView:
        item = self.item(item_id)
        q = self.by_item[item_id]
        case = self.study.cases.get(item["case_id"])
        rubrics = self.rubrics(item_id)
        values = self.state.item_values(item_id)
        scores = {r.id: {c.id: _int(values.get((r.hash, c.id))) for c in r.criteria} for r in rubrics}
        hash_to_id = {r.hash: r.id for r in rubrics}
        notes = {}
        for (rubric_hash, criterion), text in self.state.item_notes(item_id).items():
            key = "*" if (rubric_hash, criterion) == ITEM_NOTE else f"{hash_to_id.get(rubric_hash, '?')}/{criterion}"
            notes[key] = text
        return ItemView(
            item_id=item_id, label=position_label(q["position"]), position=q["position"] + 1,
            total=len(self.queue), side=q["side"], partner_id=self.partner(item_id),
            case_title=case.title if case else "", scenario=case.scenario if case else "",
            outcome=(case.outcome if case else "") if self.study.shows_outcome else None,
            response=item["text"], rubrics=[RubricView.of(r) for r in rubrics], scores=scores, notes=notes,
            transposition=case.transposition.for_evaluators() if case and self.study.shows_outcome else None,
            complete=self.complete(item_id), skipped=self.state.skipped(item_id),
        )

    def check_writable(self, item_id: str) -> None:
        self.item(item_id)
        phase, message = self.phase()
        if phase == "closed":
            raise ScoringClosed(message)
        if not self.available(item_id, phase):
            raise CalibrationHold(message)


    # --- reads ---------------------------------------------------------------------------------

    def queue_entries(self) -> list[QueueEntry]:
        """The rater's items in their own order, with what is done, skipped and available."""
        phase = self.phase()[0]
        return [QueueEntry(item_id=q["item_id"], position=q["position"] + 1, label=position_label(q["position"]),
                           side=q["side"], partner_id=self.partner(q["item_id"]), complete=self.complete(q["item_id"]),
                           skipped=self.state.skipped(q["item_id"]), available=self.available(q["item_id"], phase))
                for q in self.queue]

    def next_unscored(self) -> str | None:
        """The item to open: the first incomplete, available one not skipped since last touched
        (skipped ones come round again once nothing else is left). None when done, held or closed."""
        phase = self.phase()[0]
        if phase in ("closed", "held", "complete"):
            return None
        open_items = [q["item_id"] for q in self.queue
                      if self.available(q["item_id"], phase) and not self.complete(q["item_id"])]
        fresh = [i for i in open_items if not self.state.skipped(i)]
        return (fresh or open_items or [None])[0]

    def item_view(self, item_id: str) -> ItemView:
        self.item(item_id)
        if not self.available(item_id):
            raise CalibrationHold(self.phase()[1])
        return self.view(item_id)

    def pair_view(self, item_id: str) -> list[ItemView]:
        """The item and its pair partner, left one first (one view when it has no partner)."""
        self.item(item_id)
        if not self.available(item_id):
            raise CalibrationHold(self.phase()[1])
        partner = self.partner(item_id)
        views = [self.view(i) for i in [item_id] + ([partner] if partner else [])]
        return sorted(views, key=lambda v: v.position)

    # --- actions: each re-reads the rater's rows, writes one row, and answers from memory -------

    def record_score(self, item_id: str, rubric_id: str, criterion: str, value: int, *,
                     source: str = "tui", seconds: float | None = None) -> ScoreReceipt:
        """Score one criterion of one item (a new row; the latest row is the current value). `seconds`: the
        time since the rater opened the item on the desk, kept with the score (evaluator quality)."""
        source = _source(source)
        with writer(self.db):
            self.refresh()
            self.check_writable(item_id)
            rubric = self.rubric(item_id, rubric_id)
            crit = next((c for c in rubric.criteria if c.id == criterion), None)
            if crit is None:
                raise ScoringError(f"rubric '{rubric_id}' has no criterion '{criterion}'")
            number = _valid_value(value, crit.min, crit.max, f"{rubric_id}/{criterion}")
            previous = self.state.value(item_id, rubric.hash, criterion)
            self._append({"item_id": item_id, "rubric_hash": rubric.hash, "criterion": criterion,
                          "value": number, "action": "score", "source": source,
                          "seconds": None if seconds is None else round(float(seconds), 3)})
            return ScoreReceipt(item_id, "score", rubric_id, criterion, number, _int(previous),
                                self.complete(item_id), self.progress())

    def record_note(self, item_id: str, text: str, *, rubric_id: str | None = None, criterion: str | None = None,
                    source: str = "tui") -> ScoreReceipt:
        """A justification note on the item, or on one criterion (a new row; the latest note counts)."""
        source = _source(source)
        with writer(self.db):
            self.refresh()
            self.check_writable(item_id)
            rubric_hash, crit = ITEM_NOTE
            if rubric_id is not None:
                rubric = self.rubric(item_id, rubric_id)
                if criterion is not None and criterion not in {c.id for c in rubric.criteria}:
                    raise ScoringError(f"rubric '{rubric_id}' has no criterion '{criterion}'")
                rubric_hash, crit = rubric.hash, criterion or "*"
            self._append({"item_id": item_id, "rubric_hash": rubric_hash, "criterion": crit, "note": str(text),
                          "action": "note", "source": source})
            return ScoreReceipt(item_id, "note", rubric_id, criterion, None, None, self.complete(item_id),
                                self.progress())

    def undo_last(self, *, item_id: str | None = None, source: str = "tui") -> ScoreReceipt | None:
        """Reverse the rater's latest score not yet undone (on `item_id` if given). None: nothing to undo."""
        source = _source(source)
        with writer(self.db):
            self.refresh()
            last = self.state.last_live_score(item_id)
            if last is None:
                return None
            self.check_writable(last["item_id"])
            restored = value_before(self.rows, last["id"])
            self._append({"item_id": last["item_id"], "rubric_hash": last["rubric_hash"],
                          "criterion": last["criterion"], "value": restored, "action": "undo",
                          "undoes": last["id"], "source": source})
            rubric = self.study.rubric_by_hash(last["rubric_hash"])
            return ScoreReceipt(last["item_id"], "undo", rubric.id if rubric else None, last["criterion"],
                                _int(restored), _int(last["value"]), self.complete(last["item_id"]),
                                self.progress())

    def skip_item(self, item_id: str, *, source: str = "tui") -> ScoreReceipt:
        """Put the item aside: `next_unscored` offers it again once nothing else is left."""
        source = _source(source)
        with writer(self.db):
            self.refresh()
            self.check_writable(item_id)
            self._append({"item_id": item_id, "rubric_hash": "", "criterion": "*", "action": "skip",
                          "source": source})
            return ScoreReceipt(item_id, "skip", None, None, None, None, self.complete(item_id), self.progress())

    def _append(self, row: dict) -> None:
        score_rows.append(self.db, {"study_id": self.study.id, "rater": self.rater, **row})
        self._reload_rows()  # this rater's rows only: the study's context stays as it was read

    def rubric(self, item_id: str, rubric_id: str) -> Rubric:
        for rubric in self.rubrics(item_id):
            if rubric.id == rubric_id:
                return rubric
        raise ScoringError(f"item {item_id} is not scored on rubric '{rubric_id}'")


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _source(source: str) -> str:
    if source not in SOURCES:
        raise ScoringError(f"unknown score source '{source}' (one of {', '.join(SOURCES)})")
    return source


# --- the module's functions: one desk per call ---------------------------------------------------

def open_rater(db: sqlite_utils.Database, study_id: str, rater: str) -> Progress:
    """Entry point of a scoring session: blinds any new final outputs, then the rater's progress."""
    from workbench.blinding.items import prepare_study

    study = load_study(db, study_id)
    if rater not in study.rater_names:
        raise ScoringError(f"'{rater}' is not a rater of study '{study_id}'")
    try:
        prepare_study(db, study_id)
    except BlindingError as exc:
        raise ScoringError(str(exc)) from None
    return progress(db, study_id, rater)


def rater_names(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The study's human raters (names only)."""
    try:
        return load_study(db, study_id).rater_names
    except BlindingError as exc:
        raise ScoringError(str(exc)) from None


def queue(db: sqlite_utils.Database, study_id: str, rater: str) -> list[QueueEntry]:
    return RaterDesk(db, study_id, rater).queue_entries()


def next_unscored(db: sqlite_utils.Database, study_id: str, rater: str) -> str | None:
    return RaterDesk(db, study_id, rater).next_unscored()


def item_view(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str) -> ItemView:
    return RaterDesk(db, study_id, rater).item_view(item_id)


def pair_view(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str) -> list[ItemView]:
    return RaterDesk(db, study_id, rater).pair_view(item_id)


def progress(db: sqlite_utils.Database, study_id: str, rater: str) -> Progress:
    return RaterDesk(db, study_id, rater).progress()


def record_score(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str, rubric_id: str,
                 criterion: str, value: int, *, source: str = "tui") -> ScoreReceipt:
    return RaterDesk(db, study_id, rater).record_score(item_id, rubric_id, criterion, value, source=source)


def record_note(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str, text: str, *,
                rubric_id: str | None = None, criterion: str | None = None, source: str = "tui") -> ScoreReceipt:
    return RaterDesk(db, study_id, rater).record_note(item_id, text, rubric_id=rubric_id, criterion=criterion,
                                                     source=source)


def undo_last(db: sqlite_utils.Database, study_id: str, rater: str, *, item_id: str | None = None,
              source: str = "tui") -> ScoreReceipt | None:
    return RaterDesk(db, study_id, rater).undo_last(item_id=item_id, source=source)


def skip_item(db: sqlite_utils.Database, study_id: str, rater: str, item_id: str, *,
              source: str = "tui") -> ScoreReceipt:
    return RaterDesk(db, study_id, rater).skip_item(item_id, source=source)



def _valid_value(value, lo: int, hi: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise ScoringError(f"{where}: a score must be a whole number from {lo} to {hi}, not {value!r}")
    if not lo <= value <= hi:
        raise ScoringError(f"{where}: {int(value)} is outside {lo}..{hi}")
    return int(value)
