"""Time from typing `workbench` to the first painted screen, in a real terminal (tmux).

A detached tmux session runs a shell; for each run the command is typed into it
and the pane is polled until the first frame is on screen (the title and the
section bar: the Cases screen, drawn before the store is opened) and then until
the cases are listed (the case count line). Then ctrl+q quits and the next run
starts. "first launch" runs use a new store each time (so they include
creating the store and loading the shipped cases and rubrics); "warm" runs
reuse one store. Prints figures; asserts nothing.

    python benchmarks/startup_time.py [--runs 5] [--poll 0.01] [--command "workbench"]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAINTED = re.compile(r"\d+ cases?\b|No cases in the store")


class Pane:
    def __init__(self, width: int, height: int) -> None:
        self.socket = f"wb-bench-{uuid.uuid4().hex[:8]}"
        self._tmux("new-session", "-d", "-s", "bench", "-x", str(width), "-y", str(height), "sh")
        self._tmux("send-keys", "-t", "bench", "unset COLUMNS LINES; clear", "Enter")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True).stdout

    def type(self, line: str) -> None:
        self._tmux("send-keys", "-t", "bench", "-l", line)
        self._tmux("send-keys", "-t", "bench", "Enter")

    def key(self, key: str) -> None:
        self._tmux("send-keys", "-t", "bench", key)

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "bench")

    def wait(self, predicate, timeout: float, poll: float) -> float | None:
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if predicate(self.text()):
                return time.perf_counter()
            time.sleep(poll)
        return None

    def close(self) -> None:
        self._tmux("kill-server")

    def child_cpu_seconds(self) -> float | None:
        """CPU time (user + system) used so far by the program running in the pane's shell (Linux only)."""
        shell = self._tmux("display", "-p", "-t", "bench", "#{pane_pid}").strip()
        try:
            children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
            fields = Path(f"/proc/{children[-1]}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_frame(text: str) -> bool:
    return "Hindsight Workbench" in text and "1 Cases" in text


def painted(text: str) -> bool:
    return first_frame(text) and bool(PAINTED.search(text))


Run = tuple[float, float | None, float, float | None]  # first frame: wall, cpu; cases listed: wall, cpu


def one_run(pane: Pane, command: str, db: Path, poll: float, marker: str) -> Run:
    """Wall-clock seconds to the first frame and to the listed cases, with the CPU seconds the program had
    used by each."""
    pane.type(f"clear; {command} --db {shlex.quote(str(db))}; echo {marker}")
    started = time.perf_counter()
    frame = pane.wait(first_frame, timeout=120, poll=poll)
    frame_cpu = pane.child_cpu_seconds()
    done = pane.wait(painted, timeout=120, poll=poll)
    if frame is None or done is None:
        raise SystemExit(f"the Cases screen never appeared; the pane shows:\n{pane.text()}")
    cpu = pane.child_cpu_seconds()
    time.sleep(0.3)
    pane.key("C-q")
    if pane.wait(lambda t: marker in t, timeout=60, poll=0.05) is None:
        raise SystemExit(f"the workbench did not exit; the pane shows:\n{pane.text()}")
    return frame - started, frame_cpu, done - started, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--poll", type=float, default=0.01, help="seconds between pane captures")
    parser.add_argument("--command", help="how to start the workbench (default: this Python with -m screens.launch "
                                          "on --tree, its bytecode cached in a temporary folder by the untimed run)")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose workbench is measured")
    parser.add_argument("--size", default="140x40")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 1
    width, height = (int(v) for v in args.size.split("x"))
    pane = Pane(width, height)
    results: dict[str, list[Run]] = {"first launch (new store)": [], "warm (existing store)": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            command = args.command or (
                f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={shlex.quote(str(Path(tmp) / 'pycache'))} "
                f"PYTHONPATH={shlex.quote(str(args.tree.resolve()))} {shlex.quote(sys.executable)} -m screens.launch")
            warm_db = Path(tmp) / "warm" / "workbench.db"
            one_run(pane, command, warm_db, args.poll, "WB-DONE-0")  # create it once, untimed
            for i in range(args.runs):
                results["first launch (new store)"].append(
                    one_run(pane, command, Path(tmp) / f"cold{i}" / "workbench.db", args.poll, f"WB-DONE-c{i}"))
                results["warm (existing store)"].append(one_run(pane, command, warm_db, args.poll, f"WB-DONE-w{i}"))
    finally:
        pane.close()

    load = os.getloadavg()
    print(f"command: {command}")
    print(f"terminal: tmux {width}x{height}; cpus: {os.cpu_count()}; load average: "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("wall = seconds from typing the command to the first frame / the listed cases; cpu = CPU seconds "
          "the program had used by then (less sensitive to a busy machine)")
    for name, runs in results.items():
        for what, wall_at, cpu_at in (("first frame", 0, 1), ("cases listed", 2, 3)):
            times = [r[wall_at] for r in runs]
            cpus = [r[cpu_at] for r in runs if r[cpu_at] is not None]
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(f"{name:26s} {what:12s} wall median {statistics.median(times):.2f}s  min {min(times):.2f}s  "
                  f"max {max(times):.2f}s  runs: {shown}")
            if cpus:
                print(f"{'':39s} cpu  median {statistics.median(cpus):.2f}s  min {min(cpus):.2f}s  "
                      f"max {max(cpus):.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
