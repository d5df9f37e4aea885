"""The Cases section: the store's cases with filters and search; open, create and probe cases."""

from __future__ import annotations


from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Select, Static
from textual.worker import Worker, WorkerState

from screens.widgets.section import SectionScreen
from workbench.cases.model import CASE_TYPES, DOMAINS, STATUSES, STRATEGIES
from workbench.safe_text import for_terminal

FILTERS = {"type": CASE_TYPES, "domain": DOMAINS, "status": STATUSES, "strategy": STRATEGIES}
COLUMNS = [("id", "id"), ("title", "title"), ("type", "type"), ("domain", "domain"), ("status", "status"),
           ("strategies", "strategies"), ("probe", "probe verdict")]
NARROW_COLUMNS = [("id", "id"), ("title", "title"), ("status", "status"), ("probe", "probe verdict"),
                  ("type", "type"), ("domain", "domain"), ("strategies", "strategies")]
TITLE_WIDTH = 36
NARROW_BELOW = 110  # columns: below this the verdicts come before type and domain (reached by ←/→)
NARROW_TITLE_WIDTH = 22
STATUS_STYLE = {"ready": "green", "draft": "yellow", "excluded": "dim"}
SEARCH_DELAY = 0.2
LOADING = "Loading the cases…"


class CaseTable(DataTable):
    """The case list; its enter binding is shown in the footer as "Open"."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Open", id="cases.open", tooltip="Edit the selected case"),
    ]


class CasesScreen(SectionScreen):
    """The list of cases. Enter opens the editor; n creates a case; p / P probe for contamination."""

    SECTION_ID = "cases"
    PALETTE_SKIP = {"new_case", "probe_ready"}  # "cases: new case" and "cases: probe all ready cases" exist
    SUB_TITLE = "Cases"
    CSS_PATH = "styles/cases.tcss"
    AUTO_FOCUS = "#case-table"
    BINDINGS = [
        Binding("n", "new_case", "New", id="cases.new", tooltip="Create a new case in the editor"),
        Binding("p", "probe_selected", "Probe", id="cases.probe",
                tooltip="Run the contamination probe on the selected case"),
        Binding("P", "probe_ready", "Probe ready", id="cases.probe_ready",
                tooltip="Run the contamination probe on every ready case"),
        Binding("slash", "focus_search", "Search", id="cases.search",
                tooltip="Search ids, titles, scenarios and structural tensions"),
        Binding("x", "clear_filters", "Clear filters", id="cases.clear",
                tooltip="Show every case: clear the filters and the search"),
        Binding("r", "refresh", "Refresh", id="cases.refresh", tooltip="Reload the list from the store"),
        Binding("escape", "focus_list", "List", id="cases.list", show=False,
                tooltip="Back to the list from the filters or the search"),
    ]

    def compose_section(self) -> ComposeResult:
        with Horizontal(id="case-filters"):
            for name, options in FILTERS.items():
                yield Select([(o, o) for o in options], prompt=f"any {name}", id=f"filter-{name}",
                             classes="case-filter", tooltip=f"Only cases with this {name}", compact=True)
            yield Input(placeholder="search… ( / )", id="case-search", compact=True)
        yield CaseTable(id="case-table", cursor_type="row", zebra_stripes=True)
        yield Static(LOADING, id="case-count")  # until the store is open and the list read (after the first frame)

    def on_mount(self) -> None:
        self.narrow: bool | None = None
        self._set_columns(self.size.width < NARROW_BELOW)
        self._search_timer = None
        self._select_after_reload: str | None = None
        self.rows: list[dict] = []
        self._total = 0

    def _set_columns(self, narrow: bool) -> bool:
        """Lay the columns out for the width; True when they changed (the rows must be shown again)."""
        if narrow == self.narrow:
            return False
        self.narrow = narrow
        table = self.query_one("#case-table", DataTable)
        table.clear(columns=True)
        for key, label in NARROW_COLUMNS if narrow else COLUMNS:
            table.add_column(label, key=key)
        return True

    def on_resize(self) -> None:
        if getattr(self, "narrow", None) is not None and self._set_columns(self.size.width < NARROW_BELOW) and self.rows:
            self._show(self.rows, self._total)

    def on_screen_resume(self) -> None:
        self.call_after_refresh(self.refresh_list)  # at launch: after the first frame

    # -- loading ----------------------------------------------------------------------------------

    def filters(self) -> dict:
        out = {}
        for name in FILTERS:
            value = self.query_one(f"#filter-{name}", Select).value
            if value is not Select.NULL:
                out[name] = value
        search = self.query_one("#case-search", Input).value.strip()
        if search:
            out["search"] = search
        return out

    def refresh_list(self) -> Worker:
        return self._load(self.filters())

    @work(thread=True, exclusive=True, group="case-list", exit_on_error=False)
    def _load(self, filters: dict) -> tuple[list[dict], int]:
        db = self.app.db  # opens the store, or waits for its opening, first (see screens/store_opening.py)
        from workbench.cases.listing import case_count, case_summaries

        return case_summaries(db, **filters), case_count(db)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "case-list":
            return
        if event.state == WorkerState.SUCCESS:
            rows, total = event.worker.result
            self._show(rows, total)
        elif event.state == WorkerState.ERROR:
            self.notify(f"Could not read the cases: {event.worker.error}", title="Cases", severity="error")

    def _show(self, rows: list[dict], total: int) -> None:
        table = self.query_one("#case-table", DataTable)
        keep = self._select_after_reload or self.selected_case_id()
        self._select_after_reload = None
        table.clear()
        width = NARROW_TITLE_WIDTH if self.narrow else TITLE_WIDTH
        for r in rows:
            flagged = r["recognized"]
            title = for_terminal(r["title"])  # a case's own words: plain text, never markup
            cells = {
                "id": Text(r["id"], style="bold red" if flagged else ""),
                "title": Text(title if len(title) <= width else title[: width - 1] + "…"),
                "type": r["type"],
                "domain": r["domain"],
                "status": Text(r["status"], style=STATUS_STYLE.get(r["status"], "")),
                "strategies": r["strategies"],
                "probe": Text(r["probe"], style="bold red" if flagged else ("dim" if r["probe"] == "not probed" else "")),
            }
            table.add_row(*(cells[key] for key, _ in (NARROW_COLUMNS if self.narrow else COLUMNS)), key=r["id"])
        self.rows, self._total = rows, total
        if keep and any(r["id"] == keep for r in rows):
            table.move_cursor(row=table.get_row_index(keep))
        self._update_count(len(rows), total)

    def _update_count(self, shown: int, total: int) -> None:
        flagged = sum(r["recognized"] for r in self.rows)
        if total == 0:
            text = "No cases in the store yet. Press n to create one."
        elif shown == total:
            text = f"{total} case{'s' if total != 1 else ''}"
        else:
            text = f"{shown} of {total} cases match" + ("" if shown else " — press x to clear the filters")
        if flagged:
            text += f" · ⚑ {flagged} recognized by a contamination probe: transpose or exclude"
        self.query_one("#case-count", Static).update(text)

    # -- filters and search -----------------------------------------------------------------------

    @on(Select.Changed, ".case-filter")
    def _filter_changed(self) -> None:
        self.refresh_list()

    @on(Input.Changed, "#case-search")
    def _search_changed(self) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DELAY, self.refresh_list)

    @on(Input.Submitted, "#case-search")
    def _search_submitted(self) -> None:
        self.refresh_list()
        self.action_focus_list()

    def action_focus_search(self) -> None:
        self.query_one("#case-search", Input).focus()

    def action_focus_list(self) -> None:
        self.query_one("#case-table", DataTable).focus()

    def action_clear_filters(self) -> None:
        with self.prevent(Select.Changed, Input.Changed):
            for name in FILTERS:
                self.query_one(f"#filter-{name}", Select).clear()
            self.query_one("#case-search", Input).value = ""
        self.refresh_list()

    def action_refresh(self) -> None:
        self.refresh_list()

    # -- opening cases ----------------------------------------------------------------------------

    def selected_case_id(self) -> str | None:
        table = self.query_one("#case-table", DataTable)
        if table.row_count == 0:
            return None
        try:
            row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except Exception:  # no valid cursor cell (empty table)
            return None
        return row_key.value

    @on(DataTable.RowSelected, "#case-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_case(event.row_key.value)

    def action_open_selected(self) -> None:
        case_id = self.selected_case_id()
        if case_id:
            self.open_case(case_id)

    def open_case(self, case_id: str) -> None:
        from screens.case_editor import CaseEditorScreen
        from workbench.cases.listing import case_detail
        from workbench.cases import Case

        detail = case_detail(self.app.db, case_id)
        if detail is None:
            self.notify(f"No case '{case_id}' in the store", severity="error")
            return
        editor = CaseEditorScreen(Case.from_dict(detail["case"]), detail["source_path"],
                                  probe_records=detail["probes"])
        self.app.push_screen(editor, callback=self._editor_closed)

    def action_new_case(self) -> None:
        from screens.case_editor import CaseEditorScreen

        self.app.push_screen(CaseEditorScreen(), callback=self._editor_closed)

    def _editor_closed(self, case_id: str | None) -> None:
        if case_id:  # the list reloads when this screen resumes; land on the edited case
            self._select_after_reload = case_id

    # -- contamination probes ---------------------------------------------------------------------

    def action_probe_selected(self) -> None:
        case_id = self.selected_case_id()
        if case_id is None:
            self.notify("Choose a case to probe first", severity="warning")
            return
        self._open_probe([case_id])

    def action_probe_ready(self) -> None:
        from workbench.cases.listing import case_summaries

        ready = [c["id"] for c in case_summaries(self.app.db, status="ready")]
        if not ready:
            self.notify("No case is marked ready; a probe of all ready cases has nothing to do", severity="warning")
            return
        self._open_probe(ready)

    def _open_probe(self, case_ids: list[str]) -> None:
        from screens.probe_dialog import ProbeScreen  # the dialog's litellm-facing parts load on first use

        self.app.push_screen(ProbeScreen(case_ids), callback=self._probe_closed)

    def _probe_closed(self, _result=None) -> None:
        self.refresh_list()
