"""`workbench --batch export inspect|table STUDY --out DIR`: the whole study for other tools.

`export inspect` writes Inspect AI eval logs (`inspect view DIR` opens them); `export table` writes the
tidy long-format CSV tables and their `datapackage.json`. Both refuse a study that is still blind, except
`export inspect --blind`, which writes the blind items only.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="the whole study for other tools: Inspect AI logs, tidy tables",
                       description="Export STUDY for other tools. Written whole or not at all (a temporary "
                                   "sibling folder renamed into place).")
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
    i.add_argument("--out", metavar="DIR", required=True, help="the folder to write (replaced whole)")
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
    t.add_argument("--out", metavar="DIR", required=True, help="the folder to write (replaced whole)")
    t.add_argument("--with-text", action="store_true", help="include each call's messages and reply in calls.csv")
    t.set_defaults(handler=export_table)


def _record(ctx: Context, study: str, *, blind: bool = False):
    from workbench.exports.study_record import ExportRefused, load

    try:
        return load(ctx.db(), study, blind=blind)
    except (KeyError, ExportRefused) as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None


def _write(out: str, fill):
    from workbench.exports.folder import ExportWriteError, write_folder

    try:
        return write_folder(out, fill)
    except ExportWriteError as exc:
        raise CommandError(f"cannot write the export: {exc}") from None


def export_inspect(args, ctx: Context) -> int:
    from workbench.exports.inspect_log import InspectMissing, export_inspect as write_logs, require_inspect

    try:
        require_inspect()
    except InspectMissing as exc:
        raise CommandError(str(exc)) from None
    record = _record(ctx, args.study, blind=args.blind)
    if args.blind and not record.blind_items:
        raise CommandError(f"study '{args.study}' has no blind items to export (nothing was blinded yet)")
    paths = _write(args.out, lambda tmp: write_logs(ctx.db(), record, tmp))
    samples = len(record.blind_items) if args.blind else len(record.runs)
    ctx.emit({"ok": True, "study": args.study, "protocol": record.protocol, "blind": args.blind,
              "logs": [str(p) for p in paths], "samples": samples},
             f"wrote {len(paths)} Inspect log(s) of {args.study} ({record.protocol}, {samples} samples"
             f"{', blind items only' if args.blind else ''}) to {args.out}; open them with "
             f"`inspect view --log-dir {args.out}`")
    return OK


def export_table(args, ctx: Context) -> int:
    from workbench.exports.tables import study_tables, write_tables

    record = _record(ctx, args.study)
    db = ctx.db()
    measures = _measures(db, record)
    tables = study_tables(db, record, with_text=args.with_text, measures=measures)
    paths = _write(args.out, lambda tmp: write_tables(tables, record, tmp))
    ctx.emit({"ok": True, "study": args.study, "protocol": record.protocol, "files": [str(p) for p in paths],
              "rows": {t.name: len(t.rows) for t in tables}},
             f"wrote {len(tables)} tables of {args.study} ({record.protocol}) and datapackage.json to {args.out}: "
             + ", ".join(f"{t.name} {len(t.rows)}" for t in tables))
    return OK


def _measures(db, record):
    """The protocol's `metrics --csv` rows (no decision-quality embeddings: the tables stay quick)."""
    from workbench.protocols.registry import protocol_of

    protocol = protocol_of(record.study["definition"])
    try:
        return protocol.metrics(db, record.study["id"], {"csv": True, "include_dq": False, "comparisons": [],
                                                          "embedding_model": None, "progress": None})
    except NotImplementedError:
        return None
