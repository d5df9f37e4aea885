"""`workbench --batch export inspect|table STUDY --out DIR`: the whole study for other tools.

`export inspect` writes Inspect AI eval logs (`inspect view DIR` opens them); `export table` writes the
tidy long-format CSV tables and their `datapackage.json`. Both refuse a study that is still blind, except
`export inspect --blind`, which writes the blind items only.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context, command_group, refusals, study_action


def register(sub: argparse._SubParsersAction) -> None:
    kinds = command_group(sub, "export", help="the whole study for other tools: Inspect AI logs, tidy tables",
                          description="Export STUDY for other tools. Each file is written whole. A DIR that holds "
                                      "anything needs --force, and even then only the files the workbench wrote "
                                      "there (its manifest, .workbench-files) are replaced; nothing else in it "
                                      "is replaced or deleted.", dest="kind", metavar="KIND")
    i = study_action(kinds, "inspect", export_inspect, help="Inspect AI eval logs, one per condition", dest="study",
                     description="Write STUDY as Inspect AI eval logs (JSON format), one per condition: each "
                                 "run a sample with its turns as messages, its output, usage, cost and "
                                 "status; scores per rater, judge and criterion once unblinded. Before "
                                 "unblinding it refuses, or with --blind writes the blind items only. Needs "
                                 "the optional package inspect-ai (pip install -e '.[inspect]'); open the folder with "
                                 "`inspect view --log-dir DIR`.",
                     examples=("workbench --batch export inspect glenda-crock-sim --out logs/",
                               "workbench --batch export inspect glenda-crock-sim --out blind-logs/ --blind"))
    _out(i)
    i.add_argument("--blind", action="store_true",
                   help="the blind items only: opaque ids and the text raters read, no condition, model or rater")
    t = study_action(kinds, "table", export_table, help="long-format CSV tables and datapackage.json", dest="study",
                     description="Write STUDY as tidy long-format CSV tables (runs, calls, outputs; scores and "
                                 "the protocol's measures once unblinded) with a Frictionless datapackage.json "
                                 "documenting every column and the join keys.",
                     examples=("workbench --batch export table glenda-crock-sim --out tables/",
                               "workbench --batch export table faultline-sim --out tables/ --with-text"))
    _out(t)
    t.add_argument("--with-text", action="store_true", help="include each call's messages and reply in calls.csv")


def _out(parser: argparse.ArgumentParser) -> None:
    """`--out DIR` and `--force`: where an export writes, and whether into a folder that holds files."""
    parser.add_argument("--out", metavar="DIR", required=True, help="the folder to write")
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
