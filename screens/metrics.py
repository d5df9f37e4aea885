"""The Metrics section: one study's tables (hindsight's: Tables 1-4, agreement, decision quality,
calibration and probes), plots and drill-downs.

Pick a study at the top; its protocol's analysis (`StudyProtocol.analysis()`, asked through the
registry) runs in a thread worker (its own store connection; embeddings come from the store cache, so
a second look embeds nothing) and every panel is filled from the same rendered tables the batch
`metrics` command prints and the report writes. A protocol with no such analysis shows its `metrics`
text here, and its own results screen with o. Each panel shows mean [95% CI]
cells; enter on a number opens the items and scores behind it. A blinded
study shows only condition-free panels, and its drill-downs show who scored,
not what. Plots: means with CI bars, the effect-size forest plot, agreement
by criterion, the reliability diagram and a run's DQ-1 similarity heatmap.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Select, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from screens.metrics_drill import DrillDownScreen
from screens.protocol_panels import open_panel, study_panels
from screens.metrics_plots import (
    MetricPlot,
    agreement_painter,
    forest_painter,
    heatmap_painter,
    means_painter,
    reliability_painter,
)
from screens.widgets.section import SectionScreen, chosen_study
from workbench.metrics.render import RenderedTable, base_id
from workbench.safe_text import for_terminal

# Which tab each rendered table goes to.
TAB_OF = {
    "overall": "tab-tables", "table1": "tab-tables", "table2": "tab-tables", "table3": "tab-tables",
    "table4": "tab-tables", "predictions": "tab-tables",
    "agreement": "tab-agreement", "judges": "tab-agreement", "panel": "tab-agreement",
    "judge_errors": "tab-agreement", "audit": "tab-agreement",
    "dq": "tab-dq", "dq_baseline": "tab-dq",
    "calibration": "tab-calibration", "reliability": "tab-calibration",
    "probes": "tab-tables", "counts": "tab-counts",
}


@dataclass
class MetricsResult:
    study_id: str
    analysis: object            # None: the protocol has no analysis for this section (`text` is its metrics)
    tables: list[RenderedTable]
    door: object = None         # the protocol's MetricsAnalysis, which made `analysis`
    text: str = ""


class MetricPanel(Vertical):
    """One rendered table: its title, the cells in a DataTable (enter on a cell drills down), its notes."""

    def __init__(self, table: RenderedTable) -> None:
        super().__init__(id=f"panel-{table.id}", classes="metric-panel")
        self.table = table

    def compose(self) -> ComposeResult:
        yield Static(self.table.title, classes="panel-title", markup=False)
        yield DataTable(id=f"table-{self.table.id}", classes="metric-table", cursor_type="cell",
                        zebra_stripes=True)
        if self.table.notes:
            yield Static("\n".join(f"* {n}" for n in self.table.notes), classes="panel-notes", markup=False)

    def on_mount(self) -> None:
        self._filled_for = 0
        self._fill(self.app.size.width - PANEL_CHROME)  # a first guess; on_resize refits to the real width

    def on_resize(self) -> None:
        if self.size.width and self.size.width != self._filled_for:
            self._fill(self.size.width)

    def _fill(self, width: int) -> None:
        """Fill the table so every column fits `width`: the first (label) column gives way and wraps,
        the numbers, targets and verdicts to its right stay whole (issue 24: Target/Result were cut)."""
        self._filled_for = width
        dt = self.query_one(DataTable)
        cursor = dt.cursor_coordinate
        dt.clear(columns=True)
        label_width = label_column_width(self.table, width)
        for k, name in enumerate(self.table.columns):
            dt.add_column(name, width=label_width if k == 0 else None)
        for row in self.table.rows:  # cells may quote items and replies: plain text, never markup
            dt.add_row(*(Text(for_terminal(cell)) if isinstance(cell, str) else cell for cell in row),
                       height=None if label_width else 1)
        if self.table.rows:
            dt.cursor_coordinate = cursor


DQ3_HINT = ("DQ-3 (concern coverage): a has a model assess every run's concerns (the study's first judge, as "
            "`metrics STUDY --assess-concerns`); k records a rater's concern file (`--record-concerns FILE "
            "--rater NAME`). The DQ tables below then include DQ-3 and the weighted score.")
NO_STUDIES = [("no study", ("no study",))]  # the one option while there is none (its value is no study id)
NOT_THIS_PROTOCOL = "{name}: this protocol's metrics are all on the Tables tab (as `metrics` prints them)."

# The plots as they stand with no study shown (a study is being computed, or has none of these).
EMPTY_PLOTS = (("#plot-means", "Means"), ("#plot-forest", "Effect sizes"), ("#plot-agreement", "Agreement"),
               ("#plot-reliability", "Reliability diagram"), ("#plot-heatmap", "Similarity"))
EMPTY_PAINTERS = {
    "#plot-means": lambda: means_painter([])[0], "#plot-forest": lambda: forest_painter([]),
    "#plot-agreement": lambda: agreement_painter([])[0], "#plot-reliability": lambda: reliability_painter([]),
    "#plot-heatmap": lambda: heatmap_painter([]),
}


PANEL_CHROME = 6  # the panel's margins and the scroll bar beside it
CELL_PADDING = 2  # a DataTable cell's padding, left and right
LABEL_MIN = 14


def label_column_width(table: RenderedTable, width: int) -> int | None:
    """The first column's width when the whole table would be wider than `width`, else None (natural)."""
    def natural(k: int) -> int:
        return max([len(table.columns[k]), *(len(str(r[k])) for r in table.rows if k < len(r))])

    others = sum(natural(k) + CELL_PADDING for k in range(1, len(table.columns)))
    label = natural(0) if table.columns else 0
    if label + CELL_PADDING + others <= width:
        return None
    return max(LABEL_MIN, width - others - CELL_PADDING)


class MetricsScreen(SectionScreen):
    """Tables, agreement, decision quality, calibration and probes of the selected study."""

    SECTION_ID = "metrics"
    SUB_TITLE = "Metrics"
    CSS_PATH = "styles/metrics.tcss"
    BINDINGS = [
        Binding("o", "protocol_panel", "Open panel", id="metrics.protocol_panel",
                tooltip="Open the study's protocol screen (a faultline debate, an M11 dashboard, a calibration "
                        "result); hindsight studies have this section as theirs"),
        Binding("r", "recompute", "Recompute", id="metrics.recompute",
                tooltip="Read the study again from the store and recompute every table"),
        Binding("s", "focus_study", "Study", id="metrics.study", tooltip="Choose another study"),
        Binding("c", "focus_compare", "Compare", id="metrics.compare",
                tooltip="Add Table 4 comparisons, e.g. C1:B1:anticipation (enter to apply)"),
        Binding("enter", "drill", "Items behind", id="metrics.drill", show=True,
                tooltip="Show the items, scores and verdicts behind the number under the cursor"),
        Binding("right_square_bracket", "tab(1)", "Next tab", id="metrics.next_tab",
                tooltip="The next tab: tables and probes, agreement, decision quality, calibration, counts"),
        Binding("left_square_bracket", "tab(-1)", "Previous tab", id="metrics.prev_tab", show=False,
                tooltip="The previous tab"),
        Binding("a", "assess_concerns", "Assess DQ-3", id="metrics.assess_concerns",
                tooltip="DQ-3: have a model judge each run's concern coverage (the study's first judge), as "
                        "`metrics STUDY --assess-concerns`; runs already assessed are kept"),
        Binding("k", "record_concerns", "Record DQ-3", id="metrics.record_concerns", show=False,
                tooltip="DQ-3: store a rater's concern scores from a file, as `metrics STUDY --record-concerns "
                        "FILE --rater NAME`"),
        Binding("w", "save", "Save", id="metrics.save",
                tooltip="Save every table (Markdown and CSV) and every plot (as text) to a folder you choose"),
        Binding("escape", "leave_input", "Leave input", id="metrics.leave_input", show=False,
                tooltip="Leave the compare input (or the study list) for the tables"),
    ]
    PALETTE_SKIP = {"leave_input"}
    TABS = ("tab-tables", "tab-agreement", "tab-dq", "tab-calibration", "tab-counts")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_input":
            return self.focused is not None and self.focused.id in ("compare-input", "study-select")
        if action == "save":
            return self.result is not None
        if action in ("assess_concerns", "record_concerns"):  # the protocol's analysis has DQ-3 (hindsight)
            return None if self.concerns_busy else hasattr(self._door(), action)
        if action == "protocol_panel":
            return bool(self.study_id and study_panels(self.app.db, self.study_id).get("metrics"))  # hidden if none
        return True

    def action_protocol_panel(self) -> None:
        if self.study_id:
            open_panel(self.app, self.study_id, "metrics")

    def __init__(self, context=None) -> None:
        super().__init__()
        self.result: MetricsResult | None = None
        self.shown: str | None = None  # the study whose panels are on screen (set once they all are)
        self.shows = 0                 # how many times panels were (re)built: lets a test wait for a recompute
        self.study_id: str | None = None
        self.following: str | None = None  # the study chosen in Studies that this section follows
        self.followed: str | None = None   # the last one followed (a study chosen there once is followed once)
        self.computing: str | None = None  # the study whose worker is computing
        self.concerns_busy = False         # a DQ-3 assessment or recording is under way
        self.comparisons: list = []
        self.protocols: dict[str, str] = {}  # study id -> its protocol's name (from the study list)

    def compose_section(self) -> ComposeResult:
        with Horizontal(id="metrics-bar"):
            # no blank row: a prompt row is no study one could choose (it was, and errored)
            yield Select(NO_STUDIES, id="study-select", allow_blank=False, compact=True,
                         tooltip="The study to analyse")
            yield Input(placeholder="compare A:B:METRIC, ... (c)", id="compare-input", compact=True)
        yield Static("Pick a study.", id="metrics-status", markup=False)
        with TabbedContent(id="metrics-tabs"):
            with TabPane("Tables", id="tab-tables"):
                with VerticalScroll(id="scroll-tables", classes="metric-scroll"):
                    with Horizontal(classes="plot-row"):
                        with Vertical(classes="plot-box"):
                            yield MetricPlot(id="plot-means", classes="metric-plot")
                            yield Static("", id="plot-means-caption", classes="plot-caption", markup=False)
                        with Vertical(classes="plot-box"):
                            yield MetricPlot(id="plot-forest", classes="metric-plot")
                            yield Static("", id="plot-forest-caption", classes="plot-caption", markup=False)
            with TabPane("Agreement", id="tab-agreement"):
                with VerticalScroll(id="scroll-agreement", classes="metric-scroll"):
                    with Horizontal(classes="plot-row"):
                        with Vertical(classes="plot-box"):
                            yield MetricPlot(id="plot-agreement", classes="metric-plot")
                            yield Static("", id="plot-agreement-caption", classes="plot-caption", markup=False)
            with TabPane("Decision quality", id="tab-dq"):
                with VerticalScroll(id="scroll-dq", classes="metric-scroll"):
                    yield Static(DQ3_HINT, id="dq3-hint", markup=False)
                    yield Select([], prompt="run for the similarity heatmap", id="dq-run", compact=True)
                    with Horizontal(classes="plot-row"):
                        with Vertical(classes="plot-box"):
                            yield MetricPlot(id="plot-heatmap", classes="metric-plot")
                            yield Static("", id="plot-heatmap-caption", classes="plot-caption", markup=False)
            with TabPane("Calibration", id="tab-calibration"):
                with VerticalScroll(id="scroll-calibration", classes="metric-scroll"):
                    with Horizontal(classes="plot-row"):
                        with Vertical(classes="plot-box"):
                            yield MetricPlot(id="plot-reliability", classes="metric-plot")
                            yield Static("", id="plot-reliability-caption", classes="plot-caption", markup=False)
            with TabPane("Counts", id="tab-counts"):
                yield VerticalScroll(id="scroll-counts", classes="metric-scroll")

    def on_mount(self) -> None:
        self.load_studies()

    def on_screen_resume(self) -> None:
        """Back in Metrics: the study list again (a study unblinded meanwhile is no longer `frozen`), and the
        study chosen in Studies if another one was chosen there."""
        if self.is_mounted:
            self.load_studies()

    # -- studies ------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="metrics-studies", exit_on_error=False)
    def load_studies(self) -> list[dict]:
        from workbench.metrics.ratings import study_list

        return study_list(self.app.db)

    def _show_studies(self, studies: list[dict]) -> None:
        select = self.query_one("#study-select", Select)
        options = []
        self.protocols = {s["id"]: s["protocol"] for s in studies}
        for s in studies:  # the status is the core's one definition (store.studies.study_status)
            options.append((f"{s['id']} ({s['protocol']}, {s['status_text']})", s["id"]))
        ids = [s["id"] for s in studies]
        chosen = chosen_study(self.app)
        if chosen in ids and chosen != self.followed:  # newly chosen in Studies: follow it, and say so
            self.following = self.followed = chosen
            target = chosen
        else:
            target = self.study_id if self.study_id in ids else (ids[0] if ids else None)
        with self.prevent(Select.Changed):
            select.set_options(options or NO_STUDIES)
            if target:
                select.value = target
        if not studies:
            self.study_id = None
            self._clear("No study in the store yet: create one with `workbench --batch study create FILE`.")
            return
        self._study_changed_to(target)

    @on(Select.Changed, "#study-select")
    def _study_changed(self, event: Select.Changed) -> None:
        self._study_changed_to(event.value)

    def _study_changed_to(self, value) -> None:
        if not isinstance(value, str):
            return  # Select.NULL (no study) is no study id
        if value == self.study_id and (self.result is not None or self.computing == value):
            return
        if value != self.following:
            self.following = None
        self.study_id = value
        self.compute()

    # -- computing ----------------------------------------------------------------------------------

    def compute(self) -> None:
        """Clear every panel of the study shown before, then compute the chosen one: nothing of one study
        stays on screen under another's name."""
        if not self.study_id:
            return
        self._clear(f"Computing {self.study_id} ...")
        self.computing = self.study_id
        self._compute(self.study_id, self.protocols.get(self.study_id, ""), list(self.comparisons))

    def _clear(self, status: str) -> None:
        self.result = None
        self.shown = None
        self.query(".metric-panel").remove()
        for selector, title in EMPTY_PLOTS:
            self.plot(selector, title, EMPTY_PAINTERS[selector]())
        with self.prevent(Select.Changed):
            self.query_one("#dq-run", Select).set_options([])
        self._status(status)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="metrics", exit_on_error=False)
    def _compute(self, study_id: str, protocol_name: str, comparisons: list) -> MetricsResult:
        from workbench.metrics.embeddings import progress_text
        from workbench.paths import open_workbench_store
        from workbench.protocol.registry import get

        def tell(step: str, done: int, total: int) -> None:  # from this thread: the status line moves on
            self.app.call_from_thread(self._status, f"Computing {study_id}: {progress_text(step, done, total)} ...")

        protocol = get(protocol_name)
        door = protocol.analysis()
        db = open_workbench_store(self.app.db_path, migrate=False)  # this thread's own connection
        try:
            if door is None:
                return MetricsResult(study_id, None, [], text=protocol.metrics(db, study_id, {}).text)
            analysis = door.analyze(db, study_id, comparisons=comparisons, progress=tell)
        finally:
            db.close()
        return MetricsResult(study_id, analysis, door.tables(analysis), door)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if group == "metrics-studies" and event.state == WorkerState.SUCCESS:
            self._show_studies(event.worker.result)
        elif group == "metrics" and event.state == WorkerState.SUCCESS:
            result = event.worker.result
            if result.study_id == self.study_id:
                self.computing = None
                await self._show(result)
        elif group == "metrics-concerns" and event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self.concerns_busy = False
            event.stop()
            if event.state == WorkerState.SUCCESS:
                self.notify(event.worker.result, title="DQ-3", timeout=15)
                self.compute()  # the DQ tables with the new concern scores
            else:
                self.notify(f"DQ-3: {event.worker.error}", title="DQ-3", severity="error", timeout=15)
                self._status(f"{self.study_id}: DQ-3 not done: {event.worker.error}")
            self.refresh_bindings()
        elif group in ("metrics", "metrics-studies") and event.state == WorkerState.ERROR:
            self.computing = None
            self._status(f"Could not compute the metrics of {self.study_id}: {event.worker.error}")

    # -- showing ------------------------------------------------------------------------------------

    def _status(self, text: str) -> None:
        if self.following and self.following == self.study_id:
            text = f"{text}  (chosen in Studies)"
        self.query_one("#metrics-status", Static).update(text)

    async def _show(self, result: MetricsResult) -> None:
        self.result = result
        self.shown = None
        analysis = result.analysis
        await self.query(".metric-panel").remove()
        if analysis is None:
            await self._show_text(result)
            return
        plot_data = result.door.plots
        self._status(f"{analysis.data.study_id}: {analysis.status_line()}  "
                     f"freeze hash {(analysis.data.freeze_hash or '-')[:12]}")
        for table in result.tables:
            tab = TAB_OF.get(base_id(table.id), "tab-counts")  # an evaluator's block: table1-e2 is a table1
            scroll = self.query_one(f"#scroll-{tab[4:]}", VerticalScroll)
            await scroll.mount(MetricPanel(table))
        blinded = analysis.blinded
        self.plot("#plot-means", "Overall means, 95% CI (blinded)" if blinded else "Means per condition, 95% CI",
                  *means_painter(plot_data.means_series(analysis)))
        self.plot("#plot-forest", "Effect sizes (blinded: none)" if blinded else "Effect sizes, Cohen's d, 95% CI",
                  forest_painter(plot_data.forest_series(analysis)))
        self.plot("#plot-agreement", "Inter-rater kappa by metric and criterion",
                  *agreement_painter(plot_data.agreement_series(analysis)))
        judge, points = plot_data.reliability_series(analysis)
        self.plot("#plot-reliability", f"Reliability diagram: {judge}" if judge else "Reliability diagram",
                  reliability_painter(points))
        runs = plot_data.heatmap_runs(analysis)
        run_select = self.query_one("#dq-run", Select)
        run_select.set_options(runs)
        if runs:
            run_select.value = runs[0][1]
        else:
            self.plot("#plot-heatmap", "DQ-1 similarity (blinded: none)" if blinded else "DQ-1 similarity",
                      heatmap_painter([]))
        self.shown = result.study_id
        self.shows += 1
        self.refresh_bindings()  # "save" needs shown results
        if self.focused is None or self.focused.id == "study-select":
            self.focus_first_table(quiet=True)  # the keyboard path starts on the numbers: arrows, then enter

    async def _show_text(self, result: MetricsResult) -> None:
        """A protocol with no analysis for this section: its `metrics` text, and empty plots."""
        name = self.protocols.get(result.study_id, "")
        own = " · o opens its results screen" if study_panels(self.app.db, result.study_id).get("metrics") else ""
        self._status(f"{result.study_id} ({name}): its metrics as `workbench --batch metrics {result.study_id}` "
                     f"prints them{own}")
        for tab in ("tables", "agreement", "dq", "calibration", "counts"):  # every tab says what it holds
            text = for_terminal(result.text) if tab == "tables" else NOT_THIS_PROTOCOL.format(name=name)
            await self.query_one(f"#scroll-{tab}", VerticalScroll).mount(
                Static(text, classes="metric-panel", markup=False))
        self.shown = result.study_id
        self.shows += 1
        self.refresh_bindings()

    @on(Select.Changed, "#dq-run")
    def _run_changed(self, event: Select.Changed) -> None:
        if self.result is None or self.result.door is None or not isinstance(event.value, str):
            return
        plot_data = self.result.door.plots
        label = next((lab for lab, rid in plot_data.heatmap_runs(self.result.analysis) if rid == event.value), "")
        self.plot("#plot-heatmap", f"DQ-1 similarity: {label}",
                  heatmap_painter(plot_data.heatmap_matrix(self.result.analysis, str(event.value))))

    def plot(self, selector: str, title: str, painter, caption: str = "") -> None:
        self.query_one(selector, MetricPlot).show(title, painter)
        self.query_one(f"{selector}-caption", Static).update(caption)

    # -- comparisons ----------------------------------------------------------------------------------

    @on(Input.Submitted, "#compare-input")
    def _compare(self, event: Input.Submitted) -> None:
        parts = [p for p in event.value.replace(",", " ").split() if p]
        door = self._door()
        if door is None:
            if parts:
                self.notify("This study's protocol takes no comparisons.", title="Compare", severity="warning")
            return
        try:
            comparisons = [door.parse_comparison(p) for p in parts]
        except ValueError as exc:
            self.notify(str(exc), title="Compare", severity="error")
            return
        if self.result is not None and self.result.analysis is not None and self.result.study_id == self.study_id:
            try:
                door.check_comparisons(None, self.result.study_id, comparisons, self.result.analysis)
            except ValueError as exc:
                self.notify(str(exc), title="Compare", severity="warning")
                return
        self.comparisons = comparisons
        self.compute()

    def _door(self):
        """The study's protocol's MetricsAnalysis (None: it has none), asked of the registry."""
        from workbench.protocol.registry import UnknownProtocol, get

        name = self.protocols.get(self.study_id or "")
        try:
            return get(name).analysis() if name else None
        except UnknownProtocol:
            return None

    # -- drill-down -----------------------------------------------------------------------------------

    def _focused_cell(self) -> tuple[RenderedTable, int, int] | None:
        focused = self.focused
        if not isinstance(focused, DataTable) or not isinstance(focused.parent, MetricPanel):
            return None
        coord = focused.cursor_coordinate
        return focused.parent.table, coord.row, coord.column

    def action_drill(self) -> None:
        cell = self._focused_cell()
        if cell is None:
            self.focus_first_table()
            return
        self.drill(*cell)

    def focus_first_table(self, *, quiet: bool = False) -> bool:
        """Put the cursor in the active tab's first table (enter then drills into the number under it)."""
        tabs = self.query_one("#metrics-tabs", TabbedContent)
        tables = list(self.query_one(f"#{tabs.active}").query(".metric-table").results(DataTable))
        if not tables:
            if not quiet:
                self.notify("No table here yet.", title="Items behind")
            return False
        tables[0].focus(scroll_visible=not quiet)  # on arrival the plots above the tables stay in view
        return True

    def action_tab(self, step: int) -> None:
        tabs = self.query_one("#metrics-tabs", TabbedContent)
        i = self.TABS.index(tabs.active) if tabs.active in self.TABS else 0
        tabs.active = self.TABS[(i + step) % len(self.TABS)]

    @on(DataTable.CellSelected, ".metric-table")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        panel = event.data_table.parent
        if isinstance(panel, MetricPanel):
            self.drill(panel.table, event.coordinate.row, event.coordinate.column)

    def drill(self, table: RenderedTable, row: int, col: int) -> None:
        if self.result is None or self.result.door is None:
            return
        ref = table.ref(row, col)
        if ref is None:
            self.notify("No items sit behind this number.", title="Items behind")
            return
        try:
            detail = self.result.door.drilldown(self.result.analysis, ref)
        except ValueError as exc:
            self.notify(str(exc), title="Items behind", severity="warning")
            return
        origin = f"{table.title} / {table.rows[row][0]}"
        if 0 < col < len(table.columns):
            origin += f" / {table.columns[col]} = {table.rows[row][col]}"
        self.app.push_screen(DrillDownScreen(detail, origin))

    # -- actions --------------------------------------------------------------------------------------

    def action_recompute(self) -> None:
        self.load_studies()
        self.compute()

    def action_focus_study(self) -> None:
        self.query_one("#study-select", Select).focus()

    def action_focus_compare(self) -> None:
        self.query_one("#compare-input", Input).focus()

    def action_leave_input(self) -> None:
        if not self.focus_first_table(quiet=True):
            self.query_one("#metrics-tabs", TabbedContent).focus()

    def action_save(self) -> None:
        if self.result is not None:
            self._save_after_asking(self.result)

    @work(exclusive=True, group="metrics-save", exit_on_error=False)
    async def _save_after_asking(self, result: MetricsResult) -> None:
        """Ask for the folder (proposed: the study's `metrics-screen` folder under the output folder), ask again
        before writing into one that holds files, then write what is on screen."""
        from screens.ask_dialog import AskDialog
        from screens.folder_ask import ask_to_write
        from workbench.files.defaults import OUTPUT_ENV, default_output

        study_id = result.study_id
        folder = await self.app.push_screen_wait(AskDialog(
            f"Save the metrics of {study_id}",
            "The folder to write: tables.md, one CSV per table and each plot as text. A folder that holds files "
            f"is asked about first; only files the workbench wrote there are ever replaced. (The proposed folder "
            f"is under ${OUTPUT_ENV}, or your documents folder.)",
            value=str(default_output(study_id, "metrics-screen"))))
        if not folder or result is not self.result:
            return
        replace = await ask_to_write(self, folder)
        if replace is not None and result is self.result:
            self._save_to(folder, replace)

    def _save_to(self, folder: str, replace: bool = False) -> None:
        from workbench.files import WriteError
        from workbench.metrics.saving import save_metrics
        from workbench.simmodel.label import is_simulated
        from workbench.studies.lookup import load_study

        if self.result is None:
            return
        study_id = self.result.study_id
        plots = {plot.id.removeprefix("plot-"): plot.as_text() for plot in self.query(MetricPlot)}
        try:
            written = save_metrics(folder, study_id, self.result.tables, plots, text=self.result.text,
                                   replace=replace,
                                   simulated=is_simulated(load_study(self.app.db, study_id)["definition"]))
        except WriteError as exc:
            self.notify(f"nothing saved: {exc}", title="Save", severity="error", timeout=10)
            return
        self.notify(f"saved {len(written)} files to {folder}", title="Save")

    # -- DQ-3 concerns ----------------------------------------------------------------------------------

    def action_assess_concerns(self) -> None:
        if self.study_id and not self.concerns_busy:
            self.concerns_busy = True
            self.refresh_bindings()
            self._status(f"{self.study_id}: assessing DQ-3 concern coverage ...")
            self._assess(self.study_id)

    @work(thread=True, group="metrics-concerns", exit_on_error=False)
    def _assess(self, study_id: str) -> str:
        """`metrics STUDY --assess-concerns` in a thread of its own (its own store connection and event loop):
        the same door, the same model, the same summary."""
        import asyncio

        from workbench.cli.metrics_cmd import concern_settings
        from workbench.paths import open_workbench_store
        from workbench.studies.lookup import load_study

        def tell(line: str) -> None:
            self.app.call_from_thread(self._status, f"{study_id}: DQ-3 {line}")

        db = open_workbench_store(self.app.db_path, migrate=False)
        try:
            settings = concern_settings(load_study(db, study_id)["definition"], db)
            summary = asyncio.run(self._door().assess_concerns(db, self.app.db_path, study_id, settings,
                                                               progress=tell))
        finally:
            db.close()
        text = f"concerns: {summary.text()}"
        if summary.runs_asked and not summary.runs_assessed:
            text += "; DQ-3 stays undefined (no reply could be read; check the model, or record concerns with k)"
        return text

    def action_record_concerns(self) -> None:
        if self.study_id and not self.concerns_busy:
            self._record_after_asking(self.study_id)

    @work(exclusive=True, group="metrics-concerns-ask", exit_on_error=False)
    async def _record_after_asking(self, study_id: str) -> None:
        from screens.ask_dialog import AskDialog

        path = await self.app.push_screen_wait(AskDialog(
            f"Record DQ-3 concerns of {study_id}", "The concern file to read (as `metrics STUDY "
            "--record-concerns FILE`):"))
        if not path:
            return
        rater = await self.app.push_screen_wait(AskDialog(f"Record DQ-3 concerns of {study_id}",
                                                          "The rater whose concern scores these are:"))
        if rater:
            self.concerns_busy = True
            self.refresh_bindings()
            self._record(study_id, path, rater)

    @work(thread=True, group="metrics-concerns", exit_on_error=False)
    def _record(self, study_id: str, path: str, rater: str) -> str:
        from workbench.paths import open_workbench_store

        db = open_workbench_store(self.app.db_path, migrate=False)
        try:
            n = self._door().record_concerns(db, study_id, rater, path)
        finally:
            db.close()
        return f"recorded {n} concern score(s) by {rater} for study {study_id}"

