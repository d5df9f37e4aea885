"""The Studies section: the store's studies, each one's definition, freeze and runs; create, load, freeze.

Creating and loading go through the study form (screens/study_form.py), which
stores studies with the batch core's `create_study`; freezing calls
`freeze_study`, as `workbench --batch study freeze` does. The detail pane is
`summary_text`, the text `study show` prints, under the SIMULATED banner for a
study on `sim` (`workbench.simmodel.label` decides, here as everywhere), and
the power panel: `power_document`, the numbers `workbench --batch power STUDY`
prints, computed in a thread worker so the list never waits for it.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from screens.commands import StudyCommandProvider
from screens.study_actions import STUDY_WORK, JudgingActions, PacketActions, StudyActions
from screens.widgets.section import SectionScreen
from workbench.studies.counts import runs_cell_parts

STATUS_STYLE = {"draft": "yellow", "frozen": "green", "unblinded": "cyan"}  # the store names it (study_status)
SIM_STYLE = "bold magenta"
POWER_GROUP = "studies-power"
RATER_PROGRESS_EVERY = 2.0  # seconds between readings of the raters' progress


def status_cell(status: str, simulated: bool, text: str | None = None) -> Text:
    """`frozen`, or `frozen` over `SIMULATED` for a study on `sim`: the label goes wherever the study is listed.
    `text` is the status in words (`unblinded (forced)`), `status` the word its style follows."""
    from workbench.simmodel.label import LABEL

    cell = Text(text or status, style=STATUS_STYLE.get(status, ""))
    if simulated:
        cell.append(f"\n{LABEL}", style=SIM_STYLE)
    return cell


# A study on `sim` some of whose scores a person typed at the desk: they are not a simulated rater's.
HAND_SCORED_BANNER = ("Every response and number in this study comes from the offline `sim` model with planted "
                      "effects; its scores typed at the scoring desk are a person's, every other score a simulated "
                      "rater's.")


def detail_text(summary: str, simulated: bool, *, hand_scored: bool = False, raters: bool = True) -> Text:
    """The study's summary as plain text (its description is the user's words, never markup), under
    the SIMULATED banner when it is on `sim` (which does not call hand-typed scores simulated, nor speaks of
    simulated raters to a study with none: the files' banner, workbench.simulation.marks.banner)."""
    from workbench.simmodel.label import LABEL
    from workbench.simulation.marks import banner

    if not simulated:
        return Text(summary)
    text = HAND_SCORED_BANNER if hand_scored else banner({"raters": raters})
    return Text.assemble((LABEL, f"{SIM_STYLE} reverse"), f" {text}\n\n", summary)


def typed_at_the_desk(db, study_id: str) -> bool:
    """Some score of the study was typed at the scoring desk (not imported from a packet)."""
    from workbench.studies.counts import scores_by_source

    return bool(scores_by_source(db, study_id).get("tui"))


def power_text(doc: dict) -> str:
    """The power document in the detail pane's width: the same numbers `workbench --batch power STUDY`
    prints (one core function computes both), the comparisons numbered so the curve table fits 80 columns."""
    head = f"Power ({doc['sims']} simulations each; no model calls; as `workbench --batch power`)"
    if not doc["comparisons"]:
        return f"{head}\nno pre-registered comparison: name one with `power STUDY --effect A:B:METRIC=D`"
    # the name last: a long one (faultline's "ACC: all debate conditions − self-consistency") wraps alone
    lines = [head, doc["design_text"], f"method: {doc['method']}", "",
             f"{'#':>2} {doc['effect_name']:>5} {'power':>6}  comparison"]
    for i, row in enumerate(doc["comparisons"], start=1):
        at_n = "-" if row["power"] is None else f"{row['power']:.2f}"
        lines.append(f"{i:>2} {row['effect']:>5.2f} {at_n:>6}  {row['comparison']}")
    lines.append(f"{doc['effect_name']}: {doc['effect_meaning']}, from "
                 + ", ".join(dict.fromkeys(row["source"] for row in doc["comparisons"])))
    grid = doc["case_grid"]
    lines += ["", f"power against the number of {doc['unit']}", f"{'#':>2} " + " ".join(f"{n:>4}" for n in grid)]
    for i, row in enumerate(doc["comparisons"], start=1):
        lines.append(f"{i:>2} " + " ".join(f"{row['power_by_cases'][n]:>4.2f}" for n in grid))
    lines += doc.get("not_simulated", []) + doc.get("notes", [])
    return "\n".join(lines)


def power_key(definition: dict) -> str:
    """What the power analysis depends on: the study's definition (a changed one is another study)."""
    import json

    return json.dumps(definition, sort_keys=True, default=str)


def study_entries(study_ids: list[str], call) -> list[tuple[str, str, object]]:
    """`studies: <what> <study>` for each stored study; `call(method, study_id)` makes the callback (on the
    Studies screen itself, or from another section through the app's `in_section`)."""
    out = []
    for study_id in study_ids:
        out += [(f"studies: open {study_id}", "in the form (a frozen study as a copy)",
                 call("open_study", study_id)),
                (f"studies: freeze {study_id}", "hash its definition, cases, rubrics and prompts",
                 call("freeze", study_id)),
                (f"studies: run {study_id}", "in the Runs section", call("runs", study_id)),
                (f"studies: judge {study_id}", "run its LLM judges (progress and judge errors on the "
                 "detail pane)", call("judge", study_id)),
                (f"studies: pilots {study_id}", "calibration pilots per rater and judge; release a held "
                 "rater with a reason", call("pilots", study_id)),
                (f"studies: packet {study_id}", "a rater's offline scoring packet, to a file you name",
                 call("packet_export", study_id)),
                (f"studies: adjudicate {study_id}", "hindsight: the disagreements beyond the margin; record "
                 "a third rater's score or a consensus", call("adjudicate", study_id)),
                (f"studies: topology review {study_id}", "hindsight, unblinded: code each case and "
                 "condition Basin / Ridge / Plateau with a reason", call("topology", study_id)),
                (f"studies: evaluators {study_id}", "quality of every rater and judge, the exclusion rules, "
                 "a blind review of a judge's verdicts", call("evaluators", study_id)),
                (f"studies: unblind {study_id}", "open the sealed key (asks, names what it opens, records "
                 "a reason)", call("unblind", study_id)),
                (f"studies: report {study_id}", "write the Markdown report to a file you name",
                 call("report", study_id)),
                (f"studies: export {study_id}", "tidy tables, Inspect AI logs … to a folder you name",
                 call("export", study_id))]
    return out


class StudyTable(DataTable):
    BINDINGS = [
        Binding("enter", "select_cursor", "Edit", id="studies.edit",
                tooltip="Open the study in the form (a frozen study opens as a copy under a new name)"),
    ]


class StudyCommands(StudyCommandProvider):
    """`studies: …` palette commands: new, load a file, and open / freeze / run each stored study."""

    def commands_for(self, screen):
        out = [("studies: new study", "define a study in the form", screen.action_new_study)]
        if screen.judging is not None:
            out.append((f"studies: cancel judging {screen.judging.study_id}", "calls in flight recorded as "
                        "cancelled; what was judged is kept", screen.action_cancel_judging))
        out += [("studies: import a scoring packet", "record a rater's filled-in packet, as `packet import FILE`",
                 screen.action_packet_import),
                ("studies: load a study file", "store a TOML study file, as `study create FILE`",
                 screen.action_load_file)]
        on_screen = lambda name, *a: partial(getattr(screen, name), *a)  # noqa: E731
        return out + study_entries(getattr(self, "study_ids", []), on_screen)


class StudiesScreen(StudyActions, JudgingActions, PacketActions, SectionScreen):
    """The studies in the store; n creates one, o loads a study file, f freezes, r opens its runs,
    j judges, l shows the calibration pilots, e the evaluators' quality, u unblinds, p writes the report,
    x exports."""

    SECTION_ID = "studies"

    @classmethod
    async def palette_entries(cls, app, call) -> list[tuple[str, str, str, object]]:
        """The per-study commands from another section (screens/commands.py: OtherSections)."""
        from workbench.studies.lookup import list_studies

        ids = [s["id"] for s in list_studies(app.db)]
        return [("studies", title, help_text, callback)
                for title, help_text, callback in study_entries(ids, lambda name, *a: partial(call, name, *a))]

    # StudyCommands offers them by study
    PALETTE_SKIP = {"new_study", "load_file", "freeze", "selected", "packet_import", "cancel_judging"}
    SUB_TITLE = "Studies"
    COMMANDS = {StudyCommands}
    CSS_PATH = "styles/studies.tcss"
    AUTO_FOCUS = "#study-table"
    # at 80 columns the footer holds the finishing actions; load, runs and pilots are in help and the palette
    BINDINGS = [
        Binding("n", "new_study", "New", id="studies.new", tooltip="Define a new study in the form"),
        Binding("o", "load_file", "Load", id="studies.load", show=False,
                tooltip="Store a study from a TOML study file, as `workbench --batch study create FILE`"),
        Binding("f", "freeze", "Freeze", id="studies.freeze",
                tooltip="Freeze the selected study: hash its definition, cases, rubrics and prompts "
                        "(a frozen study is checked instead)"),
        Binding("r", "selected('runs')", "Runs", id="studies.runs", show=False,
                tooltip="Open the selected study in the Runs section"),
        Binding("j", "selected('judge')", "Judge", id="studies.judge",
                tooltip="Run the selected study's LLM judges, as `workbench --batch judge`; progress and judge "
                        "errors show on the detail pane"),
        Binding("c", "cancel_judging", "Cancel judging", id="studies.cancel_judging", show=False,
                tooltip="Cancel the judging in progress: calls in flight are recorded as cancelled, what was "
                        "judged is kept, and j continues"),
        Binding("l", "selected('pilots')", "Pilots", id="studies.pilots", show=False,
                tooltip="The calibration pilots' result per rater and judge; release a held rater with a reason"),
        Binding("u", "selected('unblind')", "Unblind", id="studies.unblind",
                tooltip="Unblind the selected study: names what it opens, asks for a reason, records both"),
        Binding("p", "selected('report')", "Report", id="studies.report",
                tooltip="Write the selected study's Markdown report to a file you name"),
        Binding("x", "selected('export')", "Export", id="studies.export",
                tooltip="Export the selected study (tidy tables, Inspect AI logs …) to a folder you name"),
        Binding("k", "selected('packet_export')", "Packet", id="studies.packet", show=False,
                tooltip="Write a rater's offline scoring packet of the selected study to a file you name"),
        Binding("i", "packet_import", "Import packet", id="studies.packet_import", show=False,
                tooltip="Record a rater's filled-in scoring packet (an edited or foreign one is refused)"),
        Binding("a", "selected('adjudicate')", "Adjudicate", id="studies.adjudicate", show=False,
                tooltip="Hindsight: the adjudication queue of the selected study; record a third rater's score "
                        "or a consensus"),
        Binding("t", "selected('topology')", "Topology", id="studies.topology", show=False,
                tooltip="Hindsight, once unblinded: review the selected study's Basin / Ridge / Plateau codings"),
        Binding("e", "selected('evaluators')", "Evaluators", id="studies.evaluators", show=False,
                tooltip="Evaluator quality of the selected study: gold, attention, time, straight-lining, "
                        "agreement, drift; the exclusion rules; a blind review of a judge's verdicts"),
        Binding("g", "refresh", "Refresh", id="studies.refresh", show=False,
                tooltip="Reload the studies from the store"),
    ]
    # below 100 columns the footer keeps the shown keys and leaves Quit to help: "x Export" was cut to "x E" at
    # 80x24 (issue 43's walk)
    NARROW_KEYS = {"select_cursor", "new_study", "freeze", "selected('judge')", "selected('unblind')",
                   "selected('report')", "selected('export')"}

    def compose_section(self) -> ComposeResult:
        with Horizontal(id="studies-body"):
            with Vertical(id="studies-left"):
                yield StudyTable(id="study-table", cursor_type="row", zebra_stripes=True)
                yield Static("", id="studies-count")
            with VerticalScroll(id="study-detail"):
                yield Static("", id="study-work", markup=False)
                yield Static("", id="study-summary", markup=False)
                yield Static("", id="study-raters", markup=False)
                yield Static("", id="study-power", markup=False)

    def on_mount(self) -> None:
        table = self.query_one("#study-table", DataTable)
        for key, label in (("id", "study"), ("status", "status"), ("runs", "runs")):
            table.add_column(label, key=key)
        self._select_after_reload: str | None = None
        self._power_cache: dict[str, dict] = {}  # definition (JSON) -> power document
        self._power_pending: set[str] = set()     # definitions whose power is being computed
        self._raters_of: str | None = None        # the study whose raters' progress is shown (read again live)
        self.set_interval(RATER_PROGRESS_EVERY, self.show_rater_progress)

    def on_screen_resume(self) -> None:
        self.refresh_list()

    # -- the list ---------------------------------------------------------------------------------

    def refresh_list(self, select: str | None = None) -> None:
        from workbench.studies.lookup import list_studies, run_status_counts

        db = self.app.db
        table = self.query_one("#study-table", DataTable)
        keep = select or self._select_after_reload or self.selected_study_id()
        self._select_after_reload = None
        table.clear()
        from workbench.simmodel.label import is_simulated

        studies = list_studies(db)
        for s in studies:
            # a part a line (`frozen` / `SIMULATED`, `3000/3000 done` / `(3000 with errors)`): whole in the column
            table.add_row(s["id"], status_cell(s["status"], is_simulated(s["definition"]), s["status_text"]),
                          "\n".join(runs_cell_parts(run_status_counts(db, s["id"]))), key=s["id"], height=None)
        if keep and any(s["id"] == keep for s in studies):
            table.move_cursor(row=table.get_row_index(keep))
        n = len(studies)
        self.query_one("#studies-count", Static).update(
            f"{n} stud{'ies' if n != 1 else 'y'}" if n else "No studies yet. n defines one; o loads a study file.")
        self.show_detail(self.selected_study_id())

    def selected_study_id(self) -> str | None:
        table = self.query_one("#study-table", DataTable)
        if table.row_count == 0:
            return None
        try:
            row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except Exception:  # no valid cursor cell
            return None
        return row_key.value

    @on(DataTable.RowHighlighted, "#study-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        study_id = event.row_key.value if event.row_key else None
        if study_id is not None and hasattr(self.app, "chosen_study"):
            self.app.chosen_study = study_id  # Runs and Metrics follow it
        self.show_detail(study_id)

    def show_detail(self, study_id: str | None) -> None:
        from workbench.simmodel.label import is_simulated
        from workbench.studies import StudyNotFound, study_summary, summary_text

        out = self.query_one("#study-summary", Static)
        power = self.query_one("#study-power", Static)
        self._show_work(study_id)  # another study's judging is not said above this one's details
        self._raters_of = None
        self.query_one("#study-raters", Static).display = False
        if study_id is None:
            out.update("")
            power.update("")
            return
        try:
            summary = study_summary(self.app.db, study_id)
        except StudyNotFound as exc:
            out.update(str(exc))
            power.update("")
            return
        if summary.get("frozen_at") and summary["definition"].get("raters"):
            self._raters_of = study_id
            self.show_rater_progress()
        simulated = is_simulated(summary["definition"])
        out.update(detail_text(summary_text(summary), simulated, raters=bool(summary["definition"].get("raters")),
                               hand_scored=simulated and typed_at_the_desk(self.app.db, study_id)))
        key = power_key(summary["definition"])
        doc = self._power_cache.get(key)
        if doc is not None:  # computed once per definition: moving through the list recomputes nothing
            power.update(power_text(doc))
            return
        power.update("Power: computing ...")
        if key not in self._power_pending:  # already being computed: its result is shown when it comes
            self._power_pending.add(key)
            self.compute_power(study_id, summary["definition"])

    def show_rater_progress(self) -> None:
        """Each rater's items scored so far, read again every RATER_PROGRESS_EVERY seconds while this screen
        shows a frozen study with raters: they score meanwhile, at the served desk or a terminal."""
        if self._raters_of is None or not self.is_current:
            return
        from workbench.blinding.context import BlindingError
        from workbench.scoring.results import scoring_completion

        try:
            completion = scoring_completion(self.app.db, self._raters_of)
        except BlindingError:
            completion = {}
        text = rater_progress_text(completion)
        out = self.query_one("#study-raters", Static)
        out.update(text)
        out.display = bool(text)  # (an empty line would push the power panel down)

    # -- the power panel ----------------------------------------------------------------------------

    @work(thread=True, group=POWER_GROUP, exit_on_error=False)
    def compute_power(self, study_id: str, definition: dict) -> tuple[str, str, dict]:
        """The study's power document, off the event loop (a second or two on the statistics core); each
        definition is computed once (not exclusive: a study left before its power came is not computed
        again on return)."""
        from workbench.simulation.power import power_document

        return study_id, power_key(definition), power_document(definition)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == STUDY_WORK:  # a report or an export: say what was written, or why not
            event.stop()  # said here, not again by the app
            if event.state == WorkerState.SUCCESS:
                self.notify(event.worker.result, title="Done", timeout=10)
            elif event.state == WorkerState.ERROR:
                self.notify(f"nothing written: {event.worker.error}", title="Failed", severity="error",
                            timeout=15)
            return
        if event.worker.group != POWER_GROUP:
            return
        power = self.query_one("#study-power", Static)
        if event.state == WorkerState.SUCCESS:
            study_id, key, doc = event.worker.result
            self._power_cache[key] = doc
            self._power_pending.discard(key)
            if study_id == self.selected_study_id():
                power.update(power_text(doc))
        elif event.state == WorkerState.ERROR:
            self._power_pending.clear()  # a later look tries again
            power.update(f"Power could not be computed: {event.worker.error}")

    def action_refresh(self) -> None:
        self.refresh_list()

    # -- creating and editing ---------------------------------------------------------------------

    def action_new_study(self) -> None:
        from screens.study_form import StudyFormScreen

        self.app.push_screen(StudyFormScreen(), callback=self._form_closed)

    def action_load_file(self) -> None:
        from screens.study_form import StudyFileDialog

        self.app.push_screen(StudyFileDialog(), callback=self._file_chosen)

    def _file_chosen(self, path: str | None) -> None:
        """Store the file through the form, so its problems (file:line) are shown where they can be fixed."""
        from screens.study_form import StudyFormScreen

        if not path:
            return
        self.app.push_screen(StudyFormScreen(load_path=path), callback=self._form_closed)

    @on(DataTable.RowSelected, "#study-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_study(event.row_key.value)

    def open_study(self, study_id: str) -> None:
        from screens.study_form import StudyFormScreen
        from workbench.studies.lookup import find_study

        study = find_study(self.app.db, study_id)
        if study is None:
            self.notify(f"No study '{study_id}' in the store", severity="error")
            return
        self.app.push_screen(StudyFormScreen(study["definition"], frozen=bool(study["frozen_at"])),
                             callback=self._form_closed)

    def _form_closed(self, study_id: str | None) -> None:
        if study_id:
            self._select_after_reload = study_id

    # -- freezing and running -----------------------------------------------------------------------

    def action_freeze(self) -> None:
        study_id = self.selected_study_id()
        if study_id is None:
            self.notify("Choose a study to freeze", severity="warning")
            return
        self.freeze(study_id)

    def freeze(self, study_id: str) -> None:
        self._freeze_after_asking(study_id)

    @work(exclusive=True, group="studies-freeze", exit_on_error=False)
    async def _freeze_after_asking(self, study_id: str) -> None:
        """A study not frozen yet: show what the freeze will hash and freeze only when the user says so."""
        from screens.confirm import FREEZE, freeze_dialog
        from workbench.studies import StudyError
        from workbench.studies.lookup import find_study

        row = find_study(self.app.db, study_id)
        if row is not None and not row["frozen_at"]:
            try:
                dialog = freeze_dialog(self.app.db, study_id)
            except StudyError as exc:
                self.notify(f"{study_id} cannot be frozen: {exc}", title="Freeze", severity="error", timeout=15)
                return
            if await self.app.push_screen_wait(dialog) != FREEZE:
                return
        self.freeze_now(study_id)

    def freeze_now(self, study_id: str) -> None:
        from workbench.studies import (
            FrozenStudyChanged,
            StudyError,
            StudyNotFound,
            freeze_study,
        )

        try:
            result = freeze_study(self.app.db, study_id)
        except (FrozenStudyChanged, StudyNotFound) as exc:
            self.notify(str(exc), title="Freeze", severity="error", timeout=15)
            return
        except StudyError as exc:
            self.notify(f"{study_id} cannot be frozen: {exc}", title="Freeze", severity="error", timeout=15)
            return
        verb = "was already frozen and is unchanged" if result["already_frozen"] else "frozen"
        self.notify(f"{study_id} {verb}: hash {result['freeze_hash'][:12]}", title="Freeze")
        self.refresh_list(select=study_id)

    def say_work(self, study_id: str, text: str) -> None:
        """The long work's progress and outcome (judging) of `study_id`, above that study's summary only."""
        self._work = (study_id, text)
        self._show_work(self.selected_study_id())

    def _show_work(self, shown: str | None) -> None:
        study_id, text = getattr(self, "_work", (None, ""))
        line = self.query_one("#study-work", Static)
        line.update(text if study_id == shown else "")
        line.display = bool(text) and study_id == shown

    def adjudicate(self, study_id: str) -> None:
        """Hindsight's adjudication queue (another protocol has none: said, not opened)."""
        from screens.adjudication import AdjudicationScreen

        if self._is_hindsight(study_id, "adjudication"):
            self.app.push_screen(AdjudicationScreen(study_id))

    def evaluators(self, study_id: str) -> None:
        """The evaluator panel (issue 32): computed blind, so open at any time."""
        from screens.evaluators import EvaluatorPanelScreen

        self.app.push_screen(EvaluatorPanelScreen(study_id))

    def topology(self, study_id: str) -> None:
        """Hindsight's topology review, once the study is unblinded (the codings name conditions)."""
        from screens.topology_review import TopologyReviewScreen
        from workbench.blinding.unblind import unblind_state

        if not self._is_hindsight(study_id, "topology review"):
            return
        if not unblind_state(self.app.db, study_id).unblinded:
            self.notify(f"{study_id} is blinded: topology names conditions, so it is reviewed after unblinding "
                        "(u)", title="Topology", severity="warning")
            return
        self.app.push_screen(TopologyReviewScreen(study_id))

    def _is_hindsight(self, study_id: str, what: str) -> bool:
        from workbench.protocol.registry import UnknownProtocol, protocol_of
        from workbench.studies.lookup import load_study

        try:
            protocol = protocol_of(load_study(self.app.db, study_id)["definition"]).name
        except UnknownProtocol as exc:
            protocol = str(exc)
        if protocol != "hindsight":
            self.notify(f"{study_id}: {what} belongs to hindsight studies ({protocol})", title=what.capitalize(),
                        severity="warning")
        return protocol == "hindsight"

    def action_selected(self, act: str) -> None:
        """A key's act (`runs`, `judge`, `export` …: the method the palette calls with a study) on the
        selected study."""
        study_id = self.selected_study_id()
        if study_id is None:
            self.notify("Choose a study first", severity="warning")
            return
        getattr(self, act)(study_id)

    def runs(self, study_id: str) -> None:
        """Show the study in the Runs section."""
        go = getattr(self.app, "action_go", None)
        if go is None or getattr(self.app, "section", lambda _: None)("runs") is None:
            self.notify(f"The Runs section is not available; batch: workbench --batch run {study_id}",
                        severity="warning")
            return
        go("runs")
        runs_screen = self.app.screen_stack[0]
        if hasattr(runs_screen, "select_study"):
            runs_screen.select_study(study_id)


def rater_progress_text(completion: dict[str, dict]) -> str:
    """`scoring     rater-a 3/6 · rater-b 0/6`: items fully scored of those assigned (nothing before blinding)."""
    if not any(c["total"] for c in completion.values()):
        return ""
    return "scoring     " + " · ".join(f"{rater} {c['done']}/{c['total']}" for rater, c in completion.items())
