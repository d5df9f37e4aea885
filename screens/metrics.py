"""The Metrics section: a frame around the tabs the chosen study's protocol names.

The frame is the same for every protocol: the study picker, the study's marks (SIMULATED, a dry run,
EXPLORATORY, evaluators a pre-registered rule excluded) above every tab, the compare input (for a protocol
that takes comparisons), the save key and the drill-down key. The tabs are the protocol's
(`StudyProtocol.metrics_tabs`, laid out by `workbench.exports.metrics_files.screen_tabs`): hindsight's
tables, agreement, decision quality, topology, calibration and counts from its analysis, with plots and
drill-downs; the other protocols' report sections, their tables read from the Markdown the report prints;
then, for every protocol with defining steps, the treatment fidelity table.
Everything is computed in a thread worker with its own store connection (embeddings come from the store's
cache, so a second look embeds nothing). A key a tab does not use is off there: enter only where a table
has items behind its numbers, a and k only on the tab that names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Select, Static, TabbedContent, Tabs
from textual.worker import Worker, WorkerState

from screens.metrics_drill import DrillDownScreen
from screens.metrics_plots import (
    MetricPlot,
    agreement_painter,
    forest_painter,
    heatmap_painter,
    means_painter,
    reliability_painter,
)
from screens.metrics_tab import MetricPanel, tab_pane
from screens.protocol_panels import open_panel, study_panels
from screens.widgets.section import SectionScreen
from screens.widgets.study_picker import StudyPicker
from workbench.metrics.render import RenderedTable


@dataclass
class MetricsResult:
    study_id: str
    analysis: object            # the protocol's analysis (None: it has none; its tabs are its report's)
    tabs: list                  # workbench.exports.metrics_files.ScreenTab, in order
    door: object = None         # the protocol's MetricsAnalysis, which made `analysis`
    marks: list[str] = field(default_factory=list)
    marks_line: str = ""
    status: str = ""
    definition: dict = field(default_factory=dict)  # the study's (what its saved files' banner says)

    @property
    def tables(self) -> list[RenderedTable]:
        """Every table of every tab, as the panels show them."""
        return [rendered(t) for tab in self.tabs for t in tab.tables]


def rendered(table) -> RenderedTable:
    from workbench.exports.metrics_files import rendered as as_rendered

    return as_rendered(table)


# the compare input's hints fit its 26 columns at 80x24 (issue 43's walk: both were cut there)
COMPARE_HINT = "compare A:B:METRIC (c)"
NO_COMPARISONS = "no comparisons here"


class MetricsScreen(SectionScreen):
    """The chosen study's metrics, in the tabs its protocol names."""

    SECTION_ID = "metrics"
    SUB_TITLE = "Metrics"
    CSS_PATH = "styles/metrics.tcss"
    BINDINGS = [
        Binding("o", "protocol_panel", "Open panel", id="metrics.protocol_panel",
                tooltip="Open the study's protocol screen (a faultline debate, an M11 dashboard, a calibration "
                        "result), where the protocol has one"),
        Binding("r", "recompute", "Recompute", id="metrics.recompute",
                tooltip="Read the study again from the store and recompute every table"),
        Binding("s", "focus_input('study-select')", "Study", id="metrics.study", tooltip="Choose another study"),
        Binding("c", "focus_input('compare-input')", "Compare", id="metrics.compare",
                tooltip="Add comparisons, e.g. C1:B1:anticipation (enter to apply)"),
        Binding("enter", "drill", "Items behind", id="metrics.drill", show=True,
                tooltip="Show the items, scores and verdicts behind the number under the cursor"),
        Binding("right_square_bracket", "tab(1)", "Next tab", id="metrics.next_tab",
                tooltip="The next of the study's tabs"),
        Binding("left_square_bracket", "tab(-1)", "Previous tab", id="metrics.prev_tab", show=False,
                tooltip="The previous tab"),
        Binding("a", "assess_concerns", "Assess DQ-3", id="metrics.assess_concerns",
                tooltip="DQ-3: have a model judge each run's concern coverage (the study's first judge), as "
                        "`metrics STUDY --assess-concerns`; runs already assessed are kept"),
        Binding("k", "record_concerns", "Record DQ-3", id="metrics.record_concerns", show=False,
                tooltip="DQ-3: store a rater's concern scores from a file, as `metrics STUDY --record-concerns "
                        "FILE --rater NAME`"),
        Binding("w", "save", "Save", id="metrics.save",
                tooltip="Save every table (tables.md and one CSV each, with the study's marks), every plot and "
                        "the `metrics --csv` rows to a folder you choose"),
        Binding("escape", "leave_input", "Leave input", id="metrics.leave_input", show=False,
                tooltip="Leave the compare input (or the study list) for the tables"),
    ]
    PALETTE_SKIP = {"leave_input"}
    INPUTS = ("compare-input", "study-select")
    # below 100 columns the footer keeps these (Recompute is in help and the palette): with enter's drill-down
    # the full set overran 80 columns, cutting "Next tab" and dropping `w` (issue 43's walk)
    NARROW_KEYS = {"protocol_panel", "focus_input", "drill", "tab", "save"}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_input":
            return self.focused is not None and self.focused.id in self.INPUTS
        if action == "save":
            return self.result is not None
        if action == "focus_input" and parameters == ("compare-input",):
            return self._takes_comparisons()
        if action == "drill":  # only where a table of this tab has items behind its numbers
            tab = self._active_tab()
            return tab is not None and any(getattr(t, "refs", None) for t in tab.tables)
        if action in ("assess_concerns", "record_concerns"):  # the tab that names them (hindsight's DQ)
            tab = self._active_tab()
            if tab is None or action not in tab.tab.keys:
                return False
            return None if self.concerns_busy else True
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
        self.computing: str | None = None  # the study whose worker is computing
        self.concerns_busy = False         # a DQ-3 assessment or recording is under way
        self.comparisons: list = []
        self.protocols: dict[str, str] = {}  # study id -> its protocol's name (from the study list)
        self.statuses: dict[str, str] = {}   # study id -> its status, as every list says it
        self._clearing = None                # the removal of the last study's tabs, under way

    def compose_section(self) -> ComposeResult:
        with Horizontal(id="metrics-bar"):
            yield StudyPicker(tooltip="The study to analyse")
            yield Input(placeholder=COMPARE_HINT, id="compare-input", compact=True)
        yield Static("", id="metrics-marks", markup=False)
        yield Static("Pick a study.", id="metrics-status", markup=False)
        yield TabbedContent(id="metrics-tabs")

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
        self.protocols = {s["id"]: s["protocol"] for s in studies}
        self.statuses = {s["id"]: s["status_text"] for s in studies}
        target = self.query_one(StudyPicker).show(studies, self.study_id)
        if not studies:
            self.study_id = None
            self._clear("No study in the store yet: create one with `workbench --batch study create FILE`.")
            return
        self._study_changed_to(target)

    @on(Select.Changed, "#study-select")
    def _study_changed(self, event: Select.Changed) -> None:
        self._study_changed_to(StudyPicker.study_of(event.value))

    def _study_changed_to(self, value: str | None) -> None:
        if value is None or (value == self.study_id and (self.result is not None or self.computing == value)):
            return
        if value != self.study_id:
            self.comparisons = []  # one study's comparisons name its conditions
        self.study_id = value
        self._set_compare_input()
        self.compute()

    # -- computing ----------------------------------------------------------------------------------

    def compute(self) -> None:
        """Clear every tab of the study shown before, then compute the chosen one: nothing of one study
        stays on screen under another's name."""
        if not self.study_id:
            return
        self._clear(f"Computing {self.study_id} ...")
        self.computing = self.study_id
        self._compute(self.study_id, self.protocols.get(self.study_id, ""), list(self.comparisons))

    def _clear(self, status: str) -> None:
        self.result = None
        self.shown = None
        self._clearing = self.query_one("#metrics-tabs", TabbedContent).clear_panes()
        self.query_one("#metrics-marks", Static).update("")
        self.query_one("#metrics-marks", Static).display = False
        self._status(status)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="metrics", exit_on_error=False)
    def _compute(self, study_id: str, protocol_name: str, comparisons: list) -> MetricsResult:
        from workbench.exports.metrics_files import marks_line, screen_tabs, study_marks
        from workbench.metrics.embeddings import progress_text
        from workbench.paths import open_workbench_store
        from workbench.protocol.registry import get
        from workbench.studies.lookup import load_study

        def tell(step: str, done: int, total: int) -> None:  # from this thread: the status line moves on
            self.app.call_from_thread(self._status, f"Computing {study_id}: {progress_text(step, done, total)} ...")

        protocol = get(protocol_name)
        door = protocol.analysis()
        db = open_workbench_store(self.app.db_path, migrate=False)  # this thread's own connection
        try:
            study = load_study(db, study_id)
            analysis = door.analyze(db, study_id, comparisons=comparisons, progress=tell) if door else None
            tabs = screen_tabs(db, study_id, protocol, analysis)
            marks = study_marks(db, study_id, study["definition"])
        finally:
            db.close()
        if analysis is not None:
            status = f"{study_id}: {analysis.status_line()}  freeze hash {(analysis.data.freeze_hash or '-')[:12]}"
        else:
            status = f"{study_id} ({protocol_name}): {self.statuses.get(study_id) or study.get('status', '')}"
        return MetricsResult(study_id, analysis, tabs, door, marks, marks_line(marks, study["definition"]), status,
                             study["definition"])

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if group == "metrics-studies" and event.state == WorkerState.SUCCESS:
            self._show_studies(event.worker.result)
        elif group == "metrics" and event.state == WorkerState.SUCCESS:
            result = event.worker.result
            if result.study_id == self.study_id:
                self.computing = None
                await self._show(result)
        elif group == "metrics-save" and event.state == WorkerState.SUCCESS and event.worker.result:
            self.notify(event.worker.result, title="Save")
        elif group == "metrics-save" and event.state == WorkerState.ERROR:
            self.notify(f"nothing saved: {event.worker.error}", title="Save", severity="error", timeout=10)
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
        if self.query_one(StudyPicker).follows(self.study_id):
            text = f"{text}  (chosen in Studies)"
        self.query_one("#metrics-status", Static).update(text)

    def _takes_comparisons(self) -> bool:
        from workbench.protocol.registry import UnknownProtocol, get

        name = self.protocols.get(self.study_id or "")
        try:
            return bool(name) and "compare" in get(name).metrics_options
        except UnknownProtocol:
            return False

    def _set_compare_input(self) -> None:
        """The compare input is the frame's; a protocol that takes no comparisons leaves it off, and says so."""
        box = self.query_one("#compare-input", Input)
        takes = self._takes_comparisons()
        box.disabled = not takes
        box.placeholder = COMPARE_HINT if takes else NO_COMPARISONS  # the study list names the protocol
        if not takes:
            box.value = ""

    def _active_tab(self):
        """The ScreenTab on show, or None."""
        if self.result is None:
            return None
        active = self.query_one("#metrics-tabs", TabbedContent).active
        return next((t for t in self.result.tabs if f"tab-{t.tab.id}" == active), None)

    @on(TabbedContent.TabActivated, "#metrics-tabs")
    def _tab_changed(self) -> None:
        self.refresh_bindings()  # enter, a and k follow the tab

    async def _show(self, result: MetricsResult) -> None:
        if self._clearing is not None:
            await self._clearing
            self._clearing = None
        tabs = self.query_one("#metrics-tabs", TabbedContent)
        await tabs.clear_panes()
        self.result = result
        self.shown = None
        marks = self.query_one("#metrics-marks", Static)
        marks.update(result.marks_line)
        marks.display = bool(result.marks_line)
        self._status(result.status)
        for screen_tab in result.tabs:
            await tabs.add_pane(tab_pane(screen_tab, rendered))
        if result.tabs:
            tabs.active = f"tab-{result.tabs[0].tab.id}"
        self._draw_plots(result)
        self.shown = result.study_id
        self.shows += 1
        self.refresh_bindings()  # "save" needs shown results
        if self.focused is None or self.focused.id == "study-select":
            self.focus_first_table(quiet=True)  # the keyboard path starts on the numbers: arrows, then enter

    def _draw_plots(self, result: MetricsResult) -> None:
        """The plots the tabs name, from the protocol's analysis."""
        kinds = {kind for tab in result.tabs for kind in tab.tab.plots}
        if not kinds or result.door is None:
            return
        data, analysis = result.door.plots, result.analysis
        blinded = analysis.blinded
        if "means" in kinds:
            self.plot("#plot-means", "Overall means, 95% CI (blinded)" if blinded else "Means per condition, 95% CI",
                      *means_painter(data.means_series(analysis)))
        if "forest" in kinds:
            self.plot("#plot-forest", "Effect sizes (blinded: none)" if blinded else
                      "Effect sizes, Cohen's d, 95% CI", forest_painter(data.forest_series(analysis)))
        if "agreement" in kinds:
            self.plot("#plot-agreement", "Inter-rater kappa by metric and criterion",
                      *agreement_painter(data.agreement_series(analysis)))
        if "reliability" in kinds:
            judge, points = data.reliability_series(analysis)
            self.plot("#plot-reliability", f"Reliability diagram: {judge}" if judge else "Reliability diagram",
                      reliability_painter(points))
        if "heatmap" in kinds:
            runs = data.heatmap_runs(analysis)
            run_select = self.query_one("#dq-run", Select)
            run_select.set_options(runs)
            if runs:
                run_select.value = runs[0][1]
            else:
                self.plot("#plot-heatmap", "DQ-1 similarity (blinded: none)" if blinded else "DQ-1 similarity",
                          heatmap_painter([]))

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
        tables = list(self.query_one(f"#{tabs.active}").query(".metric-table").results(DataTable)) if tabs.active else []
        if not tables:
            if not quiet:
                self.notify("No table here yet.", title="Items behind")
            return False
        tables[0].focus(scroll_visible=not quiet)  # on arrival the plots above the tables stay in view
        return True

    def action_tab(self, step: int) -> None:
        if self.result is None or not self.result.tabs:
            return
        tabs = self.query_one("#metrics-tabs", TabbedContent)
        ids = [f"tab-{t.tab.id}" for t in self.result.tabs]
        i = ids.index(tabs.active) if tabs.active in ids else 0
        tabs.active = ids[(i + step) % len(ids)]

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

    def action_focus_input(self, widget_id: str) -> None:
        """s: the study picker; c: the compare input (one of INPUTS)."""
        self.query_one(f"#{widget_id}").focus()

    def action_leave_input(self) -> None:
        """To the active tab's first table, else to the tab bar: never left in an input (issue 43: on a tab with
        no table, Esc left the focus in the compare input)."""
        if not self.focus_first_table(quiet=True):
            self.query_one("#metrics-tabs", TabbedContent).query_one(Tabs).focus()

    def action_save(self) -> None:
        if self.result is not None:
            self._save_after_asking(self.result)

    @work(exclusive=True, group="metrics-save-ask", exit_on_error=False)
    async def _save_after_asking(self, result: MetricsResult) -> None:
        """Ask for the folder (proposed: the study's `metrics-screen` folder under the output folder), ask again
        before writing into one that holds files, then write what is on screen."""
        from screens.ask_dialog import AskDialog
        from screens.folder_ask import ask_to_write
        from workbench.exports.metrics_files import screen_files
        from workbench.files.defaults import OUTPUT_ENV, default_output

        study_id = result.study_id
        folder = await self.app.push_screen_wait(AskDialog(
            f"Save the metrics of {study_id}",
            "The folder to write: tables.md, one CSV per table (the study's marks on every row), each plot as "
            "text and metrics.csv (`metrics --csv`). A folder that holds files is asked about first; only files "
            f"the workbench wrote there are ever replaced. (The proposed folder is under ${OUTPUT_ENV}, or your "
            "documents folder.)", value=str(default_output(study_id, "metrics-screen"))))
        if not folder or result is not self.result:
            return
        plots = {plot.id.removeprefix("plot-"): plot.as_text() for plot in self.query(MetricPlot)}
        replace = await ask_to_write(self, folder, screen_files(result.tabs, plots))
        if replace is not None and result is self.result:
            self._save_to(folder, result, plots, replace)

    @work(thread=True, exclusive=True, group="metrics-save", exit_on_error=False)
    def _save_to(self, folder: str, result: MetricsResult, plots: dict[str, str], replace: bool = False) -> str:
        """In a thread (`metrics --csv` computes the study again): every tab's tables, the plots and the rows."""
        from pathlib import Path

        from workbench.exports.metrics_files import csv_text, save_screen, study_metrics
        from workbench.paths import open_workbench_store

        db = open_workbench_store(self.app.db_path, migrate=False)
        try:
            doc, _ = study_metrics(db, result.study_id, csv=True)
        finally:
            db.close()
        written = save_screen(folder, result.study_id, result.tabs, plots, marks=result.marks,
                              definition=result.definition, metrics_csv=csv_text(result.study_id, doc),
                              replace=replace)
        return f"saved {len(written)} files to {Path(folder).expanduser().resolve()}"

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

