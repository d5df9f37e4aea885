"""Running a study: every run of it, concurrently, resumably; the TUI and batch mode both use this.

    runs = prepare_study(db, study_id)              # freeze (or verify), create every run row up front
    summary = await run_study(db, gateway, study_id, sink=my_sink, control=RunControl())

What happens:

- The study is frozen if it is not yet; a frozen one is verified first, and a
  change to anything it covers stops the run (FrozenStudyChanged).
- Every run (case x condition x replicate; P1 = 3) exists as a row before any
  call, unique on (study, case, condition, replicate), so nothing is duplicated.
- Runs that are pending, interrupted ("running" left by a killed process) or
  cancelled are started together as asyncio tasks; the gateway's concurrency
  cap and rate limits are the only throttle. Done runs are skipped; failed runs
  wait for an explicit retry (`only=[run_id]` or `retry_failed=True`).
- A re-run starts its program from the top: every call already completed is
  served by the gateway's replay from the store (no network), the turns that
  were in flight are made again once, and the transcript is rewritten.
- When a case's three P1 runs are done, its topology is classified and stored.
- A lock file beside the store keeps two processes from running one study.

Events: `sink` receives everything the programs emit (turn_started, token,
turn_finished, turn_failed, protocol events), run-level events (run_started,
run_finished, run_failed, run_cancelled) and, after each change, a `progress`
event whose payload is `StudyProgress.snapshot()` plus the changed `run`.
The transcript sink stores all of them but tokens and progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import sqlite_utils

from store import runs as run_rows
from store.topology import get_topology, save_topology
from workbench.architectures import architecture, draw_for
from workbench.architectures.base import RunContext, TurnStats, draw_settings
from workbench.events import PROGRESS, RUN_FAILED, RUN_FINISHED, RUN_STARTED, Event, EventSink, NullSink
from workbench.gateway.api import CostCeilingReached, GatewayError, ModelSettings
from workbench.run_control import RunCancelled, RunControl
from workbench.run_progress import RUN_CANCELLED, StudyProgress
from workbench.transcript import TranscriptSink

TOPOLOGY_CONDITION = "P1"


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
    stopped: str | None = None                # why the study stopped early (cancel, cost ceiling)

    @property
    def complete(self) -> bool:
        return (self.runs.get("done", 0) == sum(self.runs.values()) and not self.topology_errors
                and not self.stopped)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["complete"] = self.complete
        return d


def model_settings(definition: dict) -> ModelSettings:
    m = definition["model"]
    return ModelSettings(model=m["name"], api_base=m["api_base"] or None, temperature=m["temperature"],
                         seed=m["seed"], max_tokens=m["max_tokens"], timeout=m["timeout"])


def prepare_study(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Freeze the study (or verify its freeze) and create every planned run. Returns the run rows
    in grid order (case, condition, replicate): a screen can draw its grid from them before running."""
    from workbench.studies import freeze_study, load_study, planned_runs

    study = load_study(db, study_id)
    freeze_study(db, study_id)  # verifies instead when already frozen; raises FrozenStudyChanged
    run_rows.ensure_runs(db, study_id, planned_runs(study))
    return run_rows.list_runs(db, study_id)


async def run_study(db: sqlite_utils.Database, gateway, study_id: str, *, sink: EventSink | None = None,
                    control: RunControl | None = None, only: list[str] | None = None,
                    retry_failed: bool = False, lock: bool = True) -> RunSummary:
    """Run (or resume) a study. `only`: just these runs (a failed one is retried)."""
    runner = StudyRunner(db, gateway, study_id, sink=sink, control=control)
    with (study_lock(db, study_id) if lock else contextlib.nullcontext()):
        return await runner.run(only=only, retry_failed=retry_failed)


@contextlib.contextmanager
def study_lock(db: sqlite_utils.Database, study_id: str) -> Iterator[None]:
    """An exclusive lock on `<store>.logs/<study>.run.lock`; released by the OS if the process dies."""
    from store.db import store_path
    from workbench.paths import logs_dir

    path = store_path(db)
    if path is None:  # an in-memory store: one process by definition
        yield
        return
    import fcntl

    lock_path = logs_dir(path) / f"{study_id}.run.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise RunnerError(f"study '{study_id}' is being run by {holder}; wait for it or stop it first") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"process {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class StudyRunner:
    def __init__(self, db: sqlite_utils.Database, gateway, study_id: str, *, sink: EventSink | None = None,
                 control: RunControl | None = None) -> None:
        from workbench.studies import load_study

        self.db, self.gateway, self.study_id = db, gateway, study_id
        self.study = load_study(db, study_id)
        self.definition = self.study["definition"]
        self.settings = model_settings(self.definition)
        self.control = control or RunControl()
        self.user_sink = sink or NullSink()
        self.transcript = TranscriptSink(db)
        self.stats = TurnStats()
        self.progress: StudyProgress | None = None
        self._tasks: dict[str, asyncio.Task] = {}
        self._topology_tasks: dict[str, asyncio.Task] = {}
        self._topology_errors: list[dict] = []
        self._stopped: str | None = None
        self._scenarios: dict[str, str] = {}

    # --- the event stream ---------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        self.transcript.emit(event)
        self.user_sink.emit(event)
        if self.progress is not None:
            changed = self.progress.update(event)
            if changed is not None or event.kind == "turn_finished":
                snap = self.progress.snapshot()
                if changed is not None:
                    snap["run"] = changed.to_dict()
                self.user_sink.emit(Event(PROGRESS, payload=snap))

    # --- planning ------------------------------------------------------------------------------
    def _select(self, runs: list[dict], only: list[str] | None, retry_failed: bool) -> list[dict]:
        by_id = {r["id"]: r for r in runs}
        if only:
            unknown = [r for r in only if r not in by_id]
            if unknown:
                raise RunnerError(f"no run {', '.join(unknown)} in study '{self.study_id}' "
                                  f"(its runs look like {runs[0]['id'] if runs else '-'})")
            done = [r for r in only if by_id[r]["status"] == "done"]
            if done:
                raise RunnerError(f"run {', '.join(done)} is done; only failed, cancelled, pending or "
                                  "interrupted runs can be retried")
            return [by_id[r] for r in only]
        wanted = {"pending", "running", "cancelled"} | ({"failed"} if retry_failed else set())
        return [r for r in runs if r["status"] in wanted]

    def _expected(self, runs: list[dict]) -> dict[str, int]:
        options = self.definition.get("architectures", {})
        return {r["id"]: architecture(r["condition"]).expected_calls(options) for r in runs}

    def _scenario(self, case_id: str) -> str:
        if case_id not in self._scenarios:
            from store.cases import get_case

            row = get_case(self.db, case_id)
            if row is None:
                raise RunnerError(f"case '{case_id}' is not in the store")
            self._scenarios[case_id] = row["document"]["scenario"]
        return self._scenarios[case_id]

    # --- running -------------------------------------------------------------------------------
    async def run(self, *, only: list[str] | None = None, retry_failed: bool = False) -> RunSummary:
        started = time.monotonic()
        runs = prepare_study(self.db, self.study_id)
        selected = self._select(runs, only, retry_failed)
        from workbench.architectures.topology import EXPECTED_CALLS

        p1_cases = self._topology_cases(runs)
        self.progress = StudyProgress(runs, self._expected(runs), extra_calls=EXPECTED_CALLS * len(p1_cases))
        self.progress.extra_done = EXPECTED_CALLS * sum(
            1 for c in p1_cases if get_topology(self.db, self.study_id, c, TOPOLOGY_CONDITION))
        self.control.on_change(self._on_control)
        self.emit(Event(PROGRESS, payload=self.progress.snapshot()))

        for r in selected:
            if r["status"] in ("failed", "cancelled"):
                run_rows.reset_run(self.db, r["id"])
            self._tasks[r["id"]] = asyncio.create_task(self._execute(r), name=f"run {r['id']}")
        for case_id in p1_cases:  # resumed studies: topology whose runs were all done before
            self._maybe_topology(case_id)
        try:
            # Runs cancelled through the control end as cancelled tasks (some before they ever started):
            # that is not an error of the study. Any other exception is a bug and is raised.
            for result in await asyncio.gather(*self._tasks.values(), return_exceptions=True):
                if isinstance(result, Exception):
                    raise result
            while any(not t.done() for t in self._topology_tasks.values()):
                for result in await asyncio.gather(*self._topology_tasks.values(), return_exceptions=True):
                    if isinstance(result, Exception):
                        raise result
        finally:
            self.control.off_change(self._on_control)
            for t in [*self._tasks.values(), *self._topology_tasks.values()]:
                if not t.done():
                    t.cancel()
        return self._summary(len(selected), time.monotonic() - started)

    def _on_control(self, action: str, run_id: str | None) -> None:
        if self.progress is not None and action in ("paused", "resumed"):
            self.progress.paused = action == "paused"
            self.emit(Event(PROGRESS, payload=self.progress.snapshot()))
        if action != "cancelled":
            return
        if run_id is None:
            self._stopped = self._stopped or self.control.reason or "cancelled"
            targets = list(self._tasks.values()) + list(self._topology_tasks.values())
        else:
            targets = [self._tasks[run_id]] if run_id in self._tasks else []
        current = asyncio.current_task()
        for t in targets:
            if not t.done() and t is not current:  # the run that hit the cost ceiling is ending already
                t.cancel()

    async def _execute(self, run: dict) -> None:
        run_id, condition = run["id"], run["condition"]
        module = architecture(condition)
        draw = draw_for(condition, run["replicate"])
        attempt = run_rows.start_attempt(self.db, run_id)
        started = time.monotonic()
        self.emit(Event(RUN_STARTED, run_id=run_id, payload={
            "case_id": run["case_id"], "condition": condition, "replicate": run["replicate"], "attempt": attempt,
            "draw": draw, "calls_expected": self.progress.runs[run_id].calls_expected if self.progress else None}))

        def on_result(turn: str, result) -> None:
            self.stats.add(result)
            run_rows.add_usage(self.db, run_id, result.input_tokens, result.output_tokens, result.cost)

        ctx = RunContext(gateway=self.gateway, sink=self, settings=draw_settings(self.settings, draw),
                         scenario=self._scenario(run["case_id"]), options=self.definition.get("architectures", {}),
                         study_id=self.study_id, run_id=run_id, case_id=run["case_id"], condition=condition,
                         replicate=run["replicate"], draw=draw, control=self.control, on_result=on_result)
        try:
            output = await module.run(ctx)
        except (RunCancelled, asyncio.CancelledError) as exc:
            reason = self.control.reason or "cancelled"
            run_rows.finish_run(self.db, run_id, "cancelled", error=f"cancelled: {reason}")
            self.emit(Event(RUN_CANCELLED, run_id=run_id, payload={"error": f"cancelled: {reason}"}))
            if isinstance(exc, asyncio.CancelledError) and not self.control.run_cancelled(run_id):
                raise  # cancelled from outside (e.g. the process is shutting down)
            return
        except CostCeilingReached as exc:
            run_rows.finish_run(self.db, run_id, "cancelled", error=str(exc))
            self.emit(Event(RUN_CANCELLED, run_id=run_id, payload={"error": str(exc)}))
            self.control.cancel(str(exc))
            return
        except GatewayError as exc:
            self._fail(run_id, str(exc))
            return
        except Exception as exc:  # a bug must not take the other runs down; keep the traceback for the log
            self._fail(run_id, f"internal error: {type(exc).__name__}: {exc}", traceback.format_exc())
            return
        run_rows.finish_run(self.db, run_id, "done", output={"text": output.text, "report": output.report})
        self.emit(Event(RUN_FINISHED, run_id=run_id, payload={
            "status": "done", "elapsed": round(time.monotonic() - started, 2),
            "report_missing": output.report.get("missing", [])}))
        if condition == TOPOLOGY_CONDITION:
            self._maybe_topology(run["case_id"])

    def _fail(self, run_id: str, error: str, trace: str | None = None) -> None:
        run_rows.finish_run(self.db, run_id, "failed", error=error)
        payload = {"error": error}
        if trace:
            payload["traceback"] = trace
        self.emit(Event(RUN_FAILED, run_id=run_id, payload=payload))

    # --- P1 topology -----------------------------------------------------------------------------
    def _topology_cases(self, runs: list[dict]) -> list[str]:
        return sorted({r["case_id"] for r in runs if r["condition"] == TOPOLOGY_CONDITION})

    def _maybe_topology(self, case_id: str) -> None:
        if case_id in self._topology_tasks or get_topology(self.db, self.study_id, case_id, TOPOLOGY_CONDITION):
            return
        p1 = [r for r in run_rows.list_runs(self.db, self.study_id)
              if r["case_id"] == case_id and r["condition"] == TOPOLOGY_CONDITION]
        if len(p1) < 3 or any(r["status"] != "done" for r in p1):
            return
        self._topology_tasks[case_id] = asyncio.create_task(self._topology(case_id, p1), name=f"topology {case_id}")

    async def _topology(self, case_id: str, p1: list[dict]) -> None:
        from store.outputs import get_output

        runs = [{"run_id": r["id"], "replicate": r["replicate"], "text": get_output(self.db, r["id"])["text"]}
                for r in sorted(p1, key=lambda r: r["replicate"])]
        made = []

        def on_result(turn, result):
            made.append(turn)
            self.stats.add(result)

        ctx = RunContext(gateway=self.gateway, sink=self, settings=self.settings, scenario=self._scenario(case_id),
                         options=self.definition.get("architectures", {}), study_id=self.study_id, run_id=None,
                         case_id=case_id, condition=TOPOLOGY_CONDITION, control=self.control, on_result=on_result)
        try:
            row = await self._classify(ctx, runs, made)
        except (GatewayError, RunCancelled) as exc:
            self._topology_errors.append({"case_id": case_id, "error": str(exc)})
            return
        except asyncio.CancelledError:
            self._topology_errors.append({"case_id": case_id, "error": "cancelled"})
            if not self.control.cancelled:
                raise
            return
        except Exception as exc:
            self._topology_errors.append({"case_id": case_id, "error": f"internal error: {type(exc).__name__}: {exc}",
                                          "traceback": traceback.format_exc()})
            return
        save_topology(self.db, study_id=self.study_id, case_id=case_id, condition=TOPOLOGY_CONDITION, **row)

    async def _classify(self, ctx: RunContext, runs: list[dict], made: list) -> dict:
        from workbench.architectures.topology import EXPECTED_CALLS, classify_case

        try:
            return await classify_case(ctx, runs)
        finally:  # calls it did not need (extraction errors skip the comparison) leave the progress total
            if self.progress is not None:
                self.progress.extra_expected -= EXPECTED_CALLS - len(made)
                self.emit(Event(PROGRESS, payload=self.progress.snapshot()))

    # --- the end -----------------------------------------------------------------------------------
    def _summary(self, executed: int, elapsed: float) -> RunSummary:
        from store.topology import topology_for_study

        runs = run_rows.list_runs(self.db, self.study_id)
        s = self.stats
        return RunSummary(
            study_id=self.study_id, runs=run_rows.status_counts(self.db, self.study_id), executed=executed,
            calls=s.calls, network_calls=s.calls - s.replayed, replayed=s.replayed, input_tokens=s.input_tokens,
            output_tokens=s.output_tokens, cost=round(s.cost, 6), cost_unknown=s.cost_unknown,
            elapsed=round(elapsed, 2),
            failed=[{"run_id": r["id"], "error": r["error"]} for r in runs if r["status"] == "failed"],
            cancelled=[{"run_id": r["id"], "error": r["error"]} for r in runs if r["status"] == "cancelled"],
            topology=[{k: t[k] for k in ("case_id", "condition", "pattern", "switching_assumption",
                                         "convergent_recommendation")}
                      for t in topology_for_study(self.db, self.study_id)],
            topology_errors=self._topology_errors, stopped=self._stopped)
