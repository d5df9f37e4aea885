"""The calibration judge panel as whole processes, the workbench against Inspect AI (a script, not a test).

    PYTHONPATH=. python benchmarks/whole_process_bench.py [--repeats N] [--latency 0.2] [--connections 32]
                                                         [--study small|generated|both] [--decompose] [--tree /work/main]

A loopback server (its own process) answers every request after `--latency` seconds with a valid judge
score. Three commands, each a new process, alternate `--repeats` times (a busy moment hits all alike; by
default 3 on calibration-small and 2 on calibration-generated, so both studies take about 5 minutes on a quiet
machine); every figure is the median:

- the workbench as a user types it, `workbench --batch run calibration-small` (and -generated) with its three
  judges on that server and `--max-connections 32` (the store's global concurrency left at its default), on a
  store where the study was created beforehand: start-up, imports, the run and its bookkeeping, exit;
- Inspect AI as a user types it, the reference the targets are read against: `inspect eval
  benchmarks/inspect_calibration_task.py -T prompts=FILE --model openai-api/bench/bench --model-base-url URL
  --max-connections 32`, a task of one sample per request the workbench's run sent (the same messages, the
  `generate()` solver, no scorer), writing its eval log as it always does, into a fresh log folder;
- Inspect AI's model API alone (a second reference, labelled so): a process that imports `inspect_ai.model`
  and awaits `model.generate` for as many requests in one gather (no task, no eval, no log).

The last lines are issue 40's targets, each with its figure against both references, beside the load
average and the floor the server's waves set (ceil(calls / connections) x latency: no client finishes sooner).
On a shared machine read CPU first: wall mostly measures the load there.

`--decompose` times the workbench instrumented from inside instead (a few lines of the benchmark's own run
before it; the command itself is unchanged):

- workbench: the whole process (wall from spawn to exit, CPU = user + system of all its threads); litellm's
  import (its CPU on the thread that imports it, and its wall); start-up, from spawn to the first request
  sent (interpreter, the workbench's imports, the store, the freeze check, the run rows, and the wait for
  litellm's import if it is not done by then); the calls, from the first request to exit;
- Inspect AI's model API: the whole process; `import inspect_ai` (from spawn: interpreter and import); the calls.

and compares the workbench without litellm's import (its CPU taken out; its wall as if start-up took only the
workbench's own start-up CPU) against Inspect whole: litellm is the library every model call must go through
here, so what it costs to import is shown apart.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gateway_bench import server_process  # noqa: E402
from tests.support.loopback import DUMMY_KEY  # noqa: E402

JUDGES = ("claude", "gpt4o-mini", "llama")

# Both sides write their marks (wall clock, the process's CPU) to the file named by BENCH_MARKS at exit.
MARKS = """
import atexit, json, os, resource, sys, threading, time

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

marks = {}

def mark(name, **more):
    marks.setdefault(name, {"at": time.time(), "cpu": cpu(), **more})

atexit.register(lambda: (mark("exit"), open(os.environ["BENCH_MARKS"], "w").write(json.dumps(marks))))
"""

# The workbench's command, unchanged: litellm's import is timed where it happens (on whichever thread), the
# first request where the gateway sends it.
WORKBENCH = MARKS + """
import store.db  # first, as the command itself does: sqlite-utils loads without pandas and numpy (1 s of CPU)
import workbench.gateway.transport as transport

real_import, real_load, real_complete = transport.litellm_module, transport.load_litellm, transport.complete_attempt

def litellm_module():
    first = transport._litellm is None and "litellm" not in marks
    if first:
        marks["litellm"] = {"start": time.time(), "thread_cpu": time.thread_time()}
    try:
        return real_import()
    finally:
        if first:
            entry = marks["litellm"]
            entry.update(end=time.time(), thread_cpu=time.thread_time() - entry["thread_cpu"])

async def load_litellm():
    mark("needed")  # the first call wants the library: what it waits from here is start-up lost to the import
    await real_load()
    mark("loaded")

async def complete_attempt(*args, **kwargs):
    mark("first_request")
    return await real_complete(*args, **kwargs)

transport.litellm_module, transport.load_litellm, transport.complete_attempt = litellm_module, load_litellm, \
    complete_attempt
from screens.launch import main
sys.argv = ["workbench", *sys.argv[1:]]
code = main()
mark("done", heavy=[m for m in ("pandas", "numpy") if m in sys.modules])
sys.exit(code)
"""

INSPECT = """
import asyncio
from inspect_ai.model import GenerateConfig, get_model
mark("imported")

async def main(url, n, connections):
    model = get_model("openai-api/bench/bench", base_url=url, api_key="{key}", memoize=False,
                      config=GenerateConfig(max_connections=connections, max_retries=0, max_tokens=64,
                                            temperature=0.0))
    await asyncio.gather(*(model.generate(f"score interaction {{i}}: how likely is a good outcome?")
                           for i in range(n)))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
mark("done")
"""


def study_file(folder: Path, url: str, study: str) -> tuple[Path, str]:
    """The shipped study `studies/calibration-<study>.toml` with its three judges on the loopback server
    (everything else as shipped). Returns the file and the study's name."""
    name = f"calibration-{study}"
    text = (ROOT / "studies" / f"{name}.toml").read_text()
    text = text.replace('"../cases/', f'"{ROOT / "cases"}/')
    head, *judges = text.split("[[judges]]")
    on_server = f'model = "openai/bench"\napi_base = "{url}"\nmax_tokens = 64'
    judges = [j.replace('model = "mock"', on_server, 1) for j in judges]
    path = folder / f"{name}.toml"
    path.write_text("[[judges]]".join([head, *judges]))
    return path, name


def timed(cmd: list[str], env: dict, marks_file: Path, cwd: Path | None = None) -> dict:
    """A whole process: wall from spawn to exit, CPU (user + system), and the marks it wrote (times made
    relative to the spawn)."""
    errors = marks_file.with_suffix(".stderr")
    with open(errors, "wb") as stderr:  # a file, not a pipe nobody reads while it runs (a full pipe stalls it)
        started_at, started = time.time(), time.perf_counter()
        proc = subprocess.Popen(cmd, env=dict(env, BENCH_MARKS=str(marks_file)), cwd=cwd or env["PYTHONPATH"],
                                stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:4]} failed: {errors.read_text()[-2000:]}")
    marks = json.loads(marks_file.read_text()) if marks_file.exists() else {}  # the command as typed writes none
    for entry in marks.values():
        for key in ("at", "start", "end"):
            if key in entry:
                entry[key] -= started_at
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "marks": marks}


def workbench_parts(p: dict) -> dict[str, tuple[float, float]]:
    """(wall, CPU) of each part of a workbench process."""
    m = p["marks"]
    if m["done"]["heavy"]:  # the measurement must not change what the command imports
        raise SystemExit(f"the instrumented workbench process imported {m['done']['heavy']}, which a run does not")
    lit, first = m["litellm"], m["first_request"]
    waited = max(m["loaded"]["at"] - m["needed"]["at"], 0.0)
    startup = (first["at"], first["cpu"])
    own_cpu = first["cpu"] - lit["thread_cpu"]
    return {
        "whole": (p["wall"], p["cpu"]),
        "litellm import (its own thread)": (lit["end"] - lit["start"], lit["thread_cpu"]),
        "start-up to the first request": startup,
        "  of which waiting for litellm": (waited, 0.0),
        "  the workbench's own start-up": (startup[0] - waited, own_cpu),
        "the calls, first request to exit": (p["wall"] - first["at"], p["cpu"] - first["cpu"]),
        # start-up as if it took its own CPU alone (litellm's import neither run nor waited for)
        "whole without litellm's import": (p["wall"] - startup[0] + own_cpu, p["cpu"] - lit["thread_cpu"]),
    }


def inspect_parts(p: dict) -> dict[str, tuple[float, float]]:
    imported = p["marks"]["imported"]
    return {
        "whole": (p["wall"], p["cpu"]),
        "start-up: interpreter + import inspect_ai": (imported["at"], imported["cpu"]),
        "the calls, import to exit": (p["wall"] - imported["at"], p["cpu"] - imported["cpu"]),
    }


def medians(runs: list[dict[str, tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    return {k: (statistics.median(r[k][0] for r in runs), statistics.median(r[k][1] for r in runs)) for k in runs[0]}


def answer(body: dict) -> str:
    return '{"score": 0.62, "reason": "the record shows a plausible but uncertain path"}'


TARGETS = {"small": 1.0, "generated": 0.7}  # issue 40: the workbench's wall at most this times Inspect AI's


def workbench_command(tree: Path) -> list[str]:
    """The command a user types: the `workbench` script beside this interpreter (the tree first on the path)."""
    script = Path(sys.executable).with_name("workbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "screens.launch"]


def progress_lines_per_second(stderr: Path) -> int:
    """The most `progress` lines the batch output printed in any one second (its lines are timestamped)."""
    seconds: dict[str, int] = {}
    for line in stderr.read_text(errors="replace").splitlines():
        stamp, _, rest = line.partition(" ")
        if rest.startswith("progress "):
            seconds[stamp] = seconds.get(stamp, 0) + 1
    return max(seconds.values(), default=0)


def inspect_eval_command(prompts: Path, url: str, connections: int, log_dir: Path) -> list[str]:
    """`inspect eval` as a user types it in this checkout (the `inspect` script beside this interpreter; a task
    file's path relative to the current folder, as Inspect wants it), its log written."""
    script = Path(sys.executable).with_name("inspect")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "inspect_ai._cli.main"]
    return [*head, "eval", "benchmarks/inspect_calibration_task.py", "-T", f"prompts={prompts}",
            "--model", "openai-api/bench/bench", "--model-base-url", url, "--max-connections", str(connections),
            "--log-dir", str(log_dir)]


def sent_requests(db: Path, study: str, prompts: Path) -> int:
    """Write the requests the workbench's run answered (one JSON line each) for Inspect's task; their count."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT request FROM calls WHERE study_id = ? AND status IN ('ok', 'error') ORDER BY id",
                           (study,)).fetchall()
    prompts.write_text("".join(json.dumps({"messages": json.loads(r)}) + "\n" for (r,) in rows))
    return len(rows)


def repeats(args, study: str) -> int:
    return args.repeats or {"small": 3, "generated": 2}[study]


def bench_study(study: str, args, env: dict, url: str, tmp: Path) -> dict:
    """One study: the workbench, `inspect eval` and Inspect's model API alternating, `--repeats` times each."""
    base = tmp / f"created-{study}.db"
    path, name = study_file(tmp, url, study)
    subprocess.run([sys.executable, "-m", "screens.launch", "--batch", "--db", str(base), "study", "create",
                    str(path)], env=env, cwd=env["PYTHONPATH"], check=True, capture_output=True)
    sides: dict[str, list[dict]] = {"workbench": [], "eval": [], "api": []}
    calls, per_second = 0, 0
    marks, prompts = tmp / "marks.json", tmp / f"prompts-{study}.jsonl"
    # `--max-connections` as typed: the store's global concurrency stays at its default
    command = [sys.executable, "-c", WORKBENCH] if args.decompose else workbench_command(args.tree)
    inspect_env = dict(env, BENCH_API_KEY=DUMMY_KEY)
    for rep in range(repeats(args, study)):
        db = tmp / f"run-{study}-{rep}.db"
        shutil.copy(base, db)
        marks.unlink(missing_ok=True)
        run = timed([*command, "--batch", "--db", str(db), "run", name, "--max-connections", str(args.connections)],
                    env, marks)
        sides["workbench"].append(workbench_parts(run) if args.decompose else {"whole": (run["wall"], run["cpu"])})
        per_second = max(per_second, progress_lines_per_second(marks.with_suffix(".stderr")))
        calls = sent_requests(db, name, prompts)
        db.unlink()
        marks.unlink(missing_ok=True)
        run = timed(inspect_eval_command(prompts, url, args.connections, tmp / f"inspect-logs-{study}-{rep}"),
                    inspect_env, marks, cwd=ROOT)
        sides["eval"].append({"whole": (run["wall"], run["cpu"])})
        run = timed([sys.executable, "-c", MARKS + INSPECT.format(key=DUMMY_KEY), url, str(calls),
                     str(args.connections)], env, marks)
        sides["api"].append(inspect_parts(run))
    return {"study": study, "calls": calls, "per_second": per_second,
            "wb": medians(sides["workbench"]), "eval": medians(sides["eval"]), "api": medians(sides["api"])}


def report(r: dict, args) -> None:
    wb = r["wb"]
    print(f"calibration-{r['study']} ({len(JUDGES)} judges, {r['calls']} requests), {args.latency * 1000:.0f} ms server "
          f"latency, {args.connections} connections, whole processes; medians of {repeats(args, r['study'])} alternating "
          "repetitions")
    print(f"{'':<46}{'wall s':>9}{'CPU s':>9}")
    how = "instrumented" if args.decompose else "as typed"
    print(f"workbench --batch run --max-connections {args.connections}, {how} ({args.tree})")
    for name, (wall, cpu) in wb.items():
        print(f"  {name:<44}{wall:9.2f}{cpu:9.2f}")
    print(f"Inspect AI, inspect eval --max-connections {args.connections} as typed (its eval log written)")
    for name, (wall, cpu) in r["eval"].items():
        print(f"  {name:<44}{wall:9.2f}{cpu:9.2f}")
    print("Inspect AI's model API alone (second reference: model.generate in a gather, no task, eval or log)")
    for name, (wall, cpu) in r["api"].items():
        print(f"  {name:<44}{wall:9.2f}{cpu:9.2f}")
    whole = wb["whole"]
    for label, ref in (("inspect eval", r["eval"]["whole"]), ("Inspect's model API alone", r["api"]["whole"])):
        print(f"  workbench / {label + ', whole:':<40}wall {whole[0] / ref[0]:.2f}   CPU {whole[1] / ref[1]:.2f}")
    if args.decompose:
        bare = wb["whole without litellm's import"]
        for label, ref in (("inspect eval", r["eval"]["whole"]), ("Inspect's model API alone", r["api"]["whole"])):
            print(f"  workbench without litellm's import / {label}: wall {bare[0] / ref[0]:.2f}   "
                  f"CPU {bare[1] / ref[1]:.2f}")
    print(flush=True)


def target_lines(results: list[dict], args) -> list[str]:
    """The issue's targets, each with its figure and whether it was met: against `inspect eval` as typed (the
    reference), then against Inspect's model API alone (the second reference line)."""
    lines = []
    for r in results:
        (wall, cpu) = r["wb"]["whole"]
        target = TARGETS[r["study"]]
        for label, ref in (("inspect eval as typed", r["eval"]["whole"]),
                           ("second reference, Inspect's model API alone", r["api"]["whole"])):
            inspect_wall, inspect_cpu = ref
            line = (f"calibration-{r['study']} ({r['calls']} calls) vs {label}: wall {wall / inspect_wall:.2f} x "
                    f"(target <= {target}: {'met' if wall <= target * inspect_wall else 'not met'}), "
                    f"CPU {cpu / inspect_cpu:.2f} x")
            if r["study"] == "generated":
                line += f" (target < 1: {'met' if cpu < inspect_cpu else 'not met'})"
            lines.append(line)
        floor = -(-r["calls"] // args.connections) * args.latency  # the server's waves, however fast the client
        lines.append(f"calibration-{r['study']}: the server's waves alone take {floor:.1f} s = "
                     f"{floor / r['eval']['whole'][0]:.2f} x inspect eval's wall")
    most = max(r["per_second"] for r in results)
    lines.append(f"batch output: at most {most} progress line{'s' if most != 1 else ''} in any second "
                 f"(target <= 1: {'met' if most <= 1 else 'not met'})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=None,
                        help="alternations of the three commands (default: 3 on small, 2 on generated)")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--study", choices=("small", "generated", "both"), default="both",
                        help="calibration-small (180 calls), calibration-generated (3,000 calls), or both (default)")
    parser.add_argument("--decompose", action="store_true",
                        help="time the command instrumented from inside (start-up, litellm's import, the calls) "
                             "instead of as typed")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the checkout whose workbench runs (default: this one), e.g. /work/main for a before figure")
    args = parser.parse_args()
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY, PYTHONPATH=str(args.tree.resolve()))
    tmp = Path(tempfile.mkdtemp(prefix="whole-process-bench-"))
    studies = ("small", "generated") if args.study == "both" else (args.study,)
    load_before = os.getloadavg()
    try:
        with server_process(args.latency, responder=answer) as (url, _stats):
            results = []
            for study in studies:  # each study's figures as soon as it is done (a busy machine takes long)
                results.append(bench_study(study, args, env, url, tmp))
                report(results[-1], args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load_after = os.getloadavg()
    print("load average (1, 5, 15 min) at the start " + " ".join(f"{x:.2f}" for x in load_before)
          + ", at the end " + " ".join(f"{x:.2f}" for x in load_after) + " (on 2 cores; wall figures mostly "
          "measure the load above 1, CPU figures much less)")
    print("targets (issue 40):")
    for line in target_lines(results, args):
        print(f"  {line}")


if __name__ == "__main__":
    main()
