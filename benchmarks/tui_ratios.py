"""The TUI's speed as ratios of its own yardsticks (issue 33, item 9), in CPU seconds beside wall seconds:
the machine may be shared, and a wall clock then measures the neighbours. Prints medians; asserts nothing.

    python benchmarks/tui_ratios.py --db STORE --study STUDY [--runs 5] [--sizes 140x40,80x24] [--tree DIR]

At each terminal size:
1. first paint: from starting `python` to the first frame of the Cases screen, through the `workbench`
   command's own path (screens.launch.main: its command line, then the app, headless: the frame Textual
   would write to a terminal), against `python -c "import textual.app, textual.widgets"` from its start
   (target: at most 2.5x); "cases listed" is the same clock until the case count is on screen
2. Settings: from pressing 6 to its first frame ("painted"), and to the form filled from the store ("open");
   neither may wait on the network or a model
3. Metrics: from choosing STUDY to its panels shown, against `workbench --batch metrics STUDY` (target:
   at most 1.2x); both read the embeddings the store has cached (the batch command runs first and warms it)
4. power: how many times the Studies detail computes the power analysis while the cursor moves up and
   down the list (target: once per study, never per keystroke)

Each program runs in its own process, with Python's bytecode cached (an installed workbench has its .pyc
files; a tree run with PYTHONDONTWRITEBYTECODE would compile every module at each start): the caches go to a
temporary PYTHONPYCACHEPREFIX, filled by one untimed run. A child's CPU time (user + system, all threads) is
read from resource.getrusage(RUSAGE_CHILDREN) around it; inside the app, time.process_time() counts from the
process's start, so first paint and the Textual import include the interpreter's start-up alike. --tree
measures another checkout's code (a "before" figure) with this benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable

# Runs inside the child: the app headless, each step timed in CPU (process_time) and wall seconds; argv[3]
# is the parent's perf_counter when it started the child (CLOCK_MONOTONIC: one clock for both processes).
CHILD = r"""
import json, re, sys, time
LISTED = re.compile(r"\d+ cases?\b|No cases in the store")
db, study, spawned, size = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
import screens.launch as launch
out, frames = {}, {}

def mark(name, cpu0, wall0):
    out[name] = {"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0}

async def until(pilot, cond, timeout=600):
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            raise SystemExit("timed out")
        await pilot.pause(0.01)

async def drive(pilot):
    app = pilot.app
    from textual.widgets import Static, Select
    await until(pilot, lambda: "CasesScreen" in frames)
    out["first_paint"] = frames["CasesScreen"]
    await until(pilot, lambda: type(app.screen).__name__ == "CasesScreen"
                and LISTED.search(str(app.screen.query_one("#case-count", Static).render())))
    mark("cases_listed", 0.0, spawned)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.2)
    c, w = time.process_time(), time.perf_counter()
    await pilot.press("6")
    await until(pilot, lambda: "SettingsScreen" in frames)
    out["settings_painted"] = {"cpu": frames["SettingsScreen"]["cpu"] - c, "wall": frames["SettingsScreen"]["wall"] - (w - spawned)}
    await until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen" and app.screen.is_mounted
                and any(field.value != "" for field in app.screen.query("#gw-concurrency")))
    mark("settings_open", c, w)
    import workbench.simulation.power as power
    calls = []
    real = power.power_document
    power.power_document = lambda *a, **k: (calls.append(1), real(*a, **k))[1]
    await pilot.press("2")
    await until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen")
    await pilot.app.workers.wait_for_complete()
    n = app.screen.query_one("#study-table").row_count
    for key in ["down"] * (n - 1) + ["up"] * (n - 1) + ["down"] * (n - 1):
        await pilot.press(key)
        await pilot.pause(0.05)
    await pilot.app.workers.wait_for_complete()
    out["power"] = {"studies": n, "keystrokes": 3 * (n - 1), "computed": len(calls)}
    await pilot.press("5")
    await until(pilot, lambda: type(app.screen).__name__ == "MetricsScreen" and app.screen.protocols)
    await until(pilot, lambda: app.screen.computing is None)
    screen = app.screen
    other = next((s for s in screen.protocols if s != study), None)
    if other and screen.study_id == study:
        screen.query_one("#study-select", Select).value = other
        await until(pilot, lambda: screen.shown == other)
    c, w = time.process_time(), time.perf_counter()
    screen.query_one("#study-select", Select).value = study
    await until(pilot, lambda: screen.shown == study)
    mark("metrics", c, w)
    app.exit()

def run_headless(db_path, rater=None):  # what `workbench --db DB` runs, headless and driven
    app = launch.make_app(db_path, rater)
    display = app._display

    def first_frames(screen, renderable):  # the moment a frame of each screen would go to the terminal
        name = type(screen).__name__
        if renderable is not None and name not in frames:
            frames[name] = {"cpu": time.process_time(), "wall": time.perf_counter() - spawned}
        return display(screen, renderable)

    app._display = first_frames
    width, height = (int(v) for v in size.split("x"))
    app.run(headless=True, size=(width, height), auto_pilot=drive)
    return 0

launch.run_app = run_headless
launch.main(["--db", db])  # the `workbench` command's own path: its command line, then the app
print(json.dumps(out))
"""


def child_cpu(argv: list[str], env: dict) -> tuple[float, float, str]:
    """CPU and wall seconds of a child process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=env["PYTHONPATH"])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, done.stdout


def app_run(db: Path, study: str, size: str, env: dict) -> dict:
    spawned = time.perf_counter()
    _, _, out = child_cpu([PY, "-c", CHILD, str(db), study, repr(spawned), size], env)
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="a store holding STUDY (copied; the copy is measured)")
    parser.add_argument("--study", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="140x40,80x24", help="terminal sizes, comma-separated")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose workbench is measured")
    args = parser.parse_args()
    sizes = args.sizes.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(args.tree.resolve()), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        db = Path(tmp) / "store.db"
        shutil.copy(args.db, db)
        batch = [PY, "-m", "screens.launch", "--batch", "--db", str(db), "metrics", args.study]
        child_cpu(batch, env)  # warms the store's embedding cache, as a first TUI look would
        child_cpu([PY, "-c", "import textual.app, textual.widgets"], env)  # and the bytecode caches
        app_run(db, args.study, sizes[0], env)
        rows: dict[str, list[tuple[float, float]]] = {}
        power = {}
        for _ in range(args.runs):
            cpu, wall, _ = child_cpu([PY, "-c", "import textual.app, textual.widgets"], env)
            rows.setdefault("import textual", []).append((cpu, wall))
            cpu, wall, _ = child_cpu(batch, env)
            rows.setdefault("batch metrics", []).append((cpu, wall))
            for size in sizes:
                doc = app_run(db, args.study, size, env)
                for name in ("first_paint", "cases_listed", "settings_painted", "settings_open", "metrics"):
                    rows.setdefault(f"{name} {size}", []).append((doc[name]["cpu"], doc[name]["wall"]))
                power[size] = doc["power"]
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in rows.items()}
    load = os.getloadavg()
    print(f"tree {args.tree.resolve()}")
    print(f"cpus {os.cpu_count()}, load average {load[0]:.2f}; medians of {args.runs} runs; CPU = user + system "
          "(all threads), wall beside it")
    for name, (cpu, wall) in med.items():
        print(f"{name:26s} cpu {cpu:6.2f} s   wall {wall:6.2f} s")

    def ratio(name: str, base: str) -> str:
        """The ratio of the medians, and the median of each run's ratio (a run pairs the two programs under
        one load, so the second moves less when the neighbours come and go)."""
        paired = [(c / bc, w / bw) for (c, w), (bc, bw) in zip(rows[name], rows[base])]
        return (f"cpu {med[name][0] / med[base][0]:.2f}x (wall {med[name][1] / med[base][1]:.2f}x); "
                f"per run: cpu {statistics.median(c for c, _ in paired):.2f}x "
                f"(wall {statistics.median(w for _, w in paired):.2f}x)")

    for size in sizes:
        print(f"-- {size}")
        print(f"first paint / import textual      {ratio(f'first_paint {size}', 'import textual')}; target <= 2.5")
        print(f"cases listed / import textual     {ratio(f'cases_listed {size}', 'import textual')}")
        print(f"Metrics / batch metrics           {ratio(f'metrics {size}', 'batch metrics')}; target <= 1.2")
        for name in ("settings_painted", "settings_open"):
            cpu, wall = med[f"{name} {size}"]
            print(f"{name.replace('_', ' '):33s} cpu {cpu:.2f} s, wall {wall:.2f} s")
        p = power[size]
        print(f"power analyses: {p['computed']} for {p['studies']} studies over {p['keystrokes']} keystrokes "
              "(target: at most one per study)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
