"""`workbench --batch hindsight adjudicate …` (registered by commands.py).

    hindsight adjudicate STUDY                  the queue: items whose raters differ by more than the margin
    hindsight adjudicate STUDY --with-scores    the same with the raters' scores (for a consensus meeting)
    hindsight adjudicate STUDY --item I --rubric R --criterion C --value V --method third_rater|consensus
                         --by NAME [--note TEXT]    record an adjudication (append-only)
"""

from __future__ import annotations

import argparse


def register(hs: argparse._SubParsersAction) -> None:
    a = hs.add_parser("adjudicate", help="the adjudication queue, or record a third rater's score or a "
                                         "consensus for one item's criterion")
    a.add_argument("study", metavar="STUDY")
    a.add_argument("--with-scores", action="store_true",
                   help="show the disagreeing scores (never to a third rater: they score blind)")
    a.add_argument("--item")
    a.add_argument("--rubric")
    a.add_argument("--criterion")
    a.add_argument("--value", type=float)
    a.add_argument("--method", choices=("third_rater", "consensus"))
    a.add_argument("--by", default="", help="the third rater, or the raters of a consensus (\"a + b\")")
    a.add_argument("--note", default=None)
    a.set_defaults(handler=handle_adjudicate)


def handle_adjudicate(args, ctx) -> int:
    from workbench.cli.context import CommandError
    from workbench.protocols.hindsight.commands import study_or_fail
    from workbench.scoring.adjudication import AdjudicationError, adjudicate, queue

    study_or_fail(ctx, args.study)
    if args.item:
        missing = [f"--{k}" for k in ("rubric", "criterion", "value", "method") if getattr(args, k) is None]
        if missing:
            raise CommandError(f"recording an adjudication needs {', '.join(missing)}")
        try:
            row = adjudicate(ctx.db(), args.study, item_id=args.item, rubric_id=args.rubric,
                             criterion=args.criterion, value=args.value, method=args.method, adjudicator=args.by,
                             note=args.note)
        except AdjudicationError as exc:
            raise CommandError(str(exc)) from None
        ctx.emit({"ok": True, "adjudication": row},
                 f"{args.item} {args.rubric}.{args.criterion} = {row['value']:g} ({row['method']}, {row['adjudicator']})")
        return 0
    items = queue(ctx.db(), args.study)
    docs = [d.to_dict(with_scores=args.with_scores) for d in items]

    def text() -> str:
        if not docs:
            return "no disagreement beyond the margin"
        lines = []
        for d in docs:
            scores = (" scores " + ", ".join(f"{r} {v:g}" for r, v in zip(d["raters"], d["scores"]))
                      if args.with_scores else "")
            state = f"adjudicated {d['adjudicated']:g}" if d["adjudicated"] is not None else "open"
            lines.append(f"{d['item_id']}  {d['rubric_id']}.{d['criterion']}  raters {', '.join(d['raters'])}"
                         f"{scores}  {state}")
        return "\n".join(lines)

    ctx.emit({"queue": docs}, text)
    return 0
