"""What a study costs around its calls: CPU and wall per call on `mock`, by part, before and after (a script, not a test).

    PYTHONPATH=. python benchmarks/study_overhead_bench.py [--before /work/main] [--study calibration-small]
                                                         [--whole calibration-generated]

For each tree (`--before`, the code to compare with, and this checkout) a fresh process creates the study
on a new store (not timed), imports what a run imports and warms litellm's mock with one call (start-up,
timed apart), then runs the study in-process with `workbench --batch run STUDY` and prints:

- CPU (process time) and wall per call or replay, end to end;
- the share of each part, in CPU: the store's run rows (start, usage, finish, output, readings), the
  store's call rows (the call record, the replay lookup, the request journal), the JSONL call log, the
  transcript events, progress, the batch display, and the rest (runner, gateway, litellm's mock,
  protocol). Parts are timed exclusively (a part's time excludes the parts it calls);
- peak memory (max RSS) of the process.

`--whole STUDY` also runs `workbench --batch run STUDY` as a whole process per tree (start-up included) on a
copy of a freshly created store: its wall, CPU and peak memory (calibration-generated: 3,000 runs).

The machine may be shared: CPU time is the figure to read; wall is noisy under load.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# part -> functions ("module:Qualified.name"); missing ones are skipped (the trees differ)
PARTS = {
    "store: run rows": ["store.runs:start_attempt", "store.runs:add_usage", "store.runs:finish_run",
                        "store.runs:reset_run", "store.runs:list_runs", "store.outputs:write_output",
                        "store.structured_replies:put_reply"],
    "store: call rows": ["store.calls:add_call", "store.calls:find_ok_call", "store.calls:journal_sent"],
    "call log": ["workbench.gateway.calllog:CallLog.append", "workbench.gateway.calllog:CallLog.check_tail"],
    "events": ["workbench.runs.transcript:TranscriptSink.emit", "workbench.runs.transcript:TranscriptSink.flush",
               "store.events:append_event", "store.events:append_events"],
    "progress": ["workbench.runs.progress:StudyProgress.update", "workbench.runs.progress:StudyProgress.snapshot",
                 "workbench.runs.progress:RunState.to_dict"],
    "display": ["workbench.cli.run_display:PlainDisplay.emit"],
}
REST = "runner, gateway, mock, protocol"


# --- the child: one tree, in-process ---------------------------------------------------------------------

def _install_timers(totals: dict[str, float]) -> None:
    import importlib

    stack: list[list] = []  # [part, start, time spent in parts it called]
    clock = time.process_time

    def wrap(fn, part):
        def timed(*args, **kwargs):
            stack.append([part, clock(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                name, start, inner = stack.pop()
                spent = clock() - start
                totals[name] += spent - inner
                if stack:
                    stack[-1][2] += spent
        timed.__wrapped__ = fn
        return timed

    for part, targets in PARTS.items():
        totals[part] = 0.0
        for target in targets:
            module_name, qual = target.split(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            owner, _, attr = qual.rpartition(".")
            holder = getattr(module, owner) if owner else module
            original = getattr(holder, attr, None)
            if original is None:
                continue
            timed = wrap(original, part)
            setattr(holder, attr, timed)
            if not owner:  # also where it was imported by name
                for other in list(sys.modules.values()):
                    if getattr(other, "__name__", "").startswith(("workbench", "store")) and \
                            getattr(other, attr, None) is original:
                        setattr(other, attr, timed)


def child(study_file: str) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="study-bench-"))
    db = str(tmp / "bench.db")
    quiet = io.StringIO()
    c0 = time.process_time()
    from screens.launch import main

    import workbench.cli.run_cmd  # noqa: F401  (what a run imports before its first call: start-up)
    import workbench.runs.runner  # noqa: F401
    from workbench.gateway.transport import litellm_module

    litellm_module()
    startup_cpu = time.process_time() - c0
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        assert main(["--batch", "--db", db, "study", "create", study_file]) == 0, quiet.getvalue()
    study = _study_name(study_file)
    _warm(db)
    totals: dict[str, float] = {}
    _install_timers(totals)
    c2, w2 = time.process_time(), time.perf_counter()
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull), contextlib.redirect_stderr(devnull):
        code = main(["--batch", "--db", db, "run", study])
    cpu, wall = time.process_time() - c2, time.perf_counter() - w2
    import sqlite3

    turns = sqlite3.connect(db).execute(
        "SELECT count(*) FROM calls WHERE study_id = ? AND status IN ('ok', 'replayed')", [study]).fetchone()[0]
    totals[REST] = cpu - sum(totals.values())
    shutil.rmtree(tmp, ignore_errors=True)
    return {"study": study, "exit": code, "turns": turns, "cpu": cpu, "wall": wall, "parts": totals,
            "startup_cpu": startup_cpu, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _warm(db: str) -> None:
    """litellm imported and its mock answered once, outside any study (what the first call pays once)."""
    import asyncio

    from store import open_store
    from workbench.gateway import CallRequest, ModelSettings, build_gateway

    store = open_store(db)
    gateway = build_gateway(store, db)
    asyncio.run(gateway.call(CallRequest(messages=[{"role": "user", "content": "warm up"}],
                                         settings=ModelSettings(model="mock"))))
    store.close()


def _study_name(study_file: str) -> str:
    import tomllib

    return tomllib.loads(Path(study_file).read_text())["name"]


# --- the parent: both trees, side by side -----------------------------------------------------------------

def run_child(tree: Path, study_file: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, __file__, "--child", str(study_file)], env=env, cwd=tree,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{tree}: the benchmark failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def whole_process(tree: Path, study_file: Path) -> dict:
    """`workbench --batch run STUDY` as a whole process on a fresh store: wall, CPU (user + system), max RSS."""
    tmp = Path(tempfile.mkdtemp(prefix="study-bench-whole-"))
    db = tmp / "whole.db"
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "screens.launch", "--batch", "--db", str(db)]
    subprocess.run([*cmd, "study", "create", str(study_file)], env=env, cwd=tree, check=True,
                   capture_output=True)
    started = time.perf_counter()
    proc = subprocess.Popen([*cmd, "run", _study_name(str(study_file))], env=env, cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    shutil.rmtree(tmp, ignore_errors=True)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_mb": usage.ru_maxrss / 1024,
            "exit": os.waitstatus_to_exitcode(status)}


def report(results: dict[str, dict]) -> None:
    names = list(results)
    first = results[names[0]]
    print(f"\nstudy {first['study']} on mock: {first['turns']} calls and replays; "
          "CPU = process time (the figure to read), wall is noisy on a shared machine")
    print(f"{'':<34}" + "".join(f"{n:>22}" for n in names))

    def row(label: str, values: list[str]) -> None:
        print(f"{label:<34}" + "".join(f"{v:>22}" for v in values))

    row("CPU per call (ms)", [f"{r['cpu'] / r['turns'] * 1000:.2f}" for r in results.values()])
    row("wall per call (ms)", [f"{r['wall'] / r['turns'] * 1000:.2f}" for r in results.values()])
    row("CPU of the run (s)", [f"{r['cpu']:.2f}" for r in results.values()])
    row("imports before a run (CPU s)", [f"{r['startup_cpu']:.2f}" for r in results.values()])
    row("peak memory (MB)", [f"{r['maxrss_mb']:.0f}" for r in results.values()])
    print("share of the run's CPU, per call (ms):")
    for part in [*PARTS, REST]:
        row(f"  {part}", [f"{r['parts'][part] / r['turns'] * 1000:.2f} ({r['parts'][part] / r['cpu']:.0%})"
                          for r in results.values()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout to compare with (e.g. /work/main)")
    parser.add_argument("--study", default="calibration-small", help="study of studies/ timed by part")
    parser.add_argument("--whole", metavar="STUDY", help="also run this study as a whole process per tree")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    trees = {**({"before": args.before.resolve()} if args.before else {}), "after (this tree)": HERE}
    results = {name: run_child(tree, tree / "studies" / f"{args.study}.toml") for name, tree in trees.items()}
    report(results)
    if args.whole:
        print(f"\n{args.whole} as a whole process (`workbench --batch run`, start-up included):")
        for name, tree in trees.items():
            r = whole_process(tree, tree / "studies" / f"{args.whole}.toml")
            print(f"  {name:<20} wall {r['wall']:7.1f} s   CPU {r['cpu']:7.1f} s   peak memory "
                  f"{r['maxrss_mb']:.0f} MB   exit {r['exit']}")


if __name__ == "__main__":
    main()
