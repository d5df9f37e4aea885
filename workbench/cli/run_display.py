"""How `workbench --batch run` shows a study's progress on stderr.

On a terminal: a rich progress bar (calls done of calls expected, with the
runner's ETA) with a line above it for every run that finishes. Elsewhere
(SSH without a TTY, a log file, a pipe): plain, timestamped log lines. Both are
event sinks of the runner, like the TUI's screen.
"""

from __future__ import annotations

import sys
import time

from workbench.runs import view as run_view
from workbench.events import CALL_RETRY, PROGRESS, RUN_STARTED, Event



def short(run_id: str | None) -> str:
    return run_id.split("/", 1)[1] if run_id and "/" in run_id else (run_id or "-")


def duration(seconds: float | None) -> str:
    return run_view.duration(seconds, missing="?")


def run_line(state: dict) -> str:
    cost = f"${state['cost']:.4f}" + ("+?" if state["cost_unknown"] else "")
    line = (f"{state['status']:<9} {short(state['run_id'])}  {state['calls_done']} calls  "
            f"{state['input_tokens'] + state['output_tokens']} tokens  {cost}  {duration(state['elapsed'])}")
    if state.get("error"):
        line += f"  {state['error']}"
    return line


def progress_line(p: dict) -> str:
    r = p["runs"]
    return (f"progress {p['fraction'] * 100:.0f}% ({p['calls_done']}/{p['calls_expected']} calls), "
            f"runs: {r['done']} done, {r['running']} running, {r['pending']} pending, {r['failed']} failed"
            + (f", {r['cancelled']} cancelled" if r["cancelled"] else "")
            + f"; elapsed {duration(p['elapsed'])}, eta {duration(p['eta_seconds'])}")


class PlainDisplay:
    """Log lines for non-terminals: one per run started/finished, retries, topology and progress."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr

    def _print(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=self.stream, flush=True)

    def emit(self, event: Event) -> None:
        if event.kind == RUN_STARTED:
            p = event.payload
            self._print(f"started   {short(event.run_id)} (attempt {p['attempt']})")
        elif event.kind == PROGRESS and "run" in event.payload and event.payload["run"]["status"] != "running":
            self._print(run_line(event.payload["run"]))
            self._print(progress_line(event.payload))
        elif event.kind == CALL_RETRY:
            p = event.payload
            self._print(f"retry     {short(event.run_id)} {event.turn}: attempt {p.get('attempt')} failed "
                        f"({p.get('error')}); retrying in {p.get('wait', 0):.1f}s")
        elif event.kind == "topology":
            self._print(topology_line(event.payload))

    def close(self) -> None:
        return None


def topology_line(p: dict) -> str:
    line = f"topology  {p['case_id']} {p['condition']}: {p['pattern']}"
    if p.get("switching_assumption"):
        line += f" (switching assumption: {p['switching_assumption']})"
    if p.get("errors"):
        line += f" ({'; '.join(p['errors'])})"
    return line


class RichDisplay:
    """A live progress bar on a terminal, with run results printed above it."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True)
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 TextColumn("{task.percentage:>3.0f}%"), TextColumn("{task.fields[calls]}"),
                                 TimeElapsedColumn(), TextColumn("eta {task.fields[eta]}"),
                                 TextColumn("{task.fields[runs]}"), console=self.console, transient=False)
        self.task = self.progress.add_task("study", total=1, calls="", eta="?", runs="")
        self.progress.start()

    def emit(self, event: Event) -> None:
        if event.kind == PROGRESS:
            p = event.payload
            r = p["runs"]
            self.progress.update(self.task, total=max(p["calls_expected"], 1), completed=p["calls_done"],
                                 calls=f"{p['calls_done']}/{p['calls_expected']} calls",
                                 eta=duration(p["eta_seconds"]) + (" (paused)" if p["paused"] else ""),
                                 runs=f"{r['done']} done · {r['running']} running · {r['failed']} failed")
            run = p.get("run")
            if run and run["status"] in ("done", "failed", "cancelled"):
                style = {"done": "green", "failed": "red", "cancelled": "yellow"}[run["status"]]
                self.progress.console.print(f"[{style}]{run_line(run)}[/]", highlight=False, markup=True)
        elif event.kind == CALL_RETRY:
            p = event.payload
            self.progress.console.print(f"[yellow]retry {short(event.run_id)} {event.turn}: {p.get('error')}[/]",
                                        highlight=False)
        elif event.kind == "topology":
            self.progress.console.print(topology_line(event.payload), highlight=False, markup=False)

    def close(self) -> None:
        self.progress.stop()


def make_display():
    return RichDisplay() if sys.stderr.isatty() else PlainDisplay()
