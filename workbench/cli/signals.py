"""SIGHUP, SIGTERM and SIGINT end every long batch command alike (issues 14 and 34).

An SSH session dropping (SIGHUP), a `kill` (SIGTERM) and Ctrl-C (SIGINT) end the command
at once: `run_interruptible` cancels a calling command's coroutine (the gateway records
every in-flight attempt as cancelled, what finished stays stored); `interruptible` ends a
command that makes no calls (an import, a generated file, simulated raters) by raising
`Interrupted` where it is, so the transaction or the whole-file write in progress is rolled
back and nothing is half-written. Either way `main` prints one line saying how to resume
and exits with the signal's code (128 + its number: 129, 130, 143). Re-running the command
resumes: what is stored is skipped. `run` has its own handling (its runs are marked
interrupted through `RunControl`). Every such command prints its progress on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    """A signal ended the command; `main` prints `message` once and exits with `code`."""

    def __init__(self, sig: int, what: str, resume: str,
                 kept: str = "in-flight calls recorded as cancelled") -> None:
        self.sig, self.name = sig, signal.Signals(sig).name
        self.code = 128 + sig
        super().__init__(f"{self.name}: {what} interrupted, {kept}; continue with: {resume}")


def run_interruptible(make: Callable[[], Awaitable[T]], *, what: str, resume: str) -> T:
    """`asyncio.run(make())`, cancelled by the first of SIGHUP/SIGTERM/SIGINT, then `Interrupted`."""
    received: list[int] = []

    async def main() -> T:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()

        def on_signal(sig: int) -> None:
            if not received:  # a second signal while cancelling changes nothing
                received.append(sig)
                task.cancel()

        for sig in SIGNALS:
            try:
                loop.add_signal_handler(sig, on_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
                pass
        try:
            return await make()
        finally:
            for sig in SIGNALS:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(sig)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if received:
            raise Interrupted(received[0], what, resume) from None
        raise


@contextlib.contextmanager
def interruptible(what: str, resume: str, kept: str = "what was being written was rolled back"):
    """A command that makes no model calls, ended by the first of SIGHUP/SIGTERM/SIGINT: `Interrupted` is
    raised where the work is (between two Python steps, so within milliseconds), unwinding its open
    transaction or whole-file write; `main` prints the line and exits with the signal's code."""
    def on_signal(sig: int, _frame) -> None:
        for s in SIGNALS:  # a second signal while unwinding changes nothing
            with contextlib.suppress(ValueError):
                signal.signal(s, signal.SIG_IGN)
        raise Interrupted(sig, what, resume, kept)

    previous = {}
    for sig in SIGNALS:
        try:
            previous[sig] = signal.signal(sig, on_signal)
        except ValueError:  # not the main thread: the caller's own handling stands
            pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def quiet_when_gone(say: Callable[[str], None]) -> Callable[[str], None]:
    """A progress printer that stops, instead of failing the command, once its terminal is gone
    (after SIGHUP every write to the dropped session fails)."""
    broken = False

    def safe(message: str) -> None:
        nonlocal broken
        if broken:
            return
        try:
            say(message)
        except OSError:
            broken = True

    return safe
