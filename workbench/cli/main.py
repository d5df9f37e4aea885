"""Entry point of the `workbench` console script.

`workbench [--db PATH]` opens the TUI (`--rater NAME --study STUDY`: locked to one
rater's blind scoring); `workbench --batch [--db PATH] [--json]
COMMAND ...` runs one command headless. Each command lives in its own module
with `register(subparsers)`; handlers return an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from workbench.cli.context import FAILED, USAGE, CommandError, Context
from workbench.cli.signals import Interrupted

if TYPE_CHECKING:
    from workbench.scoring.rater_lock import RaterLock

COMMAND_MODULES = [
    "workbench.cli.cases_cmd",
    "workbench.cli.probe_cmd",
    "workbench.cli.study_cmd",
    "workbench.cli.run_cmd",
    "workbench.cli.judge_cmd",
    "workbench.cli.packet_cmd",
    "workbench.cli.unblind_cmd",
    "workbench.cli.evaluators_cmd",
    "workbench.cli.metrics_cmd",
    "workbench.cli.report_cmd",
    "workbench.cli.export_cmd",
    "workbench.cli.log_cmd",
    "workbench.cli.simulate_cmd",
    "workbench.cli.power_cmd",
    "workbench.cli.settings_cmd",
    "workbench.cli.read_cmd",
    "workbench.cli.desk_cmd",
]


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own exit code for usage errors is 2, as the contract says
        self.print_usage(sys.stderr)
        self.exit(USAGE, f"{self.prog}: error: {message}\n")


def build_parser(commands: bool = True, command: str | None = None) -> argparse.ArgumentParser:
    """The command line; `commands=False`: its options only (no help, no COMMAND), which is all opening
    the TUI needs, without importing every command module and protocol first. `command`: the core command
    about to run, the only one registered (a protocol's own command, help or a mistake needs them all; a
    `run` needs no other command's module and no protocol but its study's)."""
    parser = Parser(
        prog="workbench",
        description="Hindsight Workbench: evaluate deliberative LLM architectures against hindsight.",
        epilog="Without --batch, opens the terminal UI.",
        add_help=commands,
    )
    parser.add_argument("--batch", action="store_true", help="run one COMMAND headless instead of the TUI")
    parser.add_argument("--db", metavar="PATH", help="the SQLite store (default: $WORKBENCH_DB or the user data dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout and nothing else there")
    # Rater mode is TUI-only. Own dests, so a command's own --rater (packet export) never sets them.
    parser.add_argument("--rater", dest="tui_rater", metavar="NAME",
                        help="open the TUI locked to this rater's blind scoring of --study (not with --batch)")
    parser.add_argument("--study", dest="tui_study", metavar="STUDY", help="the study a --rater scores")
    if not commands:
        return parser
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser, prog="workbench --batch")
    core = f"workbench.cli.{command}_cmd"
    for name in [core] if core in COMMAND_MODULES else [*COMMAND_MODULES, *protocol_command_modules()]:
        importlib.import_module(name).register(sub)
    return parser


def _sqlite_utils_through_the_store() -> None:
    """Import the store's module before anything that imports sqlite-utils: store/db.py loads it without its
    optional pandas and numpy (half a second). Opening the TUI needs neither, and skips this."""
    import store.db  # noqa: F401


def protocol_command_modules() -> list[str]:
    """The batch commands a protocol adds of its own (e.g. `calibration import`)."""
    from workbench.protocol import registry

    return [m for name in registry.names() for m in registry.get(name).commands]


def main(argv: list[str] | None = None, *, open_tui: Callable[[Path, RaterLock | None], int] | None = None,
         serve_desk: Callable[..., None] | None = None) -> int:
    """Run a batch command; without --batch, open the TUI through `open_tui`. The `workbench` console
    script (screens/launch.py) passes it, and `serve_desk`, the server of `desk serve`: the core never
    imports the screens."""
    parser = build_parser(commands=False)
    args, rest = parser.parse_known_args(argv)
    if args.batch or rest:  # a command, help or a mistake: the whole command line decides
        _sqlite_utils_through_the_store()
        parser = build_parser(command=rest[0] if rest else None)
        args = parser.parse_args(argv)
    from workbench.paths import resolve_db_path

    db_path = resolve_db_path(args.db)
    locked = args.tui_rater is not None or args.tui_study is not None
    if not args.batch:
        if getattr(args, "command", None):
            parser.error("commands run headless: put --batch before the command")
        if locked and (args.tui_rater is None or args.tui_study is None):
            parser.error("rater mode needs both --rater NAME and --study STUDY")
        if open_tui is None:
            parser.error("the terminal UI is opened by the `workbench` command; here, put --batch before a COMMAND")
        if not locked:
            return open_tui(db_path, None) or 0
        _sqlite_utils_through_the_store()
        from workbench.scoring.rater_lock import RaterLock  # (the scoring core: rater mode only)

        return open_tui(db_path, RaterLock(args.tui_study, args.tui_rater)) or 0
    if locked:
        parser.error("--rater and --study open the TUI in rater mode; they do not go with --batch")
    if not args.command:
        parser.error("--batch needs a COMMAND")
    ctx = Context(db_path=db_path, json=args.json, serve_desk=serve_desk)
    try:
        return int(args.handler(args, ctx) or 0)
    except CommandError as exc:
        from workbench.safe_text import for_terminal

        if ctx.json:
            ctx.emit({"ok": False, "error": str(exc), "details": exc.details})
        print(f"workbench: {for_terminal(exc)}", file=sys.stderr)
        return exc.code
    except Interrupted as exc:  # SIGHUP/SIGTERM/SIGINT during a long command: one line, the signal's code
        import contextlib

        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            if ctx.json:
                ctx.emit({"ok": False, "interrupted_by": exc.name, "error": str(exc)})
            print(f"workbench: {exc}", file=sys.stderr, flush=True)
        if argv is None:  # the command line: stop now (below), not after seconds of interpreter teardown
            ctx.close()
            _exit_now(exc.code)
        return exc.code
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the store's or the core's own message, never a traceback wall
        from store import StoreError, is_disk_full
        from workbench.files import WriteError

        if is_disk_full(exc):
            return _disk_full(ctx, exc, resumable=args.command == "run")
        if isinstance(exc, (StoreError, WriteError)):
            from workbench.safe_text import for_terminal

            print(f"workbench: {for_terminal(exc)}", file=sys.stderr)
            return FAILED
        raise
    finally:
        ctx.close()


def _exit_now(code: int) -> None:
    """End the process at once, after a signal: what is stored is committed and the store closed; tearing
    down the interpreter (litellm, the embedding model's modules) took seconds, and a signalled command
    must be gone within two (issue 34). Output is flushed first; nothing else is left to run."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _disk_full(ctx: Context, exc: BaseException, *, resumable: bool) -> int:
    """ENOSPC / SQLITE_FULL anywhere below: one line saying what could not be written, where, and what to do
    (`--resume` only where the command has it: a report or a packet is simply written again)."""
    from store.db import disk_full_error
    from workbench.safe_text import for_terminal

    where = next((e.filename for e in _chain(exc) if isinstance(e, OSError) and e.filename), None)
    error = disk_full_error(exc, "a file" if where else "the store", where or ctx.db_path)
    text = str(error) + (" (a study run continues with --resume)" if resumable else "")
    if ctx.json:
        ctx.emit({"ok": False, "error": text, "details": {"what": error.what, "where": error.where}})
    print(f"workbench: {for_terminal(text)}", file=sys.stderr)
    return FAILED


def _chain(exc: BaseException | None):
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


if __name__ == "__main__":  # batch commands only; the TUI is `python -m screens.launch`
    sys.exit(main())
