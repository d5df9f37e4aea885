"""`workbench --batch report STUDY --out FILE.md`: the study's markdown report.

Tables 1-4 (or the condition-free overall table while the study is blinded),
agreement against the pre-registered targets, judge errors, blindness audit,
decision quality, calibration of judge scores, contamination probes, the
study's settings and its freeze hash. The same tables as `metrics STUDY`.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context
from workbench.cli.metrics_cmd import add_analysis_options, require_study, run_analysis


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write the study's markdown report")
    p.add_argument("study", metavar="STUDY")
    p.add_argument("--out", metavar="FILE", required=True, help="the markdown file to write")
    add_analysis_options(p)
    p.set_defaults(handler=handle)


def handle(args, ctx: Context) -> int:
    from workbench.reports import write_report

    db = ctx.db()
    require_study(db, args.study)
    analysis = run_analysis(ctx, args, db)
    try:
        path = write_report(analysis, args.out)
    except OSError as exc:
        raise CommandError(f"cannot write {args.out}: {exc}") from None
    d = analysis.data
    ctx.emit({"ok": True, "study": d.study_id, "out": str(path), "blinded": d.blinded,
              "forced_unblinding": d.forced, "freeze_hash": d.freeze_hash},
             f"wrote the report of {d.study_id} to {path}" + (" (blinded: conditions hidden)" if d.blinded else ""))
    return OK
