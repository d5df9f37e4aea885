"""`workbench --batch export inspect|table STUDY --out DIR`: the whole study for other tools.

`export inspect` writes Inspect AI eval logs (`inspect view DIR` opens them); `export table` writes the
tidy long-format CSV tables and their `datapackage.json`. Both refuse a study that is still blind, except
`export inspect --blind`, which writes the blind items only.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context, refusals
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="the whole study for other tools: Inspect AI logs, tidy tables",
                       description="Export STUDY for other tools. Each file is written whole. A DIR that holds "
                                   "anything needs --force, and even then only the files the workbench wrote "
                                   "there (its manifest, .workbench-files) are replaced; nothing else in it "
                                   "is replaced or deleted.")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    i = kinds.add_parser("inspect", help="Inspect AI eval logs, one per condition",
                         description="Write STUDY as Inspect AI eval logs (JSON format), one per condition: each "
                                     "run a sample with its turns as messages, its output, usage, cost and "
                                     "status; scores per rater, judge and criterion once unblinded. Before "
                                     "unblinding it refuses, or with --blind writes the blind items only. Needs "
                                     "the optional package inspect-ai (pip install -e '.[inspect]'); open the folder with "
                                     "`inspect view --log-dir DIR`.",
                         **examples("workbench --batch export inspect glenda-crock-sim --out logs/",
                                    "workbench --batch export inspect glenda-crock-sim --out blind-logs/ --blind"))
    i.add_argument("study", metavar="STUDY")
    i.add_argument("--out", metavar="DIR", required=True, help="the folder to write")
    _force(i)
    i.add_argument("--blind", action="store_true",
                   help="the blind items only: opaque ids and the text raters read, no condition, model or rater")
    i.set_defaults(handler=export_inspect)
    t = kinds.add_parser("table", help="long-format CSV tables and datapackage.json",
                         description="Write STUDY as tidy long-format CSV tables (runs, calls, outputs; scores and "
                                     "the protocol's measures once unblinded) with a Frictionless datapackage.json "
                                     "documenting every column and the join keys.",
                         **examples("workbench --batch export table glenda-crock-sim --out tables/",
                                    "workbench --batch export table faultline-sim --out tables/ --with-text"))
    t.add_argument("study", metavar="STUDY")
    t.add_argument("--out", metavar="DIR", required=True, help="the folder to write")
    _force(t)
    t.add_argument("--with-text", action="store_true", help="include each call's messages and reply in calls.csv")
    t.set_defaults(handler=export_table)


def _force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write into a DIR that holds files: the workbench's own there are replaced, the "
                             "others kept")


def _run(ctx: Context, write, **kwargs):
    from workbench.exports.catalog import ExportFailed, ExportNotEmpty

    try:
        with refusals(KeyError):   # an unknown study, or one whose protocol shows no metric yet (an unfrozen calibration)
            return write(ctx.db(), **kwargs)
    except ExportNotEmpty as exc:
        raise CommandError(f"{exc}; --force replaces the workbench's files there and keeps the others") from None
    except ExportFailed as exc:
        raise CommandError(str(exc)) from None


def export_inspect(args, ctx: Context) -> int:
    from workbench.exports.catalog import export_inspect as write

    done = _run(ctx, write, study_id=args.study, out=args.out, blind=args.blind, replace=args.force)
    ctx.emit({"ok": True, "study": args.study, "blind": args.blind, "logs": [str(p) for p in done.paths],
              **done.details},
             done.summary)
    return OK


def export_table(args, ctx: Context) -> int:
    from workbench.exports.catalog import export_table as write

    done = _run(ctx, write, study_id=args.study, out=args.out, with_text=args.with_text, replace=args.force)
    ctx.emit({"ok": True, "study": args.study, "files": [str(p) for p in done.paths], **done.details},
             done.summary)
    return OK
