"""Pause, resume and cancel for a running study, shared by the TUI and batch mode.

A `RunControl` is handed to `run_study` (one per call: a cancelled control stays
cancelled, so a resume takes a fresh one); every agent turn passes a checkpoint
before it calls the model. Pausing stops new turns from starting (turns
already in flight finish and are kept); cancelling stops new turns and
cancels the in-flight ones, leaving their runs `cancelled` so a later
`run --resume` picks them up again.
"""

from __future__ import annotations

import asyncio


class RunCancelled(Exception):
    """Raised at a checkpoint once the study (or this run) has been cancelled."""


class RunControl:
    def __init__(self) -> None:
        self._running = asyncio.Event()
        self._running.set()
        self._cancelled = asyncio.Event()
        self._cancelled_runs: set[str] = set()
        self.reason: str | None = None
        self.interrupted = False
        self._listeners: list = []

    # --- state -------------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def run_cancelled(self, run_id: str | None) -> bool:
        return self.cancelled or (run_id is not None and run_id in self._cancelled_runs)

    # --- actions (call from the event loop's thread, e.g. a key binding or a signal handler) ---
    def pause(self) -> None:
        self._running.clear()
        self._notify("paused")

    def resume(self) -> None:
        self._running.set()
        self._notify("resumed")

    def cancel(self, reason: str = "cancelled", *, interrupted: bool = False) -> None:
        """Stop the study. `interrupted`: not the user's choice (a signal, a full disk): its runs are
        marked interrupted rather than cancelled."""
        if self.reason is None:
            self.reason = reason
            self.interrupted = interrupted
        self._cancelled.set()
        self._running.set()  # wake paused turns so they see the cancellation
        self._notify("cancelled")

    def cancel_run(self, run_id: str) -> None:
        """Cancel one run; the rest of the study goes on."""
        self._cancelled_runs.add(run_id)
        self._notify("cancelled", run_id)

    def on_change(self, callback) -> None:
        """`callback(action, run_id | None)` after pause/resume/cancel (the runner uses it to cancel tasks)."""
        self._listeners.append(callback)

    def off_change(self, callback) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def _notify(self, action: str, run_id: str | None = None) -> None:
        for cb in list(self._listeners):
            cb(action, run_id)

    # --- used by the turns ---------------------------------------------------------------------
    async def checkpoint(self, run_id: str | None = None) -> None:
        """Wait while paused; raise RunCancelled once cancelled."""
        if self.run_cancelled(run_id):
            raise RunCancelled(self.reason or "cancelled")
        await self._running.wait()
        if self.run_cancelled(run_id):
            raise RunCancelled(self.reason or "cancelled")

    async def wait_cancelled(self) -> None:
        await self._cancelled.wait()
