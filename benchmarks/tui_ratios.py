"""The TUI's speed as ratios of its own yardsticks (issue 33, item 9), in CPU seconds: the machine may be
shared, and a wall clock then measures the neighbours. Prints figures; asserts nothing.

    python benchmarks/tui_ratios.py --db STORE --study STUDY [--runs 3]

1. first paint: `workbench` started headless until the Cases list is painted, against
   `python -c "import textual.app, textual.widgets"` (target: at most 2.5x)
2. Settings: from pressing 6 to the Settings form filled (it must not wait on the network or a model)
3. Metrics: from choosing STUDY to its panels shown, against `workbench --batch metrics STUDY` (target:
   at most 1.2x); both read the embeddings the store has cached (the batch command runs first and warms it)
4. power: how many times the Studies detail computes the power analysis while the cursor moves up and
   down the list (target: once per study, never per keystroke)

Each program runs in its own process; its CPU time (user + system, all threads) is read from
resource.getrusage(RUSAGE_CHILDREN) around it, or from time.process_time() inside it for a step.
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable

# Runs inside the child: the app headless, each step timed in CPU (process_time) and wall seconds.
CHILD = r'''
import json, sys, time
t0_cpu, t0_wall = time.process_time(), time.perf_counter()
from screens.launch import make_app
db, study = sys.argv[1], sys.argv[2]
out = {}

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
    await until(pilot, lambda: type(app.screen).__name__ == "CasesScreen"
                and "case" in str(app.screen.query_one("#case-count", Static).render()).lower())
    mark("first_paint", t0_cpu, t0_wall)
    c, w = time.process_time(), time.perf_counter()
    await pilot.press("6")
    await until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen" and app.screen.is_mounted
                and app.screen.query_one("#gw-concurrency").value != "")
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

app = make_app(db)
app.run(headless=True, size=(140, 40), auto_pilot=drive)
print(json.dumps(out))
'''


def child_cpu(argv: list[str], env: dict) -> tuple[float, float, str]:
    """CPU and wall seconds of a child process, and its stdout."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="a store holding STUDY (copied; the copy is measured)")
    parser.add_argument("--study", required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        shutil.copy(args.db, db)
        batch = [PY, "-m", "screens.launch", "--batch", "--db", str(db), "metrics", args.study]
        child_cpu(batch, env)  # warms the store's embedding cache, as a first TUI look would
        rows: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            cpu, wall, _ = child_cpu([PY, "-c", "import textual.app, textual.widgets"], env)
            rows.setdefault("import textual", []).append((cpu, wall))
            cpu, wall, _ = child_cpu(batch, env)
            rows.setdefault("batch metrics", []).append((cpu, wall))
            _, _, out = child_cpu([PY, "-c", CHILD, str(db), args.study], env)
            doc = json.loads(out.strip().splitlines()[-1])
            for name in ("first_paint", "settings_open", "metrics"):
                rows.setdefault(name, []).append((doc[name]["cpu"], doc[name]["wall"]))
            power = doc["power"]
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in rows.items()}
    load = os.getloadavg()
    print(f"cpus {os.cpu_count()}, load average {load[0]:.2f}; medians of {args.runs} runs; CPU = user + system")
    for name, (cpu, wall) in med.items():
        print(f"{name:16s} cpu {cpu:6.2f} s   wall {wall:6.2f} s")
    print(f"first paint / import textual   cpu {med['first_paint'][0] / med['import textual'][0]:.2f}x "
          f"(wall {med['first_paint'][1] / med['import textual'][1]:.2f}x; target <= 2.5)")
    print(f"Metrics / batch metrics        cpu {med['metrics'][0] / med['batch metrics'][0]:.2f}x "
          f"(wall {med['metrics'][1] / med['batch metrics'][1]:.2f}x; target <= 1.2)")
    print(f"Settings open                  cpu {med['settings_open'][0]:.2f} s, wall {med['settings_open'][1]:.2f} s")
    print(f"power analyses: {power['computed']} for {power['studies']} studies over {power['keystrokes']} "
          "keystrokes (target: at most one per study)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
