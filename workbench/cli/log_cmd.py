"""`workbench --batch log verify STUDY`: is a study's hash-chained call log whole?"""

from __future__ import annotations

import argparse

from workbench.cli.context import FAILED, OK, CommandError, Context, command_group, study_action


def register(sub: argparse._SubParsersAction) -> None:
    lsub = command_group(sub, "log", help="check the call logs", dest="log_command")
    study_action(lsub, "verify", verify, dest="study",
                 help="check a study's call log against its chain and the store; exit 1 naming the first broken line",
                 description="Recompute every line's hash and link, then check the log against the "
                             "store in both directions: every call's line and hash, each store call's "
                             "key, status and response against its line, each log line against a "
                             "call in the store, and the heads kept when runs, judging and reports "
                             "ended. A truncated, emptied, re-chained or one-sidedly edited log is "
                             "refused; torn tails cut away before a call are named. Calls made outside "
                             "any study (probes, connection tests) are in the log named _global.",
                 examples=("workbench --batch log verify glenda-crock-mock",))


def verify(args, ctx: Context) -> int:
    from store.calls import log_heads, log_record
    from workbench.gateway.calllog import log_name
    from workbench.gateway.logcheck import check_log
    from workbench.paths import logs_dir

    study_id = None if args.study == "_global" else args.study
    path = logs_dir(ctx.db_path) / log_name(study_id)
    db = ctx.db()
    if not path.is_file() and not log_record(db, study_id) and not log_heads(db, study_id):
        raise CommandError(f"no call log for study '{args.study}' at {path}")
    result = check_log(db, study_id, path)
    ctx.emit(result.to_dict(), result.message(), study=args.study)
    if not result.ok and not ctx.json:
        ctx.info(f"workbench: call log refused: {result.problems[0]}")
    return OK if result.ok else FAILED
