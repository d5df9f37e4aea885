"""The study's runs as a grid: one row per condition (and replicate), one column per case.

Each cell shows a run's status, tokens, cost and elapsed time
(`workbench.runs.view.cell_fields`), and the mark † when the run ended without its
condition's defining step (`treatment` in its state: workbench.fidelity; the Runs
screen says what happened under the grid). The cursor moves over cells; enter selects
the run under it. Cells are updated one at a time (`update_run`), never by
rebuilding the table, so a refresh during a run is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from workbench.fidelity.policy import MARK
from workbench.runs.view import cell_fields, grid_axes, row_label, status_label

STATUS_STYLE = {"pending": "dim", "running": "bold cyan", "done": "green", "done with errors": "bold yellow",
                "failed": "bold red", "cancelled": "yellow", "interrupted": "magenta"}
CELL_WIDTH = 44  # a cell of a study with runs to go: room for a running run's calls, tokens, cost and time
ENDED = ("done", "done with errors", "failed", "cancelled")
LABEL_KEY = "condition"


def cell_text(state: dict, started_at: float | None = None, now: float | None = None) -> Text:
    f = cell_fields(state, now=now, started_at=started_at)
    style = STATUS_STYLE.get(f["status"], "")
    text = Text.assemble((f"{f['glyph']} {f['status']}", style))
    if state.get("treatment"):  # its defining step did not happen: the words are under the grid
        text.append(f" {MARK}", style="bold magenta")
    if f["calls"]:
        text.append(f" {f['calls']}", style="dim")
    if f["waiting"]:
        text.append(f" {f['waiting']}", style="yellow")
    if f["cut"]:
        text.append(f" {f['cut']}", style="bold yellow")
    if f["status"] != "pending":
        text.append(f"  {f['tokens']}  ")
        text.append(f["cost"], style="italic" if "unknown" in f["cost"] or "≥" in f["cost"] else "")
        if f["elapsed"]:
            text.append(f"  {f['elapsed']}", style="dim")
    return text


class RunGrid(DataTable):
    """case × condition; `states` are `workbench.runs.view` state dicts keyed by run id."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Transcript", id="runs.transcript",
                tooltip="Show the selected run's transcript (live while it runs)"),
    ]

    @dataclass
    class RunChosen(Message):
        """The user chose a run (enter or click)."""

        run_id: str

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("cursor_type", "cell")
        kwargs.setdefault("zebra_stripes", True)
        super().__init__(**kwargs)
        self.states: dict[str, dict] = {}
        self._where: dict[str, tuple[str, str]] = {}   # run id -> (row key, column key)
        self._at: dict[tuple[str, str], str] = {}      # (row key, column key) -> run id

    def set_runs(self, states: list[dict], live: bool = False) -> None:
        """Rebuild the grid for a study's runs (grid order from `grid_states`); `live`: about to run."""
        keep = self.selected_run_id()
        self.clear(columns=True)
        self.states = {s["run_id"]: dict(s) for s in states}
        self._where.clear()
        self._at.clear()
        rows, cols = grid_axes(states)
        replicated = {cond for cond, _ in rows if sum(1 for c, _ in rows if c == cond) > 1}
        # the condition is an ordinary first column, not a DataTable row label (labels render late)
        self.add_column("", key=LABEL_KEY, width=max([len(row_label(c, r, True)) for c, r in rows] + [4]))
        # a study whose runs all ended gets columns as wide as their cells (at 44, a finished two-case study's
        # second cost was off an 80-column screen); a study about to run gets room for running cells
        width = CELL_WIDTH
        if states and not live and all(status_label(s) in ENDED for s in states):
            width = min(CELL_WIDTH, max(len(cell_text(s).plain) for s in states))
        for case_id in cols:
            self.add_column(case_id, key=case_id, width=max(width, len(case_id)))
        for s in states:
            key = (f"{s['condition']}/{s['replicate']}", s["case_id"])
            self._where[s["run_id"]] = key
            self._at[key] = s["run_id"]
        for cond, rep in rows:
            row_key = f"{cond}/{rep}"
            cells: list = [Text(row_label(cond, rep, cond in replicated), style="bold")]
            for case_id in cols:
                run_id = self._at.get((row_key, case_id))
                cells.append(cell_text(self.states[run_id]) if run_id else Text("-", style="dim"))
            self.add_row(*cells, key=row_key)
        if keep and keep in self._where:
            self.select_run(keep)
        elif self.row_count and cols:
            self.move_cursor(row=0, column=1)

    def update_run(self, state: dict, started_at: float | None = None, now: float | None = None) -> None:
        run_id = state["run_id"]
        if run_id not in self._where:
            return
        self.states[run_id] = dict(state)
        row_key, col_key = self._where[run_id]
        try:
            self.update_cell(row_key, col_key, cell_text(state, started_at, now))
        except CellDoesNotExist:  # the grid was rebuilt for another study meanwhile
            pass

    def selected_run_id(self) -> str | None:
        if self.row_count == 0 or not self.columns:
            return None
        try:
            row_key, col_key = self.coordinate_to_cell_key(self.cursor_coordinate)
        except CellDoesNotExist:
            return None
        return self._at.get((row_key.value, col_key.value))

    def select_run(self, run_id: str) -> None:
        if run_id in self._where:
            row_key, col_key = self._where[run_id]
            self.move_cursor(row=self.get_row_index(row_key), column=self.get_column_index(col_key))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        run_id = self._at.get((event.cell_key.row_key.value, event.cell_key.column_key.value))
        if run_id:
            self.post_message(self.RunChosen(run_id))
