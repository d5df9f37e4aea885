"""`workbench --batch run STUDY [--resume] [--replay] [--retry RUN_ID ...] [--retry-failed]`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from workbench.cli.connection_options import add_connection_options
from workbench.cli.provider_batch_options import add_provider_batch_options, provider_batch_config, run_endpoints
from workbench.cli.context import FAILED, OK, CommandError, Context, study_action


def register(sub: argparse._SubParsersAction) -> None:
    p = study_action(
        sub, "run", run, help="run a study's architectures (freezes the study first)",
        description="Run every run of STUDY (case x condition x replicate; P1 = three C2 runs) concurrently "
                    "up to the gateway's limits, then classify P1 topology. A study that was interrupted "
                    "continues with --resume: completed calls are replayed from the store, not made again. "
                    "Exit 1 if any run failed or the study did not complete.",
        examples=("workbench --batch run glenda-crock-mock", "workbench --batch run glenda-crock-mock --resume"))
    p.add_argument("--resume", action="store_true",
                   help="continue a study that was started (interrupted, cancelled or pending runs)")
    p.add_argument("--replay", action="store_true",
                   help="no network: serve every call from the store and fail on a call that is not there")
    p.add_argument("--retry", action="append", default=[], metavar="RUN_ID",
                   help="re-run just this failed (or cancelled) run; may be repeated")
    p.add_argument("--retry-failed", action="store_true", help="with --resume, also re-run every failed run")
    p.add_argument("--allow-missing-graphs", dest="allow_lost", action="store_true",
                   help="run a condition whose treatment is lost (faultline: a graph condition with a persona "
                        "whose belief graph failed) instead of refusing it; tables and the report mark it")
    add_connection_options(p)
    add_provider_batch_options(p)


def run(args, ctx: Context) -> int:
    from store.runs import status_counts
    from workbench.gateway import build_gateway
    from workbench.runs.runner import RunnerError, run_study
    from workbench.studies import FrozenStudyChanged, StudyError, StudyNotFound, load_study
    from workbench.gateway import prefetch_model_library
    from workbench.protocol.registry import protocol_of

    prefetch_model_library()  # its import (seconds) overlaps the start-up that follows, up to the first call
    db = ctx.db()
    try:
        study = load_study(db, args.study_id)
    except StudyNotFound as exc:
        raise CommandError(str(exc)) from None
    if args.retry_failed and not args.resume:  # before "already run": that message would not name --resume
        raise CommandError(f"--retry-failed needs --resume: workbench --batch run {args.study_id} --resume "
                           "--retry-failed", code=2)
    counts = status_counts(db, args.study_id)
    started = {k: v for k, v in counts.items() if k != "pending" and v}
    if started and not (args.resume or args.retry):
        described = ", ".join(f"{v} {'interrupted' if k == 'running' else k}" for k, v in started.items())
        raise CommandError(f"study '{args.study_id}' was already run ({described}); pass --resume to continue "
                           "it, or --retry RUN_ID to re-run one failed run")

    from workbench.cli.run_display import make_display

    batches = provider_batch_config(args, run_endpoints(db, study)) if args.provider_batch else None
    gateway = build_gateway(db, ctx.db_path, replay_only=args.replay, max_connections=args.max_connections,
                            stream=args.stream, provider_batch=batches)
    display = TerminalSafeSink(make_display())

    received: list[int] = []

    async def main():
        from workbench.runs.control import RunControl

        control = RunControl()
        loop = asyncio.get_running_loop()

        def on_signal(sig: int) -> None:
            # SIGHUP (an SSH session dropping), SIGTERM and SIGINT end a run alike: in-flight attempts
            # are recorded as cancelled, runs marked interrupted, and `--resume` picks them up.
            received.append(sig)
            control.cancel(f"interrupted by {signal.Signals(sig).name}", interrupted=True)

        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, on_signal, sig)
            except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
                pass
        sink = display
        if protocol_of(study["definition"]).treatment_steps(study["definition"]):
            from workbench.fidelity.watch import TreatmentWatch

            # "no debate: both motions died" at a run's end; a protocol naming no defining step has none to
            # say (its runs' readings are all None), and reading each run's rows at its end cost a run 4 queries
            sink = TreatmentWatch(display, db, args.study_id, control)
        try:
            return await run_study(db, gateway, args.study_id, sink=sink, control=control,
                                   only=args.retry or None, retry_failed=args.retry_failed,
                                   allow_lost=args.allow_lost)
        finally:
            for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)

    try:
        summary = asyncio.run(main())
    except (FrozenStudyChanged, RunnerError) as exc:
        raise CommandError(str(exc)) from None
    except StudyError as exc:
        raise CommandError(f"study '{args.study_id}' cannot run: {exc}") from None
    finally:
        display.close()
    if received:
        return interrupted_exit(ctx, summary, received[0])
    from workbench.studies.counts import study_counts

    counts = study_counts(db, args.study_id)  # the study's counts, as `study show` and the report give them
    doc = {"ok": summary.complete, **summary.to_dict(), "counts": counts.to_dict()}
    ctx.emit(doc, lambda: summary_text(summary, counts), study=args.study_id)
    return OK if summary.complete else FAILED


class TerminalSafeSink:
    """The progress display, made harmless once its terminal is gone (SIGHUP after an SSH drop makes
    every write fail): the run itself must not fail because nobody is watching."""

    def __init__(self, display) -> None:
        self.display, self.broken = display, False

    def emit(self, event) -> None:
        if self.broken:
            return
        try:
            self.display.emit(event)
        except OSError:
            self.broken = True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.display.close()


def interrupted_exit(ctx: Context, summary, sig: int) -> int:
    """One line on stderr (the terminal may be gone: a failed write is ignored) and the signal's exit code."""
    name = signal.Signals(sig).name
    if ctx.json:
        with contextlib.suppress(OSError):
            ctx.emit({"ok": False, "interrupted_by": name, **summary.to_dict()})
    with contextlib.suppress(OSError):
        print(f"workbench: {name}: {len(summary.interrupted)} runs of study '{summary.study_id}' interrupted, "
              f"in-flight calls recorded as cancelled; continue with: workbench --batch run {summary.study_id} "
              "--resume", file=sys.stderr, flush=True)
    return 128 + sig


def summary_text(s, counts) -> str:
    from workbench.cli.run_display import duration

    from workbench.studies.costs import cost_text

    cost = cost_text(s.cost, s.cost_unknown)
    lines = [
        f"study {s.study_id}: {counts.runs_text()}",
        f"study counts: {counts.calls_text()}",
        *([f"study {counts.errors_text()}"] if counts.errors_text() else []),
        *([f"study {counts.cut_text()}"] if counts.cut_text() else []),
        f"this command: {s.executed} runs attempted, {s.calls} turns completed ({s.network_calls} by a model, "
        f"{s.replayed} replayed), {s.input_tokens} input + {s.output_tokens} output tokens, {cost}, "
        f"{duration(s.elapsed)}",
    ]
    if counts.lost.calls:  # requests a crashed process sent and never recorded
        lines.insert(2, counts.lost.text())
    for t in s.topology:
        extra = f"; switching assumption: {t['switching_assumption']}" if t["switching_assumption"] else ""
        lines.append(f"topology {t['case_id']} {t['condition']}: {t['pattern']}{extra}")
    for e in s.topology_errors:
        lines.append(f"topology {e['case_id']} not classified: {e['error']} (run --resume to try again)")
    for f in s.failed:
        lines.append(f"failed {f['run_id']}: {f['error']}  (retry: workbench --batch run {s.study_id} "
                     f"--retry {f['run_id']})")
    if s.stopped:
        lines.append(f"stopped: {s.stopped}; continue with: workbench --batch run {s.study_id} --resume")
    elif s.cancelled or s.interrupted or s.runs.get("pending"):
        lines.append(f"not finished; continue with: workbench --batch run {s.study_id} --resume")
    lines.append("complete" if s.complete else "incomplete")
    return "\n".join(lines)
