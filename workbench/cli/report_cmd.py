"""`workbench --batch report STUDY --out FILE.md`: the study's markdown report.

Tables 1-4 (or the condition-free overall table while the study is blinded),
agreement against the pre-registered targets, judge errors, blindness audit,
decision quality, calibration of judge scores, contamination probes, the
study's settings and its freeze hash. The same tables as `metrics STUDY`.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context
from workbench.cli.examples import examples
from workbench.cli.metrics_cmd import add_analysis_options, analysis_options, require_study, study_protocol


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write the study's markdown report",
                       description="Write STUDY's markdown report: settings, Tables 1-4 (headings only "
                                   "while blinded), agreement, decision quality and every deviation; "
                                   "written whole or not at all.",
                       **examples("workbench --batch report glenda-crock-mock --out report.md"))
    p.add_argument("study", metavar="STUDY")
    p.add_argument("--out", metavar="FILE", required=True, help="the markdown file to write")
    p.add_argument("--update", action="store_true",
                   help="take what the report reads of other studies (M11's trend) from the store as it is now; "
                        "without it, the report reproduces what its first writing stored")
    add_analysis_options(p)
    p.set_defaults(handler=handle)


def handle(args, ctx: Context) -> int:
    from workbench.reports.study_report import write_study_report

    db = ctx.db()
    header = require_study(db, args.study)
    protocol = study_protocol(header)
    try:
        options = {**analysis_options(args, db, ctx), "update": args.update}
        path = write_study_report(db, args.study, protocol, options, args.out)
    except KeyError as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None
    except OSError as exc:
        from store import DiskFull, is_disk_full

        if is_disk_full(exc):  # the old report, if any, is untouched: the write was atomic
            raise DiskFull("the report", args.out) from exc
        raise CommandError(str(exc)) from None  # names the path: nothing was written to it
    blinded = not header["unblinded_at"]
    ctx.emit({"ok": True, "study": args.study, "protocol": protocol.name, "out": str(path),
              "blinded": blinded, "forced_unblinding": header["unblind_forced"],
              "freeze_hash": header["freeze_hash"]},
             f"wrote the report of {args.study} (protocol {protocol.name}) to {path}"
             + (" (blinded: conditions hidden)" if blinded and protocol.name == "hindsight" else ""))
    return OK

