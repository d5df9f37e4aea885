"""The Runs section: a study's runs as a live grid, whole-study progress, and the transcript of the
chosen run streaming as it happens; run, pause, resume, cancel and retry.

A run that ends without its condition's defining step (C2's motions all died, B3's reply not split: issue
45) is marked † in the grid, and the line under the grid says what happened, in the words batch's run line
prints (`workbench.fidelity.watch`, which also stops the study under `on_missing_treatment = "refuse"`).

How the live view stays responsive: the study runs in one async worker on the
app's loop (`workbench.runs.runner.run_study`, the same core the batch `run` uses)
with a `workbench.runs.view.LiveStudy` as its event sink. The sink only records
(a token is a list append); nothing is posted per event. A timer refreshes the
screen every REFRESH seconds from what the sink collected: changed grid cells,
the progress line, and the new text of the chosen run's streaming turns. The
worker's outcome (summary or failure) is handled in one
`on_worker_state_changed`.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, ProgressBar, Select, Static
from textual.worker import Worker, WorkerState

from screens.commands import StudyCommandProvider
from screens.protocol_panels import PanelFeed, open_panel, study_panels
from screens.run_transcript import TranscriptView
from screens.widgets.run_grid import RunGrid
from screens.widgets.section import SectionScreen
from screens.widgets.study_picker import StudyPicker
from screens.widgets.unsaved_guard import UnsavedGuard
from workbench.fidelity.policy import MARK
from workbench.runs.view import LiveStudy, grid_states, progress_line, status_label, stored_totals_line


class RunCommands(StudyCommandProvider):
    """`runs: …` palette commands of the Runs section: run, pause, resume, cancel, retry, show a transcript."""

    def commands_for(self, screen):
        out = [(f"runs: show {study_id}", "its grid, progress and transcripts", partial(screen.select_study, study_id))
               for study_id in getattr(self, "study_ids", []) if study_id != screen.study_id]
        for action, title, help_text in (
                ("run", f"runs: run study {screen.study_id}", "freeze it, then run its pending, interrupted "
                                                              "and cancelled runs"),
                ("pause", "runs: pause", "no new turn starts; turns in flight finish"),
                ("resume", "runs: resume", "continue the paused study"),
                ("cancel", "runs: cancel", "cancel the runs in progress (s continues them later)"),
                ("retry", "runs: retry the selected run", "run the selected failed or cancelled run again, alone")):
            if screen.study_id and screen.check_action(action, ()):
                out.append((title, help_text, getattr(screen, f"action_{action}")))
        grid = screen.query_one(RunGrid)
        for run_id, state in grid.states.items():
            where = f"{state['case_id']} {state['condition']} r{state['replicate']}"
            out.append((f"runs: transcript of {where}", status_label(state),
                        partial(screen.choose_run, run_id)))
        return out


REFRESH = 0.08          # seconds between screen refreshes while a study runs
TICK = 1.0              # seconds between elapsed-time updates of running cells
RUN_GROUP = "study-run"


class RunsScreen(UnsavedGuard, SectionScreen):
    """Run a study and watch it: grid, progress, live transcript."""

    SECTION_ID = "runs"
    PALETTE_SKIP = {"run", "pause", "resume", "cancel", "retry"}  # RunCommands offers them by study
    SUB_TITLE = "Runs"
    COMMANDS = {RunCommands}
    CSS_PATH = "styles/runs.tcss"
    AUTO_FOCUS = "#run-grid"
    BINDINGS = [
        Binding("s", "run", "Run", id="runs.run",
                tooltip="Run the study: freeze it (or check its freeze), then run every pending, interrupted "
                        "or cancelled run; done runs are kept and failed ones wait for a retry"),
        Binding("p", "pause", "Pause", id="runs.pause",
                tooltip="Pause: no new turn starts; turns already streaming finish and are kept"),
        Binding("p", "resume", "Resume", id="runs.resume", tooltip="Resume the paused study"),
        Binding("x", "cancel", "Cancel", id="runs.cancel",
                tooltip="Cancel the study's run: in-flight turns stop, their runs are marked cancelled; "
                        "s continues them later"),
        Binding("C", "cancel_run", "Cancel run", id="runs.cancel_run", show=False,
                tooltip="Cancel only the selected run; the rest of the study goes on"),
        Binding("t", "retry", "Retry run", id="runs.retry",
                tooltip="Run the selected failed (or cancelled) run again, alone"),
        Binding("o", "protocol_panel", "Open panel", id="runs.protocol_panel",
                tooltip="Open the study's protocol screen (a faultline debate, an M11 dashboard, a calibration "
                        "result); hindsight studies have this section as theirs"),
        Binding("r", "reload", "Reload", id="runs.reload", show=False,
                tooltip="Reload the studies and the grid from the store"),
    ]
    # below 100 columns the footer keeps these (Retry, t, in help and the palette): "o Open panel" was cut to
    # "o Op" at 80x24 (issue 43's walk)
    NARROW_KEYS = {"select_cursor", "run", "pause", "resume", "cancel", "protocol_panel"}

    def __init__(self) -> None:
        super().__init__()
        self.study_id: str | None = None
        self.live: LiveStudy | None = None
        self.live_study: str | None = None
        self.control = None
        self.summary = None
        self.outcome: Text | None = None  # the last run's summary or failure, shown under the grid
        self._wanted: str | None = None
        self._worker: Worker | None = None
        self._timer = None
        self._last_tick = 0.0
        self.panel_feed = PanelFeed()  # protocol panels watching the running study live
        self._last_untreated: str | None = None  # the run that last ended without its defining step

    def compose_section(self) -> ComposeResult:
        with Horizontal(id="runs-head"):
            yield StudyPicker(tooltip="The study whose runs are shown")
            yield Static("", id="study-note")
        yield RunGrid(id="run-grid")
        yield Static("", id="treatment-note", markup=False)
        with Horizontal(id="progress-row"):
            yield ProgressBar(total=None, show_eta=False, id="study-progress")
            yield Static("", id="progress-text")
        yield TranscriptView(id="transcript")

    def on_mount(self) -> None:
        self._timer = self.set_interval(REFRESH, self._refresh_live, pause=True)
        self.load_studies(select=self._wanted)

    def on_screen_resume(self) -> None:
        # UnsavedGuard registers this screen: quitting while a study runs asks first. The picker follows a
        # study newly chosen in Studies (said in the study note).
        if self.is_mounted and not self.running:
            self.load_studies(select=self._wanted or self.study_id)

    # -- quitting while running -------------------------------------------------------------------

    def has_unsaved_changes(self) -> bool:
        return self.running

    async def resolve_unsaved_changes(self) -> bool:
        """Quitting while a study runs: cancel its runs cleanly (they continue later), or stay."""
        from screens.confirm import Choice, ChoiceDialog
        from textual.worker import WorkerCancelled, WorkerFailed

        if not self.running:
            return True
        choice = await self.app.push_screen_wait(ChoiceDialog(
            "A study is running",
            f"Study {self.live_study} is running. Quitting cancels the runs in progress; "
            "s in Runs continues them later, replaying every call already made.",
            [Choice("stop", "Cancel runs and quit", "q", "error"), Choice("stay", "Stay", "s")],
            cancel_id="stay", default_id="stay"))
        if choice != "stop":
            return False
        if self.control is not None:
            self.control.cancel("the workbench was closed")
        if self._worker is not None:
            try:
                await self._worker.wait()
            except (WorkerCancelled, WorkerFailed):
                pass
        return True

    # -- which study ------------------------------------------------------------------------------

    def select_study(self, study_id: str) -> None:
        """Show this study (the Studies section calls this before switching here)."""
        self._wanted = study_id
        if self.is_mounted and not self.running:
            self.load_studies(select=study_id)

    def load_studies(self, select: str | None = None) -> None:
        from workbench.metrics.ratings import study_list

        studies = study_list(self.app.db)  # as Metrics lists them (one picker)
        chosen = self.query_one(StudyPicker).show(studies, self.study_id, wanted=select)
        self._wanted = None
        if not studies:
            self.query_one("#study-note", Static).update(
                "No studies yet: create one in Studies (2), or `workbench --batch study create FILE`.")
        self.show_study(chosen)

    @on(Select.Changed, "#study-select")
    def _study_chosen(self, event: Select.Changed) -> None:
        study_id = StudyPicker.study_of(event.value)
        if study_id and study_id != self.study_id:
            self.show_study(study_id)

    def show_study(self, study_id: str | None) -> None:
        """Draw the grid of a study from the store."""
        grid = self.query_one(RunGrid)
        if study_id != self.study_id:
            self._last_untreated = None
        self.study_id = study_id
        if study_id is None:
            grid.set_runs([])
            return
        try:
            states = self._grid_states(study_id)
        except Exception as exc:  # a study row whose definition no longer loads: say so, keep the screen
            self.query_one("#study-note", Static).update(Text(f"cannot show {study_id}: {exc}", style="red"))
            grid.set_runs([])
            return
        grid.set_runs(states)
        self._show_treatment_note()
        self._show_study_note()
        self._show_stored_progress(states)
        view = self.query_one(TranscriptView)
        if view.run_id not in grid.states and (view.run_id or view.border_title):  # another study's (or its title)
            self.call_later(view.show, None, None, f"{study_id}: no run chosen")

    def _show_study_note(self) -> None:
        from workbench.studies.lookup import find_study

        study = find_study(self.app.db, self.study_id) if self.study_id else None
        if study is None:
            return
        m = study["definition"]["model"]
        frozen = (f"frozen {study['freeze_hash'][:12]}" if study["frozen_at"]
                  else "not frozen yet: s freezes it, then runs it")
        chosen = ("  ·  chosen in Studies", "dim") if self.query_one(StudyPicker).follows(self.study_id) else ""
        self.query_one("#study-note", Static).update(Text.assemble(
            ("model ", "dim"), m["name"], (f" @ {m['api_base']}" if m["api_base"] else ""),
            ("  ·  ", "dim"), frozen, chosen))

    def _show_stored_progress(self, states: list[dict]) -> None:
        """The bar: runs finished (done, with or without counted errors: workbench.studies.counts)."""
        from workbench.studies.counts import FINISHED, study_counts

        done = sum(1 for s in states if s["status"] in FINISHED)
        bar = self.query_one("#study-progress", ProgressBar)
        bar.update(total=max(len(states), 1), progress=done)
        line = stored_totals_line(states, study_counts(self.app.db, self.study_id)) if states else ""
        self.query_one("#progress-text", Static).update(line)

    # -- running ----------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        running = self.running
        paused = bool(self.control is not None and self.control.paused)
        if action == "pause":  # False (not None) when paused, so the same key reaches "resume"
            return None if not running else (False if paused else True)
        if action == "resume":
            return running and paused
        if action in ("cancel", "cancel_run"):
            return True if running else None
        if action in ("run", "retry", "reload"):
            return None if running else True
        if action == "protocol_panel":
            return bool(self.study_id and study_panels(self.app.db, self.study_id).get("run"))  # hidden if none
        return True

    def action_protocol_panel(self) -> None:
        if self.study_id:  # a panel opened on the study being run gets its events live
            screen = open_panel(self.app, self.study_id, "run")
            if self.live_study == self.study_id:
                self.panel_feed.add(screen)

    def action_run(self) -> None:
        if self.study_id is None:
            self.notify("Choose a study first (or create one in Studies)", severity="warning")
            return
        self.start(self.study_id)

    def action_retry(self) -> None:
        grid = self.query_one(RunGrid)
        run_id = grid.selected_run_id()
        state = grid.states.get(run_id) if run_id else None
        if state is None or self.study_id is None:
            self.notify("Choose a run in the grid first", severity="warning")
            return
        if state["status"] not in ("failed", "cancelled"):
            self.notify(f"{run_id} is {status_label(state)}: only a failed or cancelled run is retried alone "
                        "(s runs pending and interrupted ones)", severity="warning")
            return
        self.start(self.study_id, only=[run_id])

    def start(self, study_id: str, only: list[str] | None = None) -> Worker:
        self.summary = self.outcome = None
        self.query_one("#study-select", Select).disabled = True
        self.query_one("#progress-text", Static).update("freezing and preparing the study…")
        self._worker = self._run_study(study_id, only)
        self.refresh_bindings()
        return self._worker

    @work(exclusive=True, exit_on_error=False, group=RUN_GROUP, description="run the study")
    async def _run_study(self, study_id: str, only: list[str] | None):
        from workbench.gateway import build_gateway, load_model_library
        from workbench.runs.control import RunControl
        from workbench.events import FanoutSink
        from workbench.fidelity.watch import TreatmentWatch
        from workbench.runs.runner import ready_study, run_study

        db = self.app.db
        gateway = build_gateway(db, self.app.db_path)
        await asyncio.to_thread(load_model_library)  # the first import takes seconds: not on the screen's loop
        # the protocol's before-freeze work (faultline's belief graphs), then the freeze, or a refusal of a
        # changed frozen study (FrozenStudyChanged)
        await ready_study(db, gateway, study_id)
        states = self._grid_states(study_id)
        self.live, self.live_study = LiveStudy(states), study_id
        view_run = self.query_one(TranscriptView).run_id
        self.live.watched = {view_run} if view_run else set()
        self.control = RunControl()
        self.query_one(RunGrid).set_runs(states, live=True)
        self._show_study_note()
        self.refresh_bindings()
        self.query_one("#progress-text", Static).update("starting…")
        self._timer.resume()
        try:
            # a run's end says when its defining step did not happen; "refuse" stops the study there, as in batch
            sink = TreatmentWatch(FanoutSink(self.live, self.panel_feed), db, study_id, self.control)
            return await run_study(db, gateway, study_id, sink=sink, control=self.control, only=only)
        finally:
            self._timer.pause()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every outcome of a study's run lands here: its summary, its failure, its cancellation."""
        worker = event.worker
        if worker.group != RUN_GROUP:
            return
        event.stop()
        self.refresh_bindings()
        if event.state in (WorkerState.PENDING, WorkerState.RUNNING):
            return
        self.control = None
        self.query_one("#study-select", Select).disabled = False
        study_id = self.live_study or self.study_id
        if event.state == WorkerState.SUCCESS:
            self.summary = worker.result
            self.outcome = Text(self._summary_line(self.summary),
                                style="green" if self.summary.complete else "yellow")
            self._finished(worker.result)
        elif event.state == WorkerState.ERROR:
            self._failed(worker.error)
        elif event.state == WorkerState.CANCELLED:
            self.query_one("#progress-text", Static).update("the run was stopped; s continues it")
            return
        if study_id == self.study_id:
            self.call_after_refresh(self._redraw_after_run)

    async def _redraw_after_run(self) -> None:
        """The grid from the store (the final truth), with the outcome line under it."""
        await self._refresh_live()
        self.show_study(self.study_id)
        if self.outcome is not None:
            self.query_one("#progress-text", Static).update(self.outcome)

    def _finished(self, summary) -> None:
        line = self._summary_line(summary)
        if summary.complete:
            self.notify(line, title=f"{summary.study_id}: complete")
        else:
            hint = " · t retries the selected failed run" if summary.failed else " · s continues it"
            self.notify(line + hint, title=f"{summary.study_id}: not complete", severity="warning", timeout=10)

    @staticmethod
    def _summary_line(s) -> str:
        from workbench.runs.view import cost_text, duration, tokens_text

        runs = ", ".join(f"{v} {k}" for k, v in s.runs.items() if v)
        line = (f"{runs} · {s.calls} calls ({s.network_calls} made, {s.replayed} replayed) · "
                f"{tokens_text(s.input_tokens + s.output_tokens)} · {cost_text(s.cost, s.cost_unknown)} · "
                f"{duration(s.elapsed)}")
        if s.stopped:
            line += f" · stopped: {s.stopped}"
        for t in s.topology_errors:
            line += f" · topology of {t['case_id']} not classified: {t['error']}"
        return line

    def _failed(self, error: BaseException | None) -> None:
        from workbench.runs.runner import RunnerError
        from workbench.studies import FrozenStudyChanged, StudyError, StudyNotFound

        if isinstance(error, (FrozenStudyChanged, RunnerError, StudyNotFound)):
            message, title = str(error), "The study cannot run"
        elif isinstance(error, StudyError):
            message, title = f"the study cannot run: {error}", "The study cannot run"
        else:
            message, title = f"{type(error).__name__}: {error}", "The run stopped on an internal error"
        self.outcome = Text(message, style="red")
        self.query_one("#progress-text", Static).update(self.outcome)
        self.notify(message, title=title, severity="error", timeout=15)

    def action_pause(self) -> None:
        if self.control is not None:
            self.control.pause()
            self.query_one("#progress-text", Static).update("pausing: turns in flight finish, no new turn starts…")
        self.refresh_bindings()

    def action_resume(self) -> None:
        if self.control is not None:
            self.control.resume()
        self.refresh_bindings()

    def action_cancel(self) -> None:
        if self.control is not None:
            self.control.cancel("cancelled from the Runs screen")
            self.query_one("#progress-text", Static).update("cancelling…")
        self.refresh_bindings()

    def action_cancel_run(self) -> None:
        run_id = self.query_one(RunGrid).selected_run_id()
        if self.control is not None and run_id:
            self.control.cancel_run(run_id)

    def action_reload(self) -> None:
        self.load_studies(select=self.study_id)

    # -- refreshing from the live sink --------------------------------------------------------------

    async def _refresh_live(self) -> None:
        live = self.live
        if live is None:
            return
        changed, progress = live.take_changes()
        same_study = self.live_study == self.study_id
        now = time.time()
        if same_study:
            grid = self.query_one(RunGrid)
            for state in changed:
                grid.update_run(state, live.started_at.get(state["run_id"]), now)
                if state.get("treatment"):
                    self._last_untreated = state["run_id"]
            if changed:
                self._show_treatment_note()
            if now - self._last_tick >= TICK:
                self._last_tick = now
                for state in live.running():
                    grid.update_run(state, live.started_at.get(state["run_id"]), now)
            if progress is not None:
                self.query_one("#study-progress", ProgressBar).update(
                    total=max(progress["calls_expected"], 1), progress=progress["calls_done"])
                self.query_one("#progress-text", Static).update(progress_line(progress))
        view = self.query_one(TranscriptView)
        viewed_changed = view.run_id is not None and any(s["run_id"] == view.run_id for s in changed)
        if viewed_changed:
            view.border_title = self._transcript_title(view.run_id)
        if view.run_id is not None:
            model = live.transcript(view.run_id)
            if model is not None and model is not view.model:  # the run (re)started: follow its new attempt
                await view.show(view.run_id, model, self._transcript_title(view.run_id))
            else:
                await view.sync()
            if viewed_changed:
                await view.set_treatment(self._treatment_of(view.run_id))

    # -- the transcript ---------------------------------------------------------------------------

    @on(RunGrid.RunChosen)
    async def _run_chosen(self, message: RunGrid.RunChosen) -> None:
        await self.show_transcript(message.run_id)

    async def choose_run(self, run_id: str) -> None:
        """Put the grid's cursor on a run and show its transcript (the palette's entry point)."""
        self.query_one(RunGrid).select_run(run_id)
        await self.show_transcript(run_id)

    async def show_transcript(self, run_id: str) -> None:
        """Show a run's transcript: live from this session's sink, else rebuilt from the store."""
        from workbench.runs.view import stored_transcript

        if self.live is not None:
            self.live.watched = {run_id}  # the transcript on screen streams; the other runs' calls do not
        model = self.live.transcript(run_id) if self.live is not None else None
        if model is None:
            model = stored_transcript(self.app.db, run_id)
        view = self.query_one(TranscriptView)
        await view.show(run_id, model, self._transcript_title(run_id))
        await view.set_treatment(self._treatment_of(run_id))

    def _transcript_title(self, run_id: str) -> str:
        from workbench.protocols.hindsight.architectures import architecture

        state = self.query_one(RunGrid).states.get(run_id)
        if state is None:
            return run_id
        try:
            title = architecture(state["condition"]).TITLE
        except KeyError:
            title = ""
        return (f"{state['case_id']} · {state['condition']} {title} · replicate {state['replicate']} · "
                f"{status_label(state)}" + (f" {MARK}" if state.get("treatment") else ""))

    # -- runs whose defining step did not happen (workbench.fidelity) -------------------------------

    def _grid_states(self, study_id: str) -> list[dict]:
        """The grid's states from the store, each finished run without its defining step carrying the words
        its end said (the same words as batch's run line)."""
        from workbench.fidelity.watch import untreated

        states = grid_states(self.app.db, study_id)
        said = untreated(self.app.db, study_id)
        return [{**s, "treatment": said.get(s["run_id"])} for s in states]

    def _treatment_of(self, run_id: str | None) -> str | None:
        state = self.query_one(RunGrid).states.get(run_id) if run_id else None
        return state.get("treatment") if state else None

    @on(DataTable.CellHighlighted, "#run-grid")
    def _cell_highlighted(self) -> None:
        self._show_treatment_note()

    def _show_treatment_note(self) -> None:
        """The line under the grid: what happened in the run under the cursor, or in the last one to end, when
        its defining step did not happen; hidden while every finished run delivered its step."""
        grid = self.query_one(RunGrid)
        note = self.query_one("#treatment-note", Static)
        marked = [s for s in grid.states.values() if s.get("treatment")]
        note.display = bool(marked)
        if not marked:
            return
        shown = grid.states.get(grid.selected_run_id() or "")
        if shown is None or not shown.get("treatment"):
            shown = grid.states.get(self._last_untreated or "")
        if shown is not None and shown.get("treatment"):
            note.update(Text.assemble((f"{MARK} {shown['case_id']} {shown['condition']} r{shown['replicate']}: ",
                                       "bold"), shown["treatment"]))
        else:
            one = len(marked) == 1
            note.update(Text.assemble((f"{MARK} ", "bold"), f"{len(marked)} run{'' if one else 's'} ended without "
                                      f"{'its' if one else 'their'} defining step; the cursor on "
                                      f"{'it' if one else 'one'} says why"))
