"""`workbench --batch hindsight …`: the hindsight protocol's own batch commands.

    hindsight topology STUDY                              the coding per case and condition, reviews applied
    hindsight topology STUDY --review CASE COND --pattern P --reason TEXT --reviewer NAME [--switching TEXT]
                                                          record a reviewed coding (append-only)
"""

from __future__ import annotations

import argparse

from workbench.cli.context import protocol_study
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hindsight", help="hindsight: topology review, adjudication, human pilot",
                       description="Seed 000's own steps: review P1's topology coding, adjudicate raters' "
                                   "disagreements, and run the human pilot on the pilot cases.")
    hs = p.add_subparsers(dest="hindsight_command", metavar="ACTION", required=True)
    t = hs.add_parser("topology", help="the Basin / Ridge / Plateau coding per case and condition; "
                                       "--review records a person's override with a reason",
                         description="P1's topology per case and condition (Basin, Ridge or Plateau, as the "
                                     "model coded it and as a person reviewed it). --review CASE CONDITION with "
                                     "--pattern and --reason records an override; a Ridge needs --switching.",
                         **examples("workbench --batch hindsight topology glenda-crock-mock",
                                    "workbench --batch hindsight topology glenda-crock-mock --review glenda-crock P1 "
                                    "--pattern Basin --reason 'one attractor' --reviewer ana"))
    t.add_argument("study", metavar="STUDY")
    t.add_argument("--review", nargs=2, metavar=("CASE", "CONDITION"))
    t.add_argument("--pattern", choices=("Basin", "Ridge", "Plateau"))
    t.add_argument("--reason", default="")
    t.add_argument("--reviewer", default="")
    t.add_argument("--switching", default=None, help="the switching assumption (a Ridge needs one)")
    t.set_defaults(handler=handle_topology)
    from workbench.protocols.hindsight import commands_eval

    commands_eval.register(hs)


def handle_topology(args, ctx) -> int:
    from workbench.cli.context import CommandError
    from workbench.protocols.hindsight.topology_review import (
        TopologyReviewError,
        review_topology,
        reviewed_topology,
    )

    study = protocol_study(ctx.db(), args.study, "hindsight")
    if args.review:
        if not args.pattern:
            raise CommandError("--review needs --pattern Basin|Ridge|Plateau")
        case_id, condition = args.review
        try:
            review = review_topology(ctx.db(), args.study, case_id, condition, pattern=args.pattern,
                                     reason=args.reason, reviewer=args.reviewer,
                                     switching_assumption=args.switching)
        except TopologyReviewError as exc:
            raise CommandError(str(exc)) from None
        ctx.emit({"ok": True, "review": review},
                 f"{case_id} {condition}: {review['automatic_pattern'] or 'no automatic coding'} -> "
                 f"{review['pattern']} (recorded, by {review['reviewer']})")
        return 0
    if not study.get("unblinded_at"):
        raise CommandError(f"study '{args.study}' is blinded: topology names conditions; unblind it first")
    rows = reviewed_topology(ctx.db(), args.study)
    ctx.emit({"topology": rows}, lambda: "\n".join(
        f"{r['case_id']:<28} {r['condition']:<4} {r['pattern']:<12}"
        + (f" (reviewed; automatic {r['automatic_pattern'] or '-'})" if r["review"] else "") for r in rows)
        or "no topology yet")
    return 0
