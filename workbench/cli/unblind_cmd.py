"""`workbench --batch unblind STUDY [--force]`."""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context, add_by, study_action


def register(sub: argparse._SubParsersAction) -> None:
    p = study_action(sub, "unblind", unblind, help="open a study's sealed key (recorded; closes scoring)",
                     description="Unblind STUDY: record who and when, open the item -> condition key to the "
                                 "metrics, and close scoring. Refused while any rater has assigned items not "
                                 "fully scored, unless --force; a forced unblinding is marked on every result.",
                     examples=("workbench --batch unblind glenda-crock-mock",
                               "workbench --batch unblind glenda-crock-mock --force --reason \"rater-b left the study\""))
    p.add_argument("--force", action="store_true", help="unblind although scoring is not complete")
    add_by(p, "who unblinds")
    p.add_argument("--reason", metavar="TEXT", help="why, for the record")


def unblind(args, ctx: Context) -> int:
    from workbench.blinding.context import BlindingError
    from workbench.scoring.unblind import UnblindRefused, unblind as do_unblind
    from workbench.scoring.actor import acting_user

    try:
        record = do_unblind(ctx.db(), args.study_id, by=acting_user(args.by), force=args.force, reason=args.reason)
    except UnblindRefused as exc:
        raise CommandError(str(exc), details={"remaining": exc.remaining}) from None
    except BlindingError as exc:
        raise CommandError(str(exc)) from None
    if record["already"]:
        text = f"study {args.study_id} was already unblinded at {record['at']} by {record['by']}" + (
            " (forced)" if record["forced"] else "")
    else:
        text = f"study {args.study_id} unblinded by {record['by']} at {record['at']}" + (
            " (FORCED: scoring was not complete; every result is marked)" if record["forced"] else "")
        if record.get("excluded"):
            text += (f"\nexcluded by the pre-registered [quality] rules before the key was opened: "
                     f"{', '.join(record['excluded'])} (their scores leave the tables; `evaluators qc` shows why)")
    ctx.emit({"ok": True, **record}, text, study=args.study_id)
    return OK
