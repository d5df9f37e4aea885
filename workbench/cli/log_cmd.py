"""`workbench --batch log verify STUDY`: re-walk a study's hash-chained call log."""

from __future__ import annotations

import argparse

from workbench.cli.context import FAILED, OK, CommandError, Context


def register(sub: argparse._SubParsersAction) -> None:
    log = sub.add_parser("log", help="check the call logs")
    lsub = log.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    v = lsub.add_parser("verify", help="re-walk a study's call log; exit 1 naming the first broken line",
                        description="Recompute every line's hash and link. Calls made outside any study "
                                    "(probes, connection tests) are in the log named _global.")
    v.add_argument("study", metavar="STUDY")
    v.set_defaults(handler=verify)


def verify(args, ctx: Context) -> int:
    from workbench.gateway.calllog import log_name, verify_log
    from workbench.paths import logs_dir

    path = logs_dir(ctx.db_path) / log_name(args.study)
    if not path.is_file():
        raise CommandError(f"no call log for study '{args.study}' at {path}")
    result = verify_log(path)
    ctx.emit({"ok": result.ok, "study": args.study, "path": str(path), "lines": result.lines,
              "broken_line": result.broken_line, "reason": result.reason}, result.message(path))
    if not result.ok and not ctx.json:
        ctx.info(f"workbench: call log broken at line {result.broken_line}: {result.reason}")
    return OK if result.ok else FAILED
