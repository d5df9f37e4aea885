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
from workbench.events import (
    CALL_NOTICE, CALL_RETRY, CONNECTIONS, CONTEXT_WARNING, PROGRESS, PROVIDER_BATCH, RUN_STARTED, TURN_FINISHED,
    Event,
)
from workbench.safe_text import for_terminal



def short(run_id: str | None) -> str:
    return run_id.split("/", 1)[1] if run_id and "/" in run_id else (run_id or "-")


def duration(seconds: float | None) -> str:
    return run_view.duration(seconds, missing="?")


def run_line(state: dict) -> str:
    cost = run_view.cost_text(state["cost"], state["cost_unknown"])
    line = (f"{run_view.status_label(state):<9} {short(state['run_id'])}  {state['calls_done']} calls  "
            f"{state['input_tokens'] + state['output_tokens']} tokens  {cost}  {duration(state['elapsed'])}")
    if state.get("truncated"):
        line += "  output cut off at max_tokens"
    if state.get("error"):
        line += f"  {state['error']}"
    if state.get("treatment"):  # its defining step did not happen (workbench.fidelity.watch)
        line += f"  {state['treatment']}"
    return line


def calls_text(p: dict) -> str:
    """`150/150 calls` and, when a run made more or fewer than it declared, the real count too."""
    made = p.get("calls_made")
    extra = f", {made} made" if made is not None and made != p["calls_done"] else ""
    return f"{p['calls_done']}/{p['calls_expected']} calls{extra}"


def percent(p: dict) -> str:
    """Whole percent, never rounded up to 100 before the work is all done, and never 100 with a run that
    failed or was cancelled (its calls count as made, not as done)."""
    value = p["fraction"] * 100
    unfinished = p["runs"].get("failed") or p["runs"].get("cancelled") or p["runs"].get("interrupted")
    return "100%" if p["calls_done"] >= p["calls_expected"] and not unfinished else f"{min(value, 99):.0f}%"


def progress_line(p: dict) -> str:
    r = p["runs"]
    return (f"progress {percent(p)} ({calls_text(p)}), "
            f"runs: {r['done']} done, {r['running']} running, {r['pending']} pending, {r['failed']} failed"
            + (f", {r['done_with_errors']} done with errors" if r.get("done_with_errors") else "")
            + (f", {r['cancelled']} cancelled" if r["cancelled"] else "")
            + (f", {p['calls_waiting']} calls waiting" if p.get("calls_waiting") else "")
            + f"; elapsed {duration(p['elapsed'])}, eta {duration(p['eta_seconds'])}")


class PlainDisplay:
    """Log lines for non-terminals: one per run started/finished, retries, topology, and the study's progress
    at most once per `interval` seconds (waiting calls are a count in it, never a line each)."""

    def __init__(self, stream=None, *, interval: float = 1.0, clock=time.monotonic, sleep=time.sleep) -> None:
        self.stream = stream or sys.stderr
        self.interval, self.clock, self.sleep = interval, clock, sleep
        self._last: tuple | None = None  # the last progress printed (calls done, total, paused, waiting)
        self._printed_at: float | None = None
        self._held: dict | None = None   # a progress line not printed yet (the last was under a second ago)
        self._beat_at: float | None = None  # when the last heartbeat line (long calls' signs of life) was printed
        self._batches: dict[str, tuple] = {}  # each provider batch's last printed state

    def _print(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {for_terminal(text)}", file=self.stream, flush=True)

    def emit(self, event: Event) -> None:
        if event.kind == RUN_STARTED:
            p = event.payload
            self._print(f"started   {short(event.run_id)} (attempt {p['attempt']})")
        elif event.kind == PROGRESS:
            p = event.payload
            run = p.get("run")
            if run is not None and run["status"] not in ("running", "pending"):
                self._print(run_line(run))
            elif self._last is None:  # the first: what the whole study will take
                self._print(f"planned   {p['total_runs']} runs, {p['calls_expected']} calls")
            self._progress(p)
            if p.get("long_calls") and (self._beat_at is None or self.clock() - self._beat_at >= self.interval):
                self._print(heartbeat_line(p))
                self._beat_at = self.clock()
        elif event.kind == CALL_NOTICE:
            self._print(f"notice    {short(event.run_id)} {event.turn}: {event.payload['message']}")
        elif event.kind == CALL_RETRY:
            p = event.payload
            self._print(f"retry     {short(event.run_id)} {event.turn}: attempt {p.get('attempt')} failed "
                        f"({p.get('error')}); retrying in {p.get('wait', 0):.1f}s")
        elif event.kind == "topology":
            self._print(topology_line(event.payload))
        elif event.kind in (CONTEXT_WARNING, TURN_FINISHED) and context_line(event):
            self._print(context_line(event))
        elif event.kind == CONNECTIONS:
            self._print(connections_line(event.payload))
        elif event.kind == PROVIDER_BATCH:
            p = event.payload
            seen = (p["state"], p["completed"], p["failed"], p["what"])
            if self._batches.get(p["batch"]) != seen:  # a poll that changed nothing prints nothing
                self._batches[p["batch"]] = seen
                self._print(batch_line(p))
        if self._held is not None and self._due():  # a held line goes out with the next event a second on
            self._print_progress(self._held)

    def _progress(self, p: dict) -> None:
        key = (p["calls_done"], p["calls_expected"], p["paused"], p.get("calls_waiting") or 0)
        if key == self._last:
            return
        if self._printed_at is None or p["paused"] or self._due():  # a pause is shown at once (Ctrl-C exits fast)
            self._print_progress(p)
        else:
            self._held = p

    def _due(self) -> bool:
        return self._printed_at is None or self.clock() - self._printed_at >= self.interval

    def _print_progress(self, p: dict) -> None:
        self._print(progress_line(p))
        self._last = (p["calls_done"], p["calls_expected"], p["paused"], p.get("calls_waiting") or 0)
        self._printed_at, self._held = self.clock(), None

    def close(self) -> None:
        if self._held is not None:  # the last state is always shown, a second after the line before it at most
            if not self._due():     # (at most one progress line a second, the final one too: issue 40)
                self.sleep(self.interval - (self.clock() - self._printed_at))
            self._print_progress(self._held)


def heartbeat_line(p: dict) -> str:
    """The calls in flight for long, with their signs of life, and the command's ETA."""
    from workbench.gateway.live_calls import long_calls_text

    return f"working   {long_calls_text(p['long_calls'])}; {calls_text(p)}, eta {duration(p['eta_seconds'])}"


def context_line(event: Event) -> str:
    """A warning that a program may not fit its model's window, or a turn the window cut ("" otherwise)."""
    if event.kind == CONTEXT_WARNING:
        return f"warning: {event.payload['warning']}"
    p = event.payload
    if p.get("cut_by") != "window":
        return ""
    return (f"cut       {short(event.run_id)} {event.turn}: the reply was cut by the model's context window after "
            f"{p.get('output_tokens')} tokens ({p.get('input_tokens')} prompt tokens), not by max_tokens "
            f"{p.get('max_tokens')}")


def connections_line(p: dict) -> str:
    """The gateway changed an endpoint's connections (workbench/gateway/connections.py)."""
    return f"connections {p['endpoint']}: {p['old']} → {p['new']} ({p['reason']})"


def batch_line(p: dict) -> str:
    from workbench.gateway.provider_batch import event_line

    return event_line(p)


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
                                 TextColumn("{task.fields[percent]:>4}"), TextColumn("{task.fields[calls]}"),
                                 TimeElapsedColumn(), TextColumn("eta {task.fields[eta]}"),
                                 TextColumn("{task.fields[runs]}"), console=self.console, transient=False)
        self.task = self.progress.add_task("study", total=1, calls="", eta="?", runs="", percent="0%")
        self.progress.start()

    def emit(self, event: Event) -> None:
        if event.kind == PROGRESS:
            from workbench.gateway.live_calls import long_calls_text

            p = event.payload
            r = p["runs"]
            self.progress.update(self.task, total=max(p["calls_expected"], 1), completed=p["calls_done"],
                                 calls=calls_text(p), percent=percent(p),
                                 eta=duration(p["eta_seconds"]) + (" (paused)" if p["paused"] else ""),
                                 runs=f"{r['done']} done · {r['running']} running · {r['failed']} failed"
                                      + (f" · {r['done_with_errors']} with errors" if r.get("done_with_errors") else "")
                                      + (f" · {p['calls_waiting']} waiting" if p.get("calls_waiting") else "")
                                      + (f" · {long_calls_text(p['long_calls'], shown=1)}"
                                         if p.get("long_calls") else ""))
            run = p.get("run")
            if run and run["status"] in ("done", "done_with_errors", "failed", "cancelled"):
                style = {"done": "green", "done_with_errors": "yellow", "failed": "red",
                         "cancelled": "yellow"}[run["status"]]
                self._say(run_line(run), style)
        elif event.kind == CALL_NOTICE:
            self._say(f"notice {short(event.run_id)} {event.turn}: {event.payload['message']}", "yellow")
        elif event.kind == CALL_RETRY:
            p = event.payload
            self._say(f"retry {short(event.run_id)} {event.turn}: {p.get('error')}", "yellow")
        elif event.kind == "topology":
            self._say(topology_line(event.payload))
        elif event.kind in (CONTEXT_WARNING, TURN_FINISHED) and context_line(event):
            self._say(context_line(event), "yellow")
        elif event.kind == CONNECTIONS:
            self._say(connections_line(event.payload), "yellow")
        elif event.kind == PROVIDER_BATCH:
            self._say(batch_line(event.payload))

    def _say(self, line: str, style: str = "") -> None:
        """A line above the bar, as plain text: a model's or server's words are never markup."""
        from rich.text import Text

        self.progress.console.print(Text(for_terminal(line), style=style), highlight=False)

    def close(self) -> None:
        self.progress.stop()


def make_display():
    return RichDisplay() if sys.stderr.isatty() else PlainDisplay()
