"""Reading append-only score rows back into current values.

One rule, used by the scoring screen, packets, calibration, unblinding and the
metrics core alike: a cell (item, rubric hash, criterion) holds the value of
its latest `score` or `undo` row (None when that value is None: never scored,
or the only score was undone). Notes follow the same rule over `note` rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ITEM_NOTE = ("", "*")  # (rubric_hash, criterion) of a note about the whole item


@dataclass
class RaterState:
    values: dict[tuple[str, str, str], float | None] = field(default_factory=dict)
    value_row: dict[tuple[str, str, str], int] = field(default_factory=dict)  # cell -> row that set it
    notes: dict[tuple[str, str, str], str] = field(default_factory=dict)
    last_activity: dict[str, int] = field(default_factory=dict)  # item -> latest score/undo/note row id
    last_skip: dict[str, int] = field(default_factory=dict)      # item -> latest skip row id
    score_rows: list[dict] = field(default_factory=list)         # score rows in order (the undo stack)
    undone: set[int] = field(default_factory=set)

    def value(self, item_id: str, rubric_hash: str, criterion: str) -> float | None:
        return self.values.get((item_id, rubric_hash, criterion))

    def item_values(self, item_id: str) -> dict[tuple[str, str], float]:
        """(rubric hash, criterion) -> current value, scored cells only."""
        return {(h, c): v for (i, h, c), v in self.values.items() if i == item_id and v is not None}

    def item_notes(self, item_id: str) -> dict[tuple[str, str], str]:
        return {(h, c): n for (i, h, c), n in self.notes.items() if i == item_id and n}

    def skipped(self, item_id: str) -> bool:
        """Skipped and not touched since."""
        return self.last_skip.get(item_id, 0) > self.last_activity.get(item_id, 0)

    def last_live_score(self, item_id: str | None = None) -> dict | None:
        """The latest score row not yet undone (what "undo" reverses next)."""
        for row in reversed(self.score_rows):
            if row["id"] not in self.undone and (item_id is None or row["item_id"] == item_id):
                return row
        return None


def replay(rows: list[dict]) -> RaterState:
    """Fold one rater's rows (in id order) into their current state."""
    state = RaterState()
    for row in rows:
        action = row["action"]
        item = row["item_id"]
        cell = (item, row["rubric_hash"], row["criterion"])
        if action in ("score", "undo"):
            state.values[cell] = row["value"]
            state.value_row[cell] = row["id"]
            state.last_activity[item] = row["id"]
            if action == "score":
                state.score_rows.append(row)
            elif row.get("undoes"):
                state.undone.add(row["undoes"])
        elif action == "note":
            state.notes[cell] = row["note"] or ""
            state.last_activity[item] = row["id"]
        elif action == "skip":
            state.last_skip[item] = row["id"]
    return state


def value_before(rows: list[dict], row_id: int) -> float | None:
    """The value a cell had just before row `row_id` was written."""
    target = next(r for r in rows if r["id"] == row_id)
    cell = (target["item_id"], target["rubric_hash"], target["criterion"])
    before = None
    for r in rows:
        if r["id"] >= row_id:
            break
        if r["action"] in ("score", "undo") and (r["item_id"], r["rubric_hash"], r["criterion"]) == cell:
            before = r["value"]
    return before


def current_by_rater(rows: list[dict]) -> dict[str, RaterState]:
    """Every rater's state from a study's rows (for metrics and unblinding; never rater-facing)."""
    by_rater: dict[str, list[dict]] = {}
    for r in rows:
        by_rater.setdefault(r["rater"], []).append(r)
    return {rater: replay(rs) for rater, rs in by_rater.items()}
