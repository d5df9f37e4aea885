"""Running a study of any protocol: every run of it, concurrently, resumably; the TUI and batch mode use this.

    runs = prepare_study(db, study_id)              # freeze (or verify), create every run row up front
    runs = await ready_study(db, gateway, study_id) # the same, after the protocol's before-freeze work
    summary = await run_study(db, gateway, study_id, sink=my_sink, control=RunControl())

What happens:

- The study is frozen if it is not yet; a frozen one is verified first, and a
  change to anything it covers stops the run (FrozenStudyChanged).
- The study's protocol (workbench.protocols) plans its runs (item x condition x
  replicate), says how many calls each makes, and gives the program each runs.
- Every run exists as a row before any call, unique on (study, item,
  condition, replicate), so nothing is duplicated.
- Runs that are pending, interrupted (marked so after a signal or a full disk,
  or "running" left by a killed process) or cancelled are started together as asyncio tasks; the gateway's concurrency
  cap and rate limits are the only throttle. Done runs are skipped; failed runs
  wait for an explicit retry (`only=[run_id]` or `retry_failed=True`).
- A re-run starts its program from the top: every call already completed is
  served by the gateway's replay from the store (no network), the turns that
  were in flight are made again once, and the transcript is rewritten.
- Follow-ups: work a protocol does once a group of runs is done (hindsight:
  a case's P1 topology, once its three replicates are done).
- A lock file beside the store keeps two processes from running one study.
- A signal (the caller cancels the control with `interrupted=True`) or a full
  disk stops every run: in-flight attempts are recorded as cancelled by the
  gateway, the runs are marked `interrupted` (best effort: when even that
  cannot be written they stay `running`, which every reader treats as
  interrupted), and a full disk is raised as `store.DiskFull` once all runs
  have stopped.

Events: `sink` receives everything the programs emit (turn_started, token,
turn_finished, turn_failed, protocol events), run-level events (run_started,
run_finished, run_failed, run_cancelled) and, after each change, a `progress`
event whose payload is `StudyProgress.snapshot()` plus the changed `run`.
The transcript sink stores all of them but tokens and progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

import sqlite_utils

from store import runs as run_rows
from store.db import disk_full_error, is_disk_full, store_path, writer
from workbench.events import (
    CONTEXT_WARNING,
    PROGRESS,
    RUN_CANCELLED,
    RUN_FAILED,
    RUN_FINISHED,
    RUN_STARTED,
    Event,
    EventSink,
    NullSink,
    watching,
)
from workbench.gateway.api import CostCeilingReached, GatewayError, GatewayLike
from workbench.gateway.journal import LostCalls
from workbench.gateway.journal import settle as settle_journal
from workbench.protocol.base import FollowUp, RunPlan, StudyProtocol
from workbench.protocol.registry import protocol_of
from workbench.runs.context import RunContext, TurnStats, draw_settings
from workbench.runs.control import RunCancelled, RunControl
from workbench.gateway.live_calls import HEARTBEAT, LONG_CALL_AFTER, LiveCalls
from workbench.runs.progress import StudyProgress
from workbench.runs.run_lock import StudyLocked, study_lock
from workbench.runs.settings import run_settings
from workbench.runs.transcript import TranscriptSink
from workbench.runs.truncation import output_truncated
from workbench.studies.items import run_item


# Runs under way at once. The gateway's limits throttle their calls (far fewer at a time); a run waiting for a
# connection holds its program's state, so starting all of a 100,000-run study at once held all of them.
RUNS_AT_ONCE = 256
# A run's status that a command runs again is made pending first.
RETRIED = ("failed", "cancelled", "interrupted")
# Items kept read (the most recently used): an item's runs start one after another, its follow-up soon after.
ITEMS_KEPT = 64
_UNREAD = object()


class RunnerError(Exception):
    """A study cannot be run as asked (unknown run id, another process running it, ...)."""


@dataclass
class RunSummary:
    study_id: str
    runs: dict[str, int]                      # the study's runs by status, at the end
    executed: int = 0                         # runs attempted in this invocation
    calls: int = 0                            # turns completed in this invocation
    network_calls: int = 0                    # of which made over the network
    replayed: int = 0                         # of which served from the store
    input_tokens: int = 0                     # tokens and cost of the network calls
    output_tokens: int = 0
    cost: float = 0.0
    cost_unknown: bool = False
    elapsed: float = 0.0
    failed: list[dict] = field(default_factory=list)      # {"run_id", "error"} of runs failed now or before
    cancelled: list[dict] = field(default_factory=list)
    topology: list[dict] = field(default_factory=list)
    topology_errors: list[dict] = field(default_factory=list)
    stopped: str | None = None                # why the study stopped early (cancel, cost ceiling, signal)
    lost_found: dict = field(default_factory=dict)  # requests an earlier, crashed process left unanswered
    interrupted: list[dict] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        finished = sum(self.runs.get(s, 0) for s in run_rows.FINISHED)  # a counted error ran to its end
        return (finished == sum(self.runs.values()) and not self.topology_errors
                and not self.stopped)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["complete"] = self.complete
        return d


async def ready_study(db: sqlite_utils.Database, gateway: GatewayLike, study_id: str, *,
                      sink: EventSink | None = None, control: RunControl | None = None) -> list[dict]:
    """A study not frozen yet first gets its protocol's before-freeze work (faultline's belief graphs:
    model calls whose results the freeze pins), then `prepare_study`. Returns the run rows."""
    await _ready(db, gateway, study_id, sink=sink, control=control)
    return run_rows.list_runs(db, study_id)


async def _ready(db: sqlite_utils.Database, gateway: GatewayLike, study_id: str, *, sink: EventSink | None,
                 control: RunControl | None) -> None:
    """`ready_study` without reading the rows back (the runner walks them a page at a time)."""
    from workbench.studies import load_study

    study = load_study(db, study_id)
    if not study["frozen_at"]:
        await protocol_of(study["definition"]).prepare(db, gateway, study_id, study["definition"],
                                                       sink=sink or NullSink(), control=control or RunControl())
    _plan_study(db, study_id)


def prepare_study(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Freeze the study (or verify its freeze) and create every planned run. Returns the run rows
    in grid order (case, condition, replicate): a screen can draw its grid from them before running."""
    _plan_study(db, study_id)
    return run_rows.list_runs(db, study_id)


def _plan_study(db: sqlite_utils.Database, study_id: str) -> None:
    from workbench.studies import freeze_study, load_study, planned_runs

    study = load_study(db, study_id)
    freeze_study(db, study_id)  # verifies instead when already frozen; raises FrozenStudyChanged
    run_rows.ensure_runs(db, study_id, planned_runs(db, study))


async def run_study(db: sqlite_utils.Database, gateway: GatewayLike, study_id: str, *, sink: EventSink | None = None,
                    control: RunControl | None = None, only: list[str] | None = None,
                    retry_failed: bool = False, lock: bool = True, allow_lost: bool = False,
                    long_call_after: float = LONG_CALL_AFTER, heartbeat: float = HEARTBEAT) -> RunSummary:
    """Run (or resume) a study. `only`: just these runs (a failed one is retried). `allow_lost`: run
    conditions that lost their treatment (`StudyProtocol.lost_treatments`) instead of refusing them.
    `long_call_after`, `heartbeat`: when a long call's signs of life are shown, and how often."""
    runner = StudyRunner(db, gateway, study_id, sink=sink, control=control, long_call_after=long_call_after,
                         heartbeat=heartbeat)
    await refuse_unfit(db, study_id, sink or NullSink())  # before any call
    try:
        with (study_lock(db, study_id) if lock else contextlib.nullcontext()):
            return await runner.run(only=only, retry_failed=retry_failed, allow_lost=allow_lost)
    except StudyLocked as held:
        raise RunnerError(f"study '{study_id}' is being run by {held}; wait for it or stop it first") from None


async def refuse_unfit(db: sqlite_utils.Database, study_id: str, sink: EventSink) -> None:
    """A program whose prompts cannot fit its model's context window is refused before its first call, the
    window named (workbench/studies/context_check.py); one that may not fit once replies grow is warned of.
    The dry run runs on this loop, the store on its own thread; only a model with a known window is measured."""
    from workbench.events import Event
    from workbench.runs.dry_run import measure_prompts
    from workbench.studies import load_study
    from workbench.studies.context_check import has_window, misfits

    definition = load_study(db, study_id)["definition"]
    if not has_window(definition):
        return
    found = misfits(await measure_prompts(db, study_id, definition))
    refused = [m.message() for m in found if m.refused]
    if refused:
        raise RunnerError(f"study '{study_id}' cannot run: " + "; ".join(refused))
    for misfit in found:
        sink.emit(Event(CONTEXT_WARNING, payload={"warning": misfit.message()}))


class RunEnds:
    """The ends of the runs that finish their programs in one turn of the event loop (their last events, output
    and status) in one transaction, each in a savepoint of its own, where each was a commit (32 runs in flight
    often end together). A write that fails fails alone: its caller gets the error (a run's end stays pending
    in the transcript), as before. Killed before the commit, the runs are unfinished in the store: re-run on
    resume (their calls replayed from the log), as a kill a moment earlier would leave them."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.pending: list[tuple[Callable[[], Any], asyncio.Future]] = []

    async def write(self, write: Callable[[], Any]) -> Any:
        """`write()`'s result, once committed with the others of this turn of the loop."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if not self.pending:
            loop.call_soon(self.flush)
        self.pending.append((write, future))
        try:
            return await asyncio.shield(future)  # a cancel does not unwrite it
        except asyncio.CancelledError:
            future.add_done_callback(lambda f: f.cancelled() or f.exception())  # its outcome read, never warned of
            raise

    def flush(self) -> None:
        batch, self.pending = self.pending, []
        outcomes: list[tuple[bool, Any]] = []
        try:
            with writer(self.db):
                for write, _ in batch:
                    try:
                        outcomes.append((True, write()))  # its own writer nests: a savepoint
                    except Exception as exc:
                        outcomes.append((False, exc))
        except Exception as exc:  # the commit failed: none of them is written
            outcomes = [(False, exc)] * len(batch)
        for (_, future), (ok, outcome) in zip(batch, outcomes):
            if not future.done():
                future.set_result(outcome) if ok else future.set_exception(outcome)


class StudyRunner:
    def __init__(self, db: sqlite_utils.Database, gateway: GatewayLike, study_id: str, *, sink: EventSink | None = None,
                 control: RunControl | None = None, long_call_after: float = LONG_CALL_AFTER,
                 heartbeat: float = HEARTBEAT) -> None:
        """`long_call_after`: seconds in flight after which a call's signs of life are shown, every `heartbeat`
        seconds (workbench/gateway/live_calls.py)."""
        from workbench.studies import load_study

        self.db, self.gateway, self.study_id = db, gateway, study_id
        self.study = load_study(db, study_id)
        self.definition = self.study["definition"]
        self.protocol: StudyProtocol = protocol_of(self.definition)
        self.control = control or RunControl()
        self.user_sink = sink or NullSink()
        self.transcript = TranscriptSink(db)
        self._ends = RunEnds(db)
        self.stats = TurnStats()
        self.progress: StudyProgress | None = None
        self._tasks: dict[str, asyncio.Task] = {}
        self._follow_up_tasks: dict[str, asyncio.Task] = {}
        self._follow_up_errors: list[dict] = []
        self._stopped: str | None = None
        self._disk_full: BaseException | None = None
        self._items: dict[str, object] = {}
        self._draining = False
        # The study's run rows, kept as they end: what follow-ups are asked with (only a protocol with
        # follow-ups keeps them; the others walk the rows a page at a time and keep none).
        self._rows: dict[str, dict] = {}
        self.lost = LostCalls()  # requests of an earlier process found unanswered as this one started
        self.live, self.heartbeat = LiveCalls(long_call_after), heartbeat

    # --- the event stream ---------------------------------------------------------------------
    def watching(self, run_id: str | None) -> bool:
        """Whether the caller's display shows this run's tokens (then its calls stream)."""
        return watching(self.user_sink, run_id)

    def emit(self, event: Event) -> None:
        self.transcript.emit(event)
        self._show(event)

    def _show(self, event: Event) -> None:
        """To the caller's display, with the progress it changed."""
        self.live.update(event)
        self.user_sink.emit(event)
        if self.progress is not None:
            changed = self.progress.update(event)
            if changed is not None or event.kind == "turn_finished":
                snap = self.progress.snapshot()
                if changed is not None:
                    snap["run"] = changed.to_dict()
                self.user_sink.emit(Event(PROGRESS, payload=snap))

    def _end_run(self, run_id: str, status: str, event: Event, **finish) -> None:
        """A run's end: its status (and output), its last events and the rows deferred with them in one
        transaction; then shown."""
        self.transcript.emit(event)
        self.transcript.flush(run_id, lambda: run_rows.finish_run(self.db, run_id, status, **finish))
        self._keep_row(run_id, status=status, error=finish.get("error"))
        self._show(event)

    async def _end_run_soon(self, run_id: str, status: str, event: Event, **finish) -> None:
        """`_end_run` for a run that ended its program: written with the other runs ending in this turn of the
        event loop, in one commit (`RunEnds`)."""
        self.transcript.emit(event)
        await self._ends.write(lambda: self.transcript.flush(
            run_id, lambda: run_rows.finish_run(self.db, run_id, status, **finish)))
        self._keep_row(run_id, status=status, error=finish.get("error"))
        self._show(event)

    def _keep_row(self, run_id: str, **changes) -> None:
        if run_id in self._rows:
            self._rows[run_id].update(changes)

    # --- planning ------------------------------------------------------------------------------
    def _only(self, only: list[str]) -> list[dict]:
        """The rows of the runs named to be run (`--retry`), checked."""
        rows = {r: run_rows.get_run(self.db, r) for r in only}
        unknown = [r for r, row in rows.items() if row is None or row["study_id"] != self.study_id]
        if unknown:
            first = next(run_rows.iter_runs(self.db, self.study_id, page=1), None)
            raise RunnerError(f"no run {', '.join(unknown)} in study '{self.study_id}' "
                              f"(its runs look like {first['id'] if first else '-'})")
        done = [r for r in only if rows[r]["status"] in run_rows.FINISHED]
        if done:
            raise RunnerError(f"run {', '.join(done)} is done; only failed, cancelled, pending or "
                              "interrupted runs can be retried")
        return [rows[r] for r in only]

    @staticmethod
    def _wanted(retry_failed: bool) -> set[str]:
        """The statuses of the runs a command runs when it names none."""
        return {"pending", "running", "interrupted", "cancelled"} | ({"failed"} if retry_failed else set())

    def _selected(self, only_rows: list[dict] | None, wanted: set[str]) -> Iterator[dict]:
        """The runs this command runs, in order: those named, else the study's in `wanted` statuses (read a page
        at a time)."""
        if only_rows is not None:
            yield from only_rows
            return
        for r in run_rows.iter_runs(self.db, self.study_id):
            if r["status"] in wanted:
                yield r

    @staticmethod
    def _plan(run: dict) -> RunPlan:
        return RunPlan(run["case_id"], run["condition"], run["replicate"])

    def _item(self, item_id: str):
        """What a run of this item is given, read once for the item's runs: they start one after another (grid
        order), so the few items read last serve them; a study of many items does not keep every one."""
        item = self._items.pop(item_id, _UNREAD)
        if item is _UNREAD:
            try:
                item = run_item(self.db, self.protocol, self.study_id, item_id)
            except KeyError as exc:
                raise RunnerError(str(exc.args[0] if exc.args else exc)) from None
        self._items[item_id] = item  # the most recent last
        if len(self._items) > ITEMS_KEPT:
            del self._items[next(iter(self._items))]
        return item

    def _context(self, plan: RunPlan, run_id: str | None, on_result, *, draw: int | None = None) -> RunContext:
        from workbench.structured.counts import recorder

        draw = self.protocol.draw(plan) if draw is None else draw
        replies = run_id or f"follow-up:{plan.item_id}:{plan.condition}"
        settings = draw_settings(run_settings(self.protocol, self.definition, plan), draw)
        on_reply = record = recorder(self.db, self.study_id, replies)
        if run_id is not None:  # a run's readings are written with its turn's events
            def on_reply(turn, step, reading):
                self.transcript.defer(run_id, lambda: record(turn, step, reading))
        return RunContext(gateway=self.gateway, sink=self, settings=settings, item=self._item(plan.item_id),
                          options=self.protocol.run_options(self.definition), study_id=self.study_id,
                          run_id=run_id, case_id=plan.item_id, condition=plan.condition, replicate=plan.replicate,
                          draw=draw, control=self.control, on_result=on_result, definition=self.definition,
                          on_reply=on_reply)

    # --- running -------------------------------------------------------------------------------
    def _refuse_lost_treatments(self, conditions: set[str], allow: bool) -> None:
        """A condition whose treatment is lost (an input it depends on failed) runs only when allowed:
        otherwise it would run as another condition under its own name. `conditions`: those of the runs to run."""
        lost = self.protocol.lost_treatments(self.db, self.study_id, self.definition)
        hit = sorted(c for c in conditions if c in lost)
        if hit and not allow:
            named = "; ".join(f"{c} ({lost[c]})" for c in hit)
            raise RunnerError(f"study '{self.study_id}': {named}: the condition would run without its treatment. "
                              "Fix the input and create a new study, drop the condition, or run it marked as such "
                              "with --allow-missing-graphs")

    async def run(self, *, only: list[str] | None = None, retry_failed: bool = False,
                  allow_lost: bool = False) -> RunSummary:
        started = time.monotonic()
        from workbench.simmodel.refusal import refuse_mixing  # sim and real data never share a study (issue 16)

        refuse_mixing(self.db, self.study_id, self.definition, RunnerError)
        # Requests an ended process sent and never recorded are lost (paid, replies gone): on record as such
        # before any new call; every count of the study names them (workbench/studies/counts.py).
        self.lost = settle_journal(self.db, self.study_id)
        await _ready(self.db, self.gateway, self.study_id, sink=self, control=self.control)
        only_rows = self._only(only) if only else None
        named, wanted = {r["id"] for r in only_rows or ()}, self._wanted(retry_failed)
        # One walk over the study's runs, a page at a time (a study of any size holds no list of them): the
        # bar's totals, the conditions this command runs, and, for a protocol with follow-ups, the rows.
        follows = self._has_follow_ups()
        progress, conditions, selected, to_reset, rows = StudyProgress(), set(), 0, 0, []
        for r in run_rows.iter_runs(self.db, self.study_id):
            chosen = r["id"] in named if only_rows is not None else r["status"] in wanted
            progress.add(r, self.protocol.expected_calls(self.definition, self._plan(r)), chosen)
            if chosen:
                conditions.add(r["condition"])
                selected += 1
                to_reset += r["status"] in RETRIED
            if follows:
                rows.append(r)
        self._refuse_lost_treatments(conditions, allow_lost)
        self._rows = {r["id"]: r for r in rows}
        follow_ups = self.protocol.follow_ups(self.db, self.study_id, self.definition, rows) if follows else []
        # The bar counts this command's own work: its runs and the follow-ups not done before it.
        progress.extra_expected = sum(f.expected_calls for f in follow_ups if not f.done)
        self.progress = progress
        self.control.on_change(self._on_control)
        self.emit(Event(PROGRESS, payload=self.progress.snapshot()))

        if to_reset:  # failed, cancelled or interrupted runs to run again are pending from now on
            for r in self._selected(only_rows, wanted):
                if r["status"] in RETRIED:
                    run_rows.reset_run(self.db, r["id"])
                    r["status"] = "pending"
                    self._keep_row(r["id"], status="pending")
        waiting, errors, idle = self._selected(only_rows, wanted), [], asyncio.Event()

        def start_runs() -> None:
            """Start waiting runs while fewer than RUNS_AT_ONCE are under way (none once the study is cancelled:
            those stay as they were, for --resume)."""
            while len(self._tasks) < RUNS_AT_ONCE and not self.control.cancelled:
                run = next(waiting, None)
                if run is None:
                    break
                if self.control.run_cancelled(run["id"]):
                    continue
                task = self._tasks[run["id"]] = asyncio.create_task(self._execute(run), name=f"run {run['id']}")
                task.add_done_callback(lambda t, run_id=run["id"]: run_ended(run_id, t))
            if not self._tasks:
                idle.set()

        def run_ended(run_id: str, task: asyncio.Task) -> None:
            del self._tasks[run_id]
            # A run cancelled through the control ends as a cancelled task: not an error of the study. Any other
            # exception is a bug, raised once every run has ended.
            if not task.cancelled() and isinstance(task.exception(), Exception):
                errors.append(task.exception())
            start_runs()

        start_runs()
        self._start_follow_ups(rows)  # resumed studies: groups whose runs were all done before
        beating = asyncio.create_task(self._beat(), name="heartbeat")
        try:
            await idle.wait()
            if errors:
                raise errors[0]
            while any(not t.done() for t in self._follow_up_tasks.values()):
                for result in await asyncio.gather(*self._follow_up_tasks.values(), return_exceptions=True):
                    if isinstance(result, Exception):
                        raise result
        finally:
            beating.cancel()
            self.control.off_change(self._on_control)
            for t in [*self._tasks.values(), *self._follow_up_tasks.values()]:
                if not t.done():
                    t.cancel()
            self._keep_log_head()
        if self._disk_full is not None:
            raise self._disk_full
        return self._summary(selected, time.monotonic() - started)

    async def _beat(self) -> None:
        """Every `heartbeat` seconds while a call has been in flight long: a progress snapshot with the long
        calls' signs of life (and one more once they have all ended, so displays clear them). The ETA, while no
        call has ended to measure calls by, comes from the token rate of the streams in flight."""
        await self.live.beat(self.heartbeat, self._show_long_calls)

    def _show_long_calls(self, calls: list[dict]) -> None:
        if self.progress is None:
            return
        snap = self.progress.snapshot()
        snap["long_calls"] = calls
        if snap["eta_seconds"] is None and calls:
            made = self.progress.calls_made
            snap["eta_seconds"] = self.live.eta(snap["calls_expected"] - snap["calls_done"],
                                                snap["output_tokens"] / made if made else None)
        self.user_sink.emit(Event(PROGRESS, payload=snap))

    def _keep_log_head(self) -> None:
        """The call log's head goes into the store as the run ends (`log verify` checks the log against it);
        best effort on a full disk, where the calls' own rows still record every line's hash."""
        from workbench.gateway.logcheck import record_head

        try:
            record_head(self.db, self.study_id, "run")
        except Exception as exc:
            if not is_disk_full(exc):
                raise

    def _on_control(self, action: str, run_id: str | None) -> None:
        if self.progress is not None and action in ("paused", "resumed"):
            self.progress.paused = action == "paused"
            self.emit(Event(PROGRESS, payload=self.progress.snapshot()))
        if action != "cancelled":
            return
        if run_id is None:
            self._stopped = self._stopped or self.control.reason or "cancelled"
            if self._draining:  # a full disk: each run stops at its next turn, its call in flight recorded
                return
            targets = list(self._tasks.values()) + list(self._follow_up_tasks.values())
        else:
            targets = [self._tasks[run_id]] if run_id in self._tasks else []
        current = asyncio.current_task()
        for t in targets:
            if not t.done() and t is not current:  # the run that hit the cost ceiling is ending already
                t.cancel()

    async def _execute(self, run: dict) -> None:
        try:
            await self._execute_run(run)
        except Exception as exc:
            if not is_disk_full(exc):
                raise
            self._on_disk_full(run["id"], exc)

    def _on_disk_full(self, run_id: str, exc: BaseException) -> None:
        """Stop the whole study: nothing more can be stored. Raised by `run` once every run has stopped."""
        if self._disk_full is None:
            self._disk_full = disk_full_error(exc, "the study's runs", store_path(self.db) or "the store")
        # No new turn starts, but the calls already sent finish and are recorded (the gateway kept room for
        # their records): a paid reply is never thrown away.
        self._draining = True
        self.control.cancel(f"no space left ({self._disk_full.what})", interrupted=True)
        self._mark_interrupted(run_id, f"interrupted: {self.control.reason}")

    def _mark_interrupted(self, run_id: str, error: str) -> None:
        """Best effort: a full disk may refuse even this; a run left `running` reads as interrupted too. The
        status goes first and alone (the smallest write: the one a nearly full disk may still take), then the
        run's pending events."""
        event = Event(RUN_CANCELLED, run_id=run_id, payload={"error": error, "interrupted": True})
        try:
            run_rows.finish_run(self.db, run_id, "interrupted", error=error)
            self._keep_row(run_id, status="interrupted", error=error)
            self.emit(event)
            self.transcript.flush(run_id)
        except Exception as exc:
            if not is_disk_full(exc):
                raise

    async def _execute_run(self, run: dict) -> None:
        run_id, condition, plan = run["id"], run["condition"], self._plan(run)
        attempt = run_rows.start_attempt(self.db, run_id)  # at once: a cancel from here on finds the run started
        self._keep_row(run_id, status="running", error=None)
        started = time.monotonic()
        self.emit(Event(RUN_STARTED, run_id=run_id, payload={
            "case_id": run["case_id"], "condition": condition, "replicate": run["replicate"], "attempt": attempt,
            "draw": self.protocol.draw(plan), "calls_expected": self.progress.runs[run_id].calls_expected if self.progress else None}))

        expected, made = (self.progress.runs[run_id].calls_expected if self.progress else 0), 0

        def on_result(turn: str, result) -> None:
            """The turn's end: its events and the run's usage, one commit. The turn the run is declared to end
            with (its `expected_calls`-th) is written with the run's end instead, in that one commit: a run of
            one call then costs one commit less. Killed in between, the run is unfinished (re-run on resume,
            its transcript rewritten), as when killed mid-turn; a call beyond the declared ones writes both."""
            nonlocal made
            made += 1
            self.stats.add(result)

            def usage() -> None:
                run_rows.add_usage(self.db, run_id, result.input_tokens, result.output_tokens, result.cost)

            if made == expected:
                self.transcript.defer(run_id, usage)
            else:
                self.transcript.flush(run_id, usage)

        ctx = self._context(plan, run_id, on_result)
        try:
            output = await self.protocol.program(ctx)
        except (RunCancelled, asyncio.CancelledError) as exc:
            from_outside = isinstance(exc, asyncio.CancelledError) and not self.control.run_cancelled(run_id)
            reason = self.control.reason or "cancelled"
            if self.control.interrupted or from_outside:  # a signal, a full disk, the process shutting down
                self._mark_interrupted(run_id, f"interrupted: {reason if not from_outside else 'shutting down'}")
            else:
                self._end_run(run_id, "cancelled", Event(RUN_CANCELLED, run_id=run_id,
                                                         payload={"error": f"cancelled: {reason}"}),
                              error=f"cancelled: {reason}")
            if from_outside:
                raise
            return
        except CostCeilingReached as exc:
            self._end_run(run_id, "cancelled", Event(RUN_CANCELLED, run_id=run_id, payload={"error": str(exc)}),
                          error=str(exc))
            self.control.cancel(str(exc))
            return
        except GatewayError as exc:
            self._fail(run_id, str(exc))
            return
        except Exception as exc:  # a bug must not take the other runs down; keep the traceback for the log
            if is_disk_full(exc):
                raise
            self._fail(run_id, f"internal error: {type(exc).__name__}: {exc}", traceback.format_exc())
            return
        # Two things a finished run can be besides done: its output ends in a reply cut at max_tokens, and its
        # program ended in an error it counts (the output stands; the run is not re-run).
        truncated = (output.truncated if output.truncated is not None
                     else output_truncated(output.text, ctx.cut_texts))
        error = output.counted_error or self.protocol.counted_error(output)
        status = "done_with_errors" if error else "done"
        await self._end_run_soon(run_id, status, Event(RUN_FINISHED, run_id=run_id, payload={
            "status": status, "elapsed": round(time.monotonic() - started, 2), "error": error,
            "truncated": truncated, "truncated_turns": len(ctx.cut_texts),
            "report_missing": output.report.get("missing", [])}),
            error=error, truncated_turns=len(ctx.cut_texts),
            output={"text": output.text, "report": output.report, "truncated": truncated})
        self._start_follow_ups(list(self._rows.values()))

    def _fail(self, run_id: str, error: str, trace: str | None = None) -> None:
        payload = {"error": error}
        if trace:
            payload["traceback"] = trace
        self._end_run(run_id, "failed", Event(RUN_FAILED, run_id=run_id, payload=payload), error=error)

    # --- follow-ups (work that waits on a group of finished runs) -------------------------------
    def _has_follow_ups(self) -> bool:
        return type(self.protocol).follow_ups is not StudyProtocol.follow_ups

    def _start_follow_ups(self, runs: list[dict]) -> None:
        if not self._has_follow_ups():
            return  # the protocol has none (asking would cost a pass over every run, after every run)
        for f in self.protocol.follow_ups(self.db, self.study_id, self.definition, runs):
            if f.ready and not f.done and f.key not in self._follow_up_tasks:
                self._follow_up_tasks[f.key] = asyncio.create_task(self._follow_up(f), name=f"follow-up {f.key}")

    async def _follow_up(self, f: FollowUp) -> None:
        made = []

        def on_result(turn, result):
            made.append(turn)
            self.stats.add(result)

        ctx = self._context(RunPlan(f.item_id, f.condition), None, on_result, draw=0)  # the study's own draw
        try:
            await f.work(ctx)
        except (GatewayError, RunCancelled) as exc:
            self._follow_up_errors.append({"key": f.key, "case_id": f.item_id, "error": str(exc)})
        except asyncio.CancelledError:
            self._follow_up_errors.append({"key": f.key, "case_id": f.item_id, "error": "cancelled"})
            if not self.control.cancelled:
                raise
        except Exception as exc:
            self._follow_up_errors.append({"key": f.key, "case_id": f.item_id,
                                           "error": f"internal error: {type(exc).__name__}: {exc}",
                                           "traceback": traceback.format_exc()})
        finally:  # calls it did not need (e.g. extraction errors skip a comparison) count as settled
            if self.progress is not None:
                self.progress.follow_up_ended(f.expected_calls, len(made))
                self.emit(Event(PROGRESS, payload=self.progress.snapshot()))

    # --- the end -----------------------------------------------------------------------------------
    def _summary(self, executed: int, elapsed: float) -> RunSummary:
        from store.topology import topology_for_study

        runs = run_rows.runs_with_status(self.db, self.study_id, ("failed", "cancelled", "interrupted", "running"))
        s = self.stats
        return RunSummary(
            study_id=self.study_id, runs=run_rows.status_counts(self.db, self.study_id), executed=executed,
            calls=s.calls, network_calls=s.calls - s.replayed, replayed=s.replayed, input_tokens=s.input_tokens,
            output_tokens=s.output_tokens, cost=round(s.cost, 6), cost_unknown=s.cost_unknown,
            elapsed=round(elapsed, 2),
            failed=[{"run_id": r["id"], "error": r["error"]} for r in runs if r["status"] == "failed"],
            cancelled=[{"run_id": r["id"], "error": r["error"]} for r in runs if r["status"] == "cancelled"],
            interrupted=[{"run_id": r["id"], "error": r["error"]} for r in runs
                         if r["status"] in ("interrupted", "running")],
            topology=[{k: t[k] for k in ("case_id", "condition", "pattern", "switching_assumption",
                                         "convergent_recommendation")}
                      for t in topology_for_study(self.db, self.study_id)],
            topology_errors=self._follow_up_errors, stopped=self._stopped, lost_found=asdict(self.lost))
