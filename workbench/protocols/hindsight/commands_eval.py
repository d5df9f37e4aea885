"""`workbench --batch hindsight adjudicate|pilot …` (registered by commands.py).

    hindsight pilot STUDY                                the human pilot: kappa per metric vs its target
    hindsight pilot STUDY --refine RUBRIC_FILE --reason TEXT --by NAME
                                                         below target: a new rubric version, recorded; the
                                                         raters re-score the pilot cases under it

    hindsight adjudicate STUDY                  the queue: items whose raters differ by more than the margin
    hindsight adjudicate STUDY --with-scores    the same with the raters' scores (for a consensus meeting)
    hindsight adjudicate STUDY --item I --rubric R --criterion C --value V --method third_rater|consensus
                         --by NAME [--note TEXT]    record an adjudication (append-only)
"""

from __future__ import annotations

import argparse

from workbench.cli.context import protocol_study
from workbench.cli.examples import examples


def register(hs: argparse._SubParsersAction) -> None:
    a = hs.add_parser("adjudicate", help="the adjudication queue, or record a third rater's score or a "
                                         "consensus for one item's criterion",
                       description="Without --item: the queue of items whose raters disagree beyond the margin "
                                   "(their scores shown only with --with-scores). With --item, --rubric, "
                                   "--criterion, --value and --method: record a third rater's score or a consensus.",
                       **examples("workbench --batch hindsight adjudicate glenda-crock-mock",
                                  "workbench --batch hindsight adjudicate glenda-crock-mock --item I-3F2A "
                                  "--rubric anticipation --criterion anticipation --value 2 --method consensus "
                                  "--by 'a + b'"))
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
    p = hs.add_parser("pilot", help="the human pilot on the study's pilot cases: kappa per metric against the "
                                    "pre-registered targets; --refine records a new rubric version",
                       description="Kappa per metric between the raters on the study's pilot cases, against the "
                                   "pre-registered targets. --refine RUBRIC_FILE records a revised rubric as a new "
                                   "version, with --reason and --by.",
                       **examples("workbench --batch hindsight pilot glenda-crock-mock",
                                  "workbench --batch hindsight pilot glenda-crock-mock --refine rubrics/anticipation.md "
                                  "--reason 'anchor 2 was ambiguous' --by ana"))
    p.add_argument("study", metavar="STUDY")
    p.add_argument("--refine", metavar="RUBRIC_FILE")
    p.add_argument("--reason", default="")
    p.add_argument("--by", default="")
    p.set_defaults(handler=handle_pilot)


def handle_pilot(args, ctx) -> int:
    from pathlib import Path

    from workbench.blinding.context import load_study
    from workbench.cli.context import CommandError
    from workbench.pilots.kappa import PilotError, pilot_status, refine_rubric

    protocol_study(ctx.db(), args.study, "hindsight")
    study = load_study(ctx.db(), args.study)
    if args.refine:
        try:
            text = Path(args.refine).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{args.refine}: cannot read: {exc}") from None
        try:
            done = refine_rubric(ctx.db(), study, text, reason=args.reason, by=args.by, source=args.refine)
        except (PilotError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        ctx.emit({"ok": True, **done}, f"rubric {done['rubric']} refined ({done['old_hash'][:12]} -> "
                                       f"{done['new_hash'][:12]}); round {done['round_closed']} closed; the raters "
                                       "re-score the pilot cases")
        return 0
    status = pilot_status(ctx.db(), study)

    def text() -> str:
        lines = [status.message]
        for m in status.metrics:
            k = "undefined" if m.kappa is None else f"{m.kappa:.3f}"
            lines.append(f"  {m.rubric:<22} kappa {k} (target {m.target:.2f}, {m.n_items} items) "
                         f"{'ok' if m.passed else 'BELOW TARGET'}{': ' + m.reason if m.reason else ''}")
        return "\n".join(lines)

    ctx.emit(status.to_dict(), text)
    return 0


def handle_adjudicate(args, ctx) -> int:
    from workbench.cli.context import CommandError
    from workbench.scoring.adjudication import AdjudicationError, adjudicate, queue

    protocol_study(ctx.db(), args.study, "hindsight")
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
