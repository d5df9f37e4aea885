"""`workbench --batch packet export STUDY --rater NAME --out FILE | packet import FILE`."""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context, command_group, study_action


def register(sub: argparse._SubParsersAction) -> None:
    psub = command_group(sub, "packet", help="rater packets: score blind items offline", dest="packet_command",
                         description="A rater packet is one signed JSON file with exactly what the rater may see "
                                     "(their items, the rubric anchors, their own scores so far). Fill in its "
                                     "`answers` offline and import it back; an edited or foreign packet is "
                                     "refused with the reason.")
    e = study_action(psub, "export", export, help="write a rater's packet",
                     description="Write one rater's packet of a frozen study: their blind items, the rubric "
                                 "anchors and their scores so far, signed so an edit is detected on import.",
                     examples=("workbench --batch packet export glenda-crock-mock --rater rater-a --out a.json",
                               "workbench --batch --db shared.db packet export my-study --rater bo --out bo.json"),
                     study_help="the study's id (see `workbench --batch study list`)")
    e.add_argument("--rater", required=True, metavar="NAME", help="one of the study's raters; only their items "
                                                                   "and their own scores go in the packet")
    e.add_argument("--out", required=True, metavar="FILE", help="where to write the packet (one JSON file, "
                                                                "written whole or not at all)")
    i = psub.add_parser("import", help="record a filled-in packet's scores",
                        description="Record the answers of a packet filled in offline; an edited, foreign or "
                                    "already imported packet is refused with the reason.",
                        epilog="example:\n  workbench --batch packet import a.json",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    i.add_argument("file", metavar="FILE", help="the packet file the rater sent back")
    i.set_defaults(handler=import_)


def export(args, ctx: Context) -> int:
    from workbench.scoring.packets import PacketError, export_packet, export_text

    try:
        summary = export_packet(ctx.db(), args.study_id, args.rater, args.out)
    except PacketError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        from store import DiskFull, is_disk_full

        if is_disk_full(exc):
            raise DiskFull("the packet", args.out) from exc
        raise CommandError(str(exc)) from None  # names the path: nothing was written to it
    ctx.emit({"ok": True, **summary}, export_text(summary), study=args.study_id)
    return OK


def import_(args, ctx: Context) -> int:
    from workbench.scoring.packets import PacketError, import_packet, import_text

    try:
        result = import_packet(ctx.db(), args.file)
    except PacketError as exc:
        for line in exc.details:
            ctx.info(f"  {line}")
        raise CommandError(f"packet refused ({exc})", details={"reason": exc.reason,
                                                                "problems": exc.details}) from None
    ctx.emit({"ok": True, **result.to_dict()}, import_text(result))
    return OK
