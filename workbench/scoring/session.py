"""A rater's sitting at the keyboard scoring screen: where they are and what a key does.

Everything is read and written through `workbench.scoring` (one committed row
per action; a rater only reads their own rows); this module adds what the
screen needs on top, and nothing here imports Textual:

- which studies a rater can pick, and their raters (`scorable_studies`);
- the rater's queue grouped into the side-by-side pairs the blinding core
  made (`group_pairs`);
- where to land on entry or after a skip: the pair holding the core's next
  unscored item (the calibration pilots first while they are pending), on its
  first criterion without a score;
- the focus (which response of the pair, which criterion) that a number key
  scores, and how arrows, tab, next and previous move it.

Only what the core's rater views carry is ever exposed: labels come from the
rater's own queue positions ("Response Alpha"), never a run, condition, model
or timestamp.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlite_utils

from store import studies as study_rows
from workbench import scoring
from workbench.scoring import ItemView, Progress, QueueEntry, RaterDesk, ScoreReceipt, ScoringError


@dataclass(frozen=True)
class StudyChoice:
    """A study a rater may open: its id and human raters (nothing else about it is shown)."""

    id: str
    raters: tuple[str, ...]
    closed: bool  # unblinded: scoring is closed, items can only be read


def scorable_studies(db: sqlite_utils.Database) -> list[StudyChoice]:
    """Frozen studies that name human raters, by id."""
    out = []
    for row in study_rows.list_studies(db):
        raters = tuple(row["definition"].get("raters") or [])
        if row.get("frozen_at") and raters:
            out.append(StudyChoice(row["id"], raters, bool(row.get("unblinded_at"))))
    return sorted(out, key=lambda s: s.id)


@dataclass(frozen=True)
class Cell:
    """One scorable criterion of an item: what the focus moves over and a number key fills in."""

    rubric_id: str
    rubric_name: str
    criterion_id: str
    criterion_name: str
    min: int
    max: int

    @property
    def note_key(self) -> str:
        return f"{self.rubric_id}/{self.criterion_id}"


def cells_of(view: ItemView) -> list[Cell]:
    return [Cell(r.id, r.name, c.id, c.name, c.min, c.max) for r in view.rubrics for c in r.criteria]


def value_of(view: ItemView, cell: Cell) -> int | None:
    return view.scores.get(cell.rubric_id, {}).get(cell.criterion_id)


@dataclass(frozen=True)
class Unit:
    """What the screen shows at once: a pair of items under one scenario (or a lone item)."""

    items: tuple[str, ...]  # left first
    available: bool         # False while the calibration pilots hold the rest back
    complete: bool


def group_pairs(entries: list[QueueEntry]) -> list[Unit]:
    """The queue (in the rater's order) as pairs: an item and its partner go together."""
    by_id = {e.item_id: e for e in entries}
    seen: set[str] = set()
    units = []
    for e in entries:
        if e.item_id in seen:
            continue
        members = [e]
        partner = by_id.get(e.partner_id) if e.partner_id else None
        if partner is not None and partner.item_id not in seen:
            members.append(partner)
        members.sort(key=lambda m: m.position)
        seen.update(m.item_id for m in members)
        units.append(Unit(tuple(m.item_id for m in members), all(m.available for m in members),
                          all(m.complete for m in members)))
    return units


@dataclass
class ActionResult:
    """What a key did, for the screen to say: a receipt and a short message (or None)."""

    receipt: ScoreReceipt | None = None
    message: str | None = None
    released: bool = False  # the calibration pilots passed: the rest of the items opened
    held: bool = False      # the calibration pilots went the wrong way: the rest are held back


@dataclass
class ScoringSession:
    """One rater scoring one study. Every action commits through the core before it returns."""

    db: sqlite_utils.Database
    study_id: str
    rater: str
    units: list[Unit] = field(default_factory=list)
    index: int | None = None          # the unit on screen
    views: list[ItemView] = field(default_factory=list)
    response: int = 0                 # focused response of the pair
    cell: int = 0                     # focused criterion of that response
    progress: Progress | None = None
    desk: RaterDesk | None = None     # the study's context, read once for the sitting
    clock: Callable[[], float] = time.monotonic
    opened_at: float | None = None    # when the pair on screen was opened: each score keeps the time since

    # -- entry and reloading ------------------------------------------------------------------

    @classmethod
    def enter(cls, db: sqlite_utils.Database, study_id: str, rater: str) -> "ScoringSession":
        """Open the rater's session (blinding any new outputs) and land on their next unscored item."""
        scoring.open_rater(db, study_id, rater)
        session = cls(db, study_id, rater, desk=RaterDesk(db, study_id, rater))
        session.reload(fresh=True)
        session.land()
        return session

    def reload(self, *, fresh: bool = False) -> None:
        """The queue, the progress and the pair on screen; `fresh=False` when the desk has just been
        refreshed by an action, else its queue and rows are re-read from the store first."""
        if self.desk is None:
            self.desk = RaterDesk(self.db, self.study_id, self.rater)
        elif not fresh:
            self.desk.refresh()
        self.units = group_pairs(self.desk.queue_entries())
        self.progress = self.desk.progress()
        if self.index is not None and not (0 <= self.index < len(self.units) and self.units[self.index].available):
            self.index = None
        self.views = self._read_views(self.index) if self.index is not None else []
        self._clamp()

    def _read_views(self, index: int) -> list[ItemView]:
        return self.desk.pair_view(self.units[index].items[0])

    def land(self) -> None:
        """Show the pair holding the core's next unscored item, focused on its first open criterion.

        With nothing left to score (all done, held for calibration, or closed) it shows
        the first available pair still open, else stays where it is, else the first pair.
        """
        target = self.desk.next_unscored()
        if target is not None:
            self._show(self._unit_of(target), item=target)
            return
        open_units = [k for k, u in enumerate(self.units) if u.available and not u.complete]
        if open_units:
            self._show(open_units[0])
        elif self.index is None:
            first = next((k for k, u in enumerate(self.units) if u.available), None)
            if first is not None:
                self._show(first)

    def refresh(self) -> ActionResult:
        """Re-read everything (scores may have changed meanwhile: a packet imported, the same rater in
        another terminal); if the pair on screen is no longer open, land again."""
        self.reload()
        if self.index is None:
            self.land()
        return ActionResult()

    def to_next_unscored(self) -> ActionResult:
        """Go where `enter` lands: the pair with the next unscored item."""
        self.reload()
        self.land()
        return ActionResult(None, "every item is scored" if self.phase == "complete" else None)

    def _unit_of(self, item_id: str) -> int:
        return next(k for k, u in enumerate(self.units) if item_id in u.items)

    def _show(self, index: int, *, item: str | None = None, cell: Cell | None = None) -> None:
        if index != self.index or self.opened_at is None:
            self.opened_at = self.clock()
        self.index = index
        self.views = self._read_views(index)
        if item is not None:
            self.response = next((k for k, v in enumerate(self.views) if v.item_id == item), 0)
        else:  # the first response with something left to score
            self.response = next((k for k, v in enumerate(self.views) if not v.complete), 0)
        cells = self.cells
        if cell is not None and cell in cells:
            self.cell = cells.index(cell)
        else:
            view = self.views[self.response] if self.views else None
            self.cell = next((k for k, c in enumerate(cells) if view and value_of(view, c) is None), 0)
        self._clamp()

    def _clamp(self) -> None:
        self.response = max(0, min(self.response, len(self.views) - 1)) if self.views else 0
        self.cell = max(0, min(self.cell, len(self.cells) - 1)) if self.cells else 0

    # -- what is on screen --------------------------------------------------------------------

    @property
    def view(self) -> ItemView | None:
        return self.views[self.response] if self.views else None

    @property
    def cells(self) -> list[Cell]:
        return cells_of(self.views[self.response]) if self.views else []

    @property
    def focused_cell(self) -> Cell | None:
        cells = self.cells
        return cells[self.cell] if cells else None

    @property
    def unit_number(self) -> int | None:
        """1-based number of the pair on screen, among all the rater's pairs."""
        return None if self.index is None else self.index + 1

    @property
    def phase(self) -> str:
        return self.progress.phase if self.progress else "scoring"

    @property
    def read_only(self) -> bool:
        return self.phase == "closed"

    def note(self) -> str:
        """The rater's current note on the focused criterion of the focused response."""
        cell, view = self.focused_cell, self.view
        return view.notes.get(cell.note_key, "") if cell and view else ""

    # -- moving the focus ---------------------------------------------------------------------

    def move_cell(self, delta: int) -> None:
        if self.cells:
            self.cell = max(0, min(self.cell + delta, len(self.cells) - 1))

    def move_response(self, delta: int) -> None:
        """Switch response, staying on the same criterion."""
        if self.views:
            self.response = (self.response + delta) % len(self.views)
            self._clamp()

    def tab(self, delta: int) -> None:
        """Through every criterion of every response in turn: Alpha's criteria, then Beta's, and round."""
        if not self.views or not self.cells:
            return
        n = len(self.cells)
        flat = (self.response * n + self.cell + delta) % (n * len(self.views))
        self.response, self.cell = divmod(flat, n)

    def next_unit(self) -> bool:
        return self._step(+1)

    def previous_unit(self) -> bool:
        return self._step(-1)

    def _step(self, delta: int) -> bool:
        """Move to the next (previous) pair the rater may open; False at either end."""
        if self.index is None:
            return False
        k = self.index + delta
        while 0 <= k < len(self.units):
            if self.units[k].available:
                self._show(k)
                return True
            k += delta
        return False

    # -- actions (each one committed by the core before it returns) ---------------------------

    def score(self, value: int) -> ActionResult:
        cell, view = self.focused_cell, self.view
        if cell is None or view is None:
            raise ScoringError("there is nothing to score here")
        if not cell.min <= value <= cell.max:
            raise ScoringError(f"{cell.criterion_name} takes a score from {cell.min} to {cell.max}")
        before = self.phase
        seconds = None if self.opened_at is None else self.clock() - self.opened_at
        receipt = self.desk.record_score(view.item_id, cell.rubric_id, cell.criterion_id, value, seconds=seconds)
        self.reload(fresh=True)
        if self.index is None:  # the pair just closed (a pilot re-scored the wrong way): go where it may
            self.land()
        else:
            self._advance_after_score()
        return self._result(receipt, before)

    def _advance_after_score(self) -> None:
        """On to the next criterion of this response; after its last one, the other response's first
        open criterion (if it has one)."""
        if self.cell < len(self.cells) - 1:
            self.cell += 1
            return
        for k, other in enumerate(self.views):
            if k == self.response:
                continue
            cells = cells_of(other)
            open_cell = next((j for j, c in enumerate(cells) if value_of(other, c) is None), None)
            if open_cell is not None:
                self.response, self.cell = k, open_cell
                return

    def write_note(self, text: str) -> ActionResult:
        cell, view = self.focused_cell, self.view
        if cell is None or view is None:
            raise ScoringError("there is nothing to write a note on here")
        receipt = self.desk.record_note(view.item_id, text.strip(), rubric_id=cell.rubric_id,
                                        criterion=cell.criterion_id)
        self.reload(fresh=True)
        return ActionResult(receipt, "note saved" if text.strip() else "note cleared")

    def undo(self) -> ActionResult:
        """Reverse the rater's latest score (wherever it is) and show it."""
        before = self.phase
        receipt = self.desk.undo_last()
        if receipt is None:
            return ActionResult(None, "nothing to undo")
        self.reload(fresh=True)
        index = self._unit_of(receipt.item_id)
        if self.units[index].available:
            target = next((c for c in cells_of(self._read_views(index)[0])
                           if (c.rubric_id, c.criterion_id) == (receipt.rubric_id, receipt.criterion)), None)
            self._show(index, item=receipt.item_id, cell=target)
        result = self._result(receipt, before)
        shown = "—" if receipt.value is None else str(receipt.value)
        result.message = f"undone: {self._label(receipt.item_id)} · {self._cell_name(receipt)} is back to {shown}"
        return result

    def skip(self) -> ActionResult:
        """Put the pair aside (its unfinished items come round again once nothing else is left)."""
        if self.index is None:
            return ActionResult(None, "nothing to skip")
        here = self.index
        last = None
        for view in self.views:
            if not view.complete:
                last = self.desk.skip_item(view.item_id)
        if last is None:
            return ActionResult(None, "this pair is already scored: n moves on")
        self.reload(fresh=True)
        self.land()
        if self.index == here:
            return ActionResult(last, "skipped, but nothing else is open: this pair is still the next one")
        return ActionResult(last, "skipped: it comes round again at the end")

    def _result(self, receipt: ScoreReceipt, before: str) -> ActionResult:
        released = before in ("calibration", "held") and self.phase in ("scoring", "complete")
        return ActionResult(receipt, None, released, held=before != "held" and self.phase == "held")

    def _label(self, item_id: str) -> str:
        view = next((v for v in self.views if v.item_id == item_id), None)
        return view.label if view else "a response"

    def _cell_name(self, receipt: ScoreReceipt) -> str:
        for view in self.views:
            for c in cells_of(view):
                if (c.rubric_id, c.criterion_id) == (receipt.rubric_id, receipt.criterion):
                    return c.criterion_name
        return receipt.criterion or ""
