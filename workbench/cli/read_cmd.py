"""`workbench --batch read INSTRUMENT FILE [--json]`: how the tool reads a researcher's own text.

Every instrument (workbench.instruments: B3's perspectives, a second, a vote, cruxes, cues, …) is a
subcommand; it prints what it read and whether it is unsure (flagged, with the reason). Nothing is stored.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.context import CommandError, Context
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    from workbench.instruments.registry import all_instruments

    p = sub.add_parser("read", help="show how an instrument reads your own text (B3 replies, seconds, votes, …)",
                       description="Read FILE with one of the instruments that turn model text into "
                                   "measurements, and print what it read and whether it flagged it.",
                       **examples("workbench --batch read second reply.txt",
                                  "workbench --batch read vote reply.txt --json"))
    inner = p.add_subparsers(dest="instrument", metavar="INSTRUMENT", required=True,
                             parser_class=type(p))
    for instrument in all_instruments().values():
        q = inner.add_parser(instrument.name, help=instrument.title,
                             description=f"Read FILE ({instrument.input_help}) as {instrument.title}: print "
                                         "what was read and whether it is flagged as unsure.",
                             **examples(f"workbench --batch read {instrument.name} {instrument.example}",
                                        f"workbench --batch read {instrument.name} {instrument.example} --json"))
        q.add_argument("file", metavar="FILE", help=instrument.input_help)
        for option in instrument.options:
            q.add_argument(option.flag, dest=f"opt_{option.dest}", default=option.default,
                           choices=option.choices, help=option.help)
        q.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print one JSON document (same as the global --json)")
        q.set_defaults(handler=handle, instrument_name=instrument.name)


def handle(args: argparse.Namespace, ctx: Context) -> int:
    from workbench.gateway.api import GatewayError
    from workbench.instruments.registry import get
    from workbench.problems import CaseError

    instrument = get(args.instrument_name)
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError(f"{path}: cannot read: {e}") from None
    options = {o.dest: getattr(args, f"opt_{o.dest}") for o in instrument.options}
    try:
        document = instrument.read(text, options)
    except ValueError as e:
        raise CommandError(f"{path}: {e}") from None
    except CaseError as e:  # a file an option names (a --rubric TOML) is invalid: its problems name it by line
        raise CommandError(str(e)) from None
    except GatewayError as e:  # a model the reading asks (--model) cannot be reached or refuses: said, not a trace
        raise CommandError(f"{path}: the model could not be asked: {e}") from None
    document = {"instrument": instrument.name, "file": str(path), **document}

    def human() -> str:
        lines = [instrument.describe(document)]
        if document.get("flagged"):
            lines.append(f"FLAGGED: {document.get('reason') or 'the reading is not sure'}")
        elif document.get("reason"):
            lines.append(document["reason"])
        return "\n".join(lines)

    ctx.emit(document, human)
    return 0
