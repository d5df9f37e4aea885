"""What the live Runs screen shows, without Textual: grid cells, a run's transcript as entries, and a
sink that collects a running study's events between two screen refreshes.

    states = grid_states(db, study_id)          # one dict per planned run, from the store
    live = LiveStudy(states)                     # pass as the runner's sink
    changed, progress = live.take_changes()      # on the screen's refresh timer
    model = live.transcript(run_id) or stored_transcript(db, run_id)

The sink never renders anything: `emit` only appends to in-memory models
(a token is one list append), so a study streaming many runs at once costs
the screen one refresh per tick, whatever the token rate. The same
`TranscriptModel` is built from live events and from a finished run's stored
events (whose `turn_finished` carries the full text), so a live transcript
and a reloaded one look alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

import sqlite_utils

from workbench.events import (
    CALL_NOTICE, CALL_RETRY, CALL_SENT, CALL_WAITING, PROGRESS, TURN_REJECTED, RUN_CANCELLED, RUN_FAILED, RUN_FINISHED, RUN_STARTED, TOKEN, TURN_FAILED, TURN_FINISHED,
    TURN_STARTED,
    Event,
)
from workbench.gateway.live_calls import duration  # noqa: F401  (the one duration format; screens import it here)
from workbench.studies.costs import cost_text  # noqa: F401  (the one cost format; screens import it from here)
from workbench.studies.counts import status_text

GLYPHS = {"pending": "·", "running": "▶", "done": "✓", "done with errors": "!", "failed": "✗", "cancelled": "■",
          "interrupted": "‖"}
CUT = "✂ cut"   # a run whose final output ends in a reply cut at max_tokens


# --- the grid ----------------------------------------------------------------------------------------

def grid_states(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Every planned run of the study in grid order, with what the store knows of it.

    A run the store has as `running` while nobody runs it was interrupted (its
    process died); it is marked so, and the next run of the study resumes it.
    """
    from store import runs as run_rows
    from workbench.runs.run_lock import lock_holder
    from workbench.studies import load_study, planned_runs

    study = load_study(db, study_id)
    stored = {r["id"]: r for r in run_rows.list_runs(db, study_id)}
    cut = run_rows.truncated_run_ids(db, study_id)
    elsewhere = lock_holder(db, study_id)  # another process runs the study: its running runs are live
    return [{**state_from_row(plan, stored.get(plan["id"]), elsewhere), "truncated": plan["id"] in cut}
            for plan in planned_runs(db, study)]


def state_from_row(plan: dict, row: dict | None, elsewhere: str | None = None) -> dict:
    """`elsewhere`: the process that runs the study now, if another one does (its running runs are not dead)."""
    row = row or {}
    status = row.get("status") or "pending"
    return {
        "run_id": plan["id"], "case_id": plan["case_id"], "condition": plan["condition"],
        "replicate": plan["replicate"], "status": status, "interrupted": status == "running" and not elsewhere,
        "elsewhere": elsewhere if status == "running" else None,
        "calls_done": None, "calls_expected": None,
        "input_tokens": row.get("input_tokens") or 0, "output_tokens": row.get("output_tokens") or 0,
        "cost": row.get("cost") or 0.0, "cost_unknown": bool(row.get("cost_unknown")),
        "elapsed": _elapsed(row.get("started_at"), row.get("finished_at")) if status != "running" else None,
        "error": row.get("error"), "attempts": row.get("attempts") or 0,
    }


def _elapsed(started: str | None, finished: str | None) -> float | None:
    if not started or not finished:
        return None
    try:
        return max((datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds(), 0.0)
    except ValueError:
        return None


def grid_axes(states: list[dict]) -> tuple[list[tuple[str, int]], list[str]]:
    """The grid's rows (condition, replicate) and columns (case ids), in the study's order."""
    rows: list[tuple[str, int]] = []
    cols: list[str] = []
    for s in states:
        if (s["condition"], s["replicate"]) not in rows:
            rows.append((s["condition"], s["replicate"]))
        if s["case_id"] not in cols:
            cols.append(s["case_id"])
    return rows, cols


def row_label(condition: str, replicate: int, replicated: bool) -> str:
    """`B1`, or `P1 r0` when the condition has several runs per case."""
    return f"{condition} r{replicate}" if replicated else condition


def status_label(state: dict) -> str:
    if state.get("interrupted") and state["status"] == "running":
        return "interrupted"
    return status_text(state["status"])


def tokens_text(n: int) -> str:
    return f"{n / 1000:.1f}k tok" if n >= 10_000 else f"{n:,} tok"




def cell_fields(state: dict, now: float | None = None, started_at: float | None = None) -> dict[str, str]:
    """The parts of one grid cell: status, calls, tokens, cost, elapsed. `started_at` (wall clock)
    lets a running run's elapsed time tick between progress events."""
    status = status_label(state)
    calls = ""
    if state.get("calls_expected") and status in ("running", "cancelled", "failed"):
        calls = f"{state.get('calls_done') or 0}/{state['calls_expected']}"
    elapsed = state.get("elapsed")
    if status == "running" and started_at is not None:
        elapsed = (now if now is not None else time.time()) - started_at
    return {
        "glyph": GLYPHS.get(status, "?"), "status": status, "calls": calls,
        "cut": CUT if state.get("truncated") else "",
        "waiting": "waiting" if status == "running" and state.get("waiting") else "",
        "tokens": tokens_text((state.get("input_tokens") or 0) + (state.get("output_tokens") or 0)),
        "cost": cost_text(state.get("cost"), bool(state.get("cost_unknown"))),
        "elapsed": duration(elapsed) if elapsed is not None or status != "pending" else "",
    }


def stored_totals_line(states: list[dict], study) -> str:
    """The study's line under the grid when nothing is running: runs by status, then the tokens and cost of
    the calls made (`study`: workbench.studies.counts.StudyCounts, the one definition; replayed calls cost
    nothing and add no tokens)."""
    counts: dict[str, int] = {}
    for s in states:
        label = status_label(s)
        counts[label] = counts.get(label, 0) + 1
    tokens = study.input_tokens + study.output_tokens
    cost, unknown = study.cost, bool(study.cost_unknown_calls)
    order = ("done", "done with errors", "running", "interrupted", "pending", "failed", "cancelled")
    parts = [f"{counts[k]} {k}" for k in order if counts.get(k)]
    cut = sum(1 for s in states if s.get("truncated"))
    if cut:
        parts.append(f"{cut} cut at max_tokens")
    return (f"{len(states)} runs: {', '.join(parts) or 'none'} · {tokens_text(tokens)} · "
            f"{cost_text(cost, unknown)}")


def progress_line(p: dict) -> str:
    """The whole-study line while running, from the runner's progress snapshot (the bar shows the %)."""
    r = p["runs"]
    if p.get("paused"):
        eta = "paused"
    elif p.get("eta_seconds") is None:
        eta = "estimating…"
    else:
        eta = f"about {duration(p['eta_seconds'])} left"
    parts = [f"{r.get('done', 0)}/{p['total_runs']} runs done", f"{r.get('running', 0)} running"]
    if r.get("done_with_errors"):
        parts.append(f"{r['done_with_errors']} done with errors")
    if p.get("calls_waiting"):
        parts.append(f"{p['calls_waiting']} calls waiting")
    if r.get("failed"):
        parts.append(f"{r['failed']} failed")
    if r.get("cancelled"):
        parts.append(f"{r['cancelled']} cancelled")
    line = (f"{p['calls_done']}/{p['calls_expected']} calls · " + ", ".join(parts)
            + f" · {tokens_text(p['input_tokens'] + p['output_tokens'])} · "
            f"{cost_text(p['cost'], p['cost_unknown'])} · elapsed {duration(p['elapsed'])} · {eta}")
    if p.get("long_calls"):  # a call in flight for long: its signs of life (workbench/gateway/live_calls.py)
        from workbench.gateway.live_calls import long_calls_text

        line += f" · {long_calls_text(p['long_calls'], shown=1)}"
    return line


# --- a run's transcript ------------------------------------------------------------------------------

@dataclass
class TurnEntry:
    """One agent turn: its text grows token by token while it streams."""

    turn: str
    agent: str
    label: str
    phase: str
    status: str = "streaming"             # waiting (queued for a connection) | streaming | done | failed
    pieces: list[str] = field(default_factory=list)
    text: str | None = None               # the finished text (turn_finished)
    generation: int = 0                   # bumped when a failed attempt's partial text is discarded
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    replayed: bool = False
    error: str | None = None
    badges: list[str] = field(default_factory=list)
    kind: str = "turn"
    truncated: bool = False               # the reply was cut at max_tokens
    max_tokens: int | None = None
    cut_by: str | None = None             # "window": cut by the context window, not max_tokens

    @property
    def title(self) -> str:
        return f"{self.agent} · {self.label}" if self.label else self.agent

    def footer(self) -> str:
        if self.status == "waiting":
            return "waiting for a connection…"
        if self.status == "streaming":
            return "streaming…"
        if self.status == "failed":
            return f"failed: {self.error or 'unknown error'}"
        parts = []
        if self.input_tokens is not None or self.output_tokens is not None:
            parts.append(f"{self.input_tokens or 0} in + {self.output_tokens or 0} out tok")
        if self.replayed:
            parts.append("replayed")
        if self.truncated and self.cut_by == "window":
            parts.append(f"cut off by the context window after {self.output_tokens} tokens")
        elif self.truncated:
            parts.append(f"cut off at max_tokens{f' ({self.max_tokens})' if self.max_tokens else ''}")
        return " · ".join(parts + self.badges)


@dataclass
class NoteEntry:
    """A protocol event (motion, second, amendment, vote, resolution, ...) or a run-level note."""

    kind: str          # the styling class: motion | second | amendment | vote | resolution | question | ...
    title: str
    body: str = ""
    tone: str = ""     # e.g. aye | nay | adopted | rejected | carried | failed, for styling


def describe(event: Event) -> NoteEntry | None:
    """The note a protocol or run event shows in the transcript, or None for events shown otherwise."""
    p, kind = event.payload, event.kind
    if kind == "question":
        return NoteEntry("question", f"QUESTION stated by the {event.agent or 'chair'}")
    if kind == "motion":
        if p.get("status") == "died":
            return NoteEntry("motion", f"MOTION DIED for want of a second (moved by {p.get('mover') or event.agent})",
                             p.get("text", ""), tone="failed")
        note = "" if p.get("parsed", True) else "\n(no MOTION: line; the whole reply stands as the motion)"
        if p.get("amended"):
            nums = ", ".join(str(n) for n in p.get("amendments", []))
            return NoteEntry("motion", f"MOTION AS AMENDED (amendment {nums})", p.get("text", "") + note)
        return NoteEntry("motion", f"MOTION moved by {p.get('mover') or event.agent}", p.get("text", "") + note)
    if kind == "second":
        if p.get("ruling"):
            return NoteEntry("second", "NOT SECONDED: the chair rules the motion before the committee", tone="nay")
        who = p.get("name") or event.agent
        return (NoteEntry("second", f"SECONDED by {who}", tone="aye") if p.get("seconded")
                else NoteEntry("second", f"{who} does not second", tone="nay"))
    if kind == "amendment":
        status, number = p.get("status"), p.get("number")
        if status == "moved":
            return NoteEntry("amendment", f"AMENDMENT {number} moved by {p.get('name') or event.agent}"
                                          f" (debate round {p.get('round')})", p.get("text", ""))
        if status == "ruled_out":
            return NoteEntry("amendment", f"AMENDMENT ruled out of order ({p.get('name') or event.agent})",
                             f"{p.get('text', '')}\n{p.get('note', '')}".strip(), tone="rejected")
        if status == "quoted":
            return NoteEntry("amendment", "AMENDMENT quoted from the minutes, not moved "
                                          f"({p.get('name') or event.agent})",
                             f"{p.get('text', '')}\n{p.get('note', '')}".strip(), tone="rejected")
        return NoteEntry("amendment", f"AMENDMENT {number} {status} ({tally_text(p.get('tally') or {})})",
                         p.get("text", ""), tone=status or "")
    if kind == "vote":
        vote = p.get("vote", "unparsed")
        return NoteEntry("vote", f"VOTE on the {p.get('on')}: {p.get('name') or event.agent}: {vote}",
                         p.get("reason") or "", tone=vote)
    if kind == "resolution":
        carried = p.get("carried")
        if p.get("no_motion"):
            return NoteEntry("resolution", "RESOLUTION: no motion was seconded; the committee adopted nothing",
                             tone="failed")
        body = p.get("motion") or ""
        for m in p.get("minority") or []:
            body += f"\nminority report, {m.get('name')}: {m.get('reason') or '(no reason given)'}"
        return NoteEntry("resolution", f"RESOLUTION: the motion is {'carried' if carried else 'not carried'} "
                                       f"({tally_text(p.get('tally') or {})})", body.strip(),
                         tone="carried" if carried else "failed")
    if kind == "scenario":
        title = p.get("title") or ("(unparsed fan reply)" if p.get("unparsed") else "")
        return NoteEntry("scenario", f"SCENARIO {p.get('order')}: {title}".rstrip(": "))
    if kind == "perspective" and not p.get("parallel"):
        return NoteEntry("perspective", f"PERSPECTIVE {p.get('order')}: {p.get('title') or ''}".rstrip(": "))
    if kind == RUN_STARTED:
        attempt = p.get("attempt") or 1
        return NoteEntry("run", f"run started{f' (attempt {attempt})' if attempt > 1 else ''}")
    if kind == RUN_FINISHED:
        missing = p.get("report_missing") or []
        extra = f"; the report lacks {', '.join(missing)}" if missing else ""
        extra += "; its output was cut off at max_tokens" if p.get("truncated") else ""
        if p.get("status") == "done_with_errors":
            return NoteEntry("run", f"run done with errors{extra}", p.get("error") or "", tone="failed")
        return NoteEntry("run", f"run done{extra}", tone="carried")
    if kind == TURN_REJECTED:
        return NoteEntry("retry", f"reply rejected: {event.agent or 'the turn'} is asked again "
                                  f"(retry {p.get('retry', 1)})", p.get("reason") or "", tone="rejected")
    if kind == RUN_FAILED:
        return NoteEntry("run", "run failed", p.get("error") or "", tone="failed")
    if kind == RUN_CANCELLED:
        return NoteEntry("run", "run cancelled", p.get("error") or "", tone="rejected")
    if kind == CALL_RETRY:
        return NoteEntry("retry", f"retry: attempt {p.get('attempt')} of {event.agent or 'a turn'} failed "
                                  f"({p.get('error')}); next in {p.get('wait', 0):.1f}s")
    if kind == CALL_NOTICE:  # a call long without a first token, behind a request abandoned earlier
        return NoteEntry("retry", f"waiting: {event.agent or event.turn or 'a call'}", p.get("message") or "")
    return None


def tally_text(t: dict) -> str:
    text = f"{t.get('aye', 0)} aye, {t.get('nay', 0)} nay, {t.get('abstain', 0)} abstain"
    return text + (f", {t['unparsed']} unparsed" if t.get("unparsed") else "")


class TranscriptModel:
    """A run's transcript as an ordered list of turn and note entries; `version` counts changes."""

    def __init__(self) -> None:
        self.entries: list[TurnEntry | NoteEntry] = []
        self.version = 0
        self._open: dict[str, TurnEntry] = {}

    def consume(self, event: Event) -> None:
        kind = event.kind
        if kind == TOKEN:
            entry = self._open.get(event.turn or "")
            if entry is not None:
                entry.pieces.append(event.payload.get("text", ""))
                self.version += 1
            return
        if kind == PROGRESS:
            return
        if kind == RUN_STARTED:
            self.entries.clear()
            self._open.clear()
        if kind == TURN_STARTED:
            entry = TurnEntry(turn=event.turn or "", agent=event.agent or "", label=event.payload.get("label", ""),
                              phase=event.payload.get("phase", ""))
            self._open[entry.turn] = entry
            self.entries.append(entry)
        elif kind in (TURN_FINISHED, TURN_FAILED):
            entry = self._open.pop(event.turn or "", None)
            if entry is None:  # a stored transcript begins mid-turn only if the store lost events; show it anyway
                entry = TurnEntry(turn=event.turn or "", agent=event.agent or "",
                                  label=event.payload.get("label", ""), phase=event.payload.get("phase", ""))
                self.entries.append(entry)
            p = event.payload
            if kind == TURN_FINISHED:
                entry.status, entry.text = "done", p.get("text", "")
                entry.truncated, entry.max_tokens = bool(p.get("truncated")), p.get("max_tokens")
                entry.cut_by = p.get("cut_by")
                entry.input_tokens, entry.output_tokens = p.get("input_tokens"), p.get("output_tokens")
                entry.cost, entry.replayed = p.get("cost"), bool(p.get("replayed"))
            else:
                entry.status, entry.error = "failed", p.get("error")
        elif kind in (CALL_WAITING, CALL_SENT):  # a queued call waits; it streams once it is sent
            entry = self._open.get(event.turn or "")
            if entry is None:
                return
            entry.status = "waiting" if kind == CALL_WAITING else "streaming"
        elif kind == "perspective" and event.payload.get("parallel"):
            entry = self._find(event.turn)
            if entry is not None:
                entry.badges.append("perspective, parallel")
        else:
            if kind == CALL_RETRY and event.payload.get("discard_partial"):
                entry = self._open.get(event.turn or "")
                if entry is not None:  # the failed attempt's words are void
                    entry.pieces.clear()
                    entry.generation += 1
            note = describe(event)
            if note is None:
                return
            self.entries.append(note)
        self.version += 1

    def _find(self, turn: str | None) -> TurnEntry | None:
        for entry in reversed(self.entries):
            if isinstance(entry, TurnEntry) and entry.turn == turn:
                return entry
        return None

    @property
    def streaming(self) -> bool:
        return bool(self._open)


def stored_transcript(db: sqlite_utils.Database, run_id: str) -> TranscriptModel:
    """A run's transcript rebuilt from the store's events table (finished turns carry their text)."""
    from store.events import events_for_run

    model = TranscriptModel()
    for row in events_for_run(db, run_id):
        model.consume(Event(row["kind"], run_id=row["run_id"], turn=row["turn"], agent=row["agent"],
                            payload=row["payload"]))
    return model


# --- the sink ------------------------------------------------------------------------------------------

class LiveStudy:
    """The Runs screen's event sink for one invocation of the runner.

    Everything happens on the event loop's thread (the runner emits
    synchronously), so `emit` and `take_changes` never race.
    """

    def __init__(self, states: list[dict]) -> None:
        self.states: dict[str, dict] = {s["run_id"]: dict(s) for s in states}
        self.started_at: dict[str, float] = {}       # wall clock of each run's current attempt
        self.transcripts: dict[str, TranscriptModel] = {}
        self.progress: dict | None = None
        self.events = 0
        self.watched: set[str] = set()    # the runs whose transcript is on screen: their calls stream
        self._changed: set[str] = set()
        self._progress_changed = False

    def watching(self, run_id: str | None) -> bool:
        return run_id in self.watched

    def emit(self, event: Event) -> None:
        self.events += 1
        if event.kind == PROGRESS:
            previous = self.progress or {}
            self.progress = event.payload
            if "long_calls" not in self.progress and previous.get("long_calls") and \
                    self.progress["runs"].get("running"):
                # the long calls of the last heartbeat stay shown until the next one says otherwise (while runs run)
                self.progress = {**self.progress, "long_calls": previous["long_calls"]}
            self._progress_changed = True
            run = event.payload.get("run")
            if run and run.get("run_id") in self.states:
                state = self.states[run["run_id"]]
                state.update({k: run[k] for k in ("status", "calls_done", "calls_expected", "input_tokens",
                                                  "output_tokens", "cost", "cost_unknown", "elapsed", "error",
                                                  "truncated", "waiting")
                              if k in run})
                # its defining step did not happen (set at a run's end by workbench.fidelity.watch)
                state["treatment"] = run.get("treatment")
                state["interrupted"] = False
                self._changed.add(run["run_id"])
            return
        run_id = event.run_id
        if run_id is None:
            return
        if event.kind == RUN_STARTED:
            self.transcripts[run_id] = TranscriptModel()
            self.started_at[run_id] = event.at
        elif event.kind in (RUN_FINISHED, RUN_FAILED, RUN_CANCELLED):
            self.started_at.pop(run_id, None)
        model = self.transcripts.get(run_id)
        if model is None:
            model = self.transcripts[run_id] = TranscriptModel()
        model.consume(event)

    def transcript(self, run_id: str) -> TranscriptModel | None:
        return self.transcripts.get(run_id)

    def take_changes(self) -> tuple[list[dict], dict | None]:
        """The run states changed since the last call, and the latest progress snapshot if it changed."""
        changed = [self.states[r] for r in sorted(self._changed)]
        progress = self.progress if self._progress_changed else None
        self._changed.clear()
        self._progress_changed = False
        return changed, progress

    def running(self) -> list[dict]:
        return [s for s in self.states.values() if s["status"] == "running"]
