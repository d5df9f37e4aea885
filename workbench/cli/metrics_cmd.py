"""`workbench --batch metrics STUDY [--csv] [--compare A:B:METRIC ...]`: the study's tables.

Prints Tables 1-4, agreement, judge errors, blindness audit, decision quality,
calibration and probes as text; with `--json` one JSON document (every
statistic as value, CI, n, method and any undefined reason); with `--csv` the
long-format CSV of every score and verdict. Two extra jobs for DQ-3:
`--assess-concerns` has a model judge each run's concern coverage through the
gateway first; `--record-concerns FILE --rater NAME` stores a rater's concern
scores (CSV run_id,concern,value) instead of printing tables.
"""

from __future__ import annotations

import argparse
import sys

from workbench.cli.context import FAILED, OK, USAGE, CommandError, Context


def comparison_arg(text: str):
    from workbench.metrics.hindsight_tables import parse_comparison

    try:
        return parse_comparison(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--compare", action="append", type=comparison_arg, default=[], metavar="A:B:METRIC",
                   help="an extra Table 4 comparison, e.g. C1:B1:anticipation (repeatable)")
    p.add_argument("--no-dq", action="store_true", help="skip decision quality (no embeddings)")
    p.add_argument("--embedding-model", metavar="NAME", default=None,
                   help="sentence-transformers model name or path for DQ-1/DQ-2 (default: the bundled MiniLM)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print one JSON document (same as the global --json)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="the study's tables, agreement and decision quality (text, JSON or CSV)")
    p.add_argument("study", metavar="STUDY")
    p.add_argument("--csv", action="store_true", help="the long-format CSV of every score and verdict")
    p.add_argument("--out", metavar="FILE", help="write the CSV (or the text) to FILE instead of stdout")
    add_analysis_options(p)
    p.add_argument("--assess-concerns", action="store_true",
                   help="first have a model judge each run's DQ-3 concern coverage (through the gateway)")
    p.add_argument("--redo-concerns", action="store_true", help="with --assess-concerns: judge runs again")
    p.add_argument("--model", metavar="M", help="with --assess-concerns: the litellm model (default: first judge)")
    p.add_argument("--api-base", metavar="URL", help="with --assess-concerns: the model's API base")
    p.add_argument("--record-concerns", metavar="FILE",
                   help="record a rater's concern scores from FILE (CSV run_id,concern,value or JSON) and stop")
    p.add_argument("--rater", metavar="NAME", help="with --record-concerns: the rater's name")
    p.set_defaults(handler=handle)


def require_study(db, study_id: str) -> dict:
    from store.metrics_data import study_header

    row = study_header(db, study_id)
    if row is None:
        raise CommandError(f"no study '{study_id}' in the store (create it with `workbench --batch study create`)")
    return row


def check_comparisons(db, study_id: str, comparisons) -> None:
    """A user comparison must name conditions and a metric of this study, and the study must be unblinded."""
    if not comparisons:
        return
    from workbench.metrics.hindsight_tables import resolve_metric
    from workbench.metrics.study_data import load_study_data

    data = load_study_data(db, study_id)
    if data.blinded:
        raise CommandError(f"study '{study_id}' is blinded: --compare needs conditions, which stay hidden "
                           "until `workbench --batch unblind STUDY`")
    for comp in comparisons:
        for cond in (comp.a, comp.b):
            if cond not in data.conditions:
                raise CommandError(f"--compare {comp.a}:{comp.b}:{comp.metric}: condition {cond} is not in study "
                                   f"'{study_id}' (conditions: {', '.join(data.conditions)})")
        try:
            resolve_metric(data, comp.metric)
        except ValueError as exc:
            raise CommandError(f"--compare {comp.a}:{comp.b}:{comp.metric}: {exc}") from None


def run_analysis(ctx: Context, args, db):
    from workbench.metrics.analysis import analyze_study
    from workbench.metrics.embeddings import DEFAULT_MODEL

    check_comparisons(db, args.study, args.compare)
    try:
        return analyze_study(db, args.study, comparisons=args.compare, include_dq=not args.no_dq,
                             embedding_model=args.embedding_model or DEFAULT_MODEL)
    except KeyError as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None


def concern_settings(args, header: dict, db):
    """--model / --api-base, else the study's first judge, else the stored judge role's model."""
    from workbench.gateway import ModelSettings

    judges = header["definition"].get("judges") or []
    if args.model:
        model, api_base = args.model, args.api_base
    elif judges:
        model, api_base = judges[0].get("model") or "mock", args.api_base or judges[0].get("api_base")
    else:
        from workbench.model_settings import role_settings

        role = role_settings(db, "judge")
        model, api_base = role.model, args.api_base or role.api_base
    return ModelSettings(model=model, api_base=api_base or None, temperature=0.0, max_tokens=800)


def handle(args, ctx: Context) -> int:
    if args.csv and ctx.json:
        raise CommandError("--csv and --json are two different outputs; pick one", code=USAGE)
    if args.rater and not args.record_concerns:
        raise CommandError("--rater goes with --record-concerns FILE", code=USAGE)
    db = ctx.db()
    header = require_study(db, args.study)
    if args.record_concerns:
        return record_concerns(args, ctx, db)
    if args.assess_concerns:
        assess_concerns(args, ctx, db, header)
    if args.csv:
        return write_csv(args, ctx, db)
    analysis = run_analysis(ctx, args, db)
    from workbench.metrics.render import analysis_tables, tables_text

    def human() -> str:
        head = f"Study {analysis.data.study_id} ({analysis.data.protocol}); {analysis.status_line()}\n"
        return head + "\n" + tables_text(analysis_tables(analysis))

    if args.out and not ctx.json:
        from pathlib import Path

        Path(args.out).write_text(human(), encoding="utf-8")
        ctx.info(f"wrote the tables to {args.out}")
        return OK
    ctx.emit(analysis.to_dict(), human)
    return OK


def write_csv(args, ctx: Context, db) -> int:
    from workbench.metrics.export import write_csv as write
    from workbench.metrics.study_data import load_study_data

    data = load_study_data(db, args.study)
    if args.out:
        from pathlib import Path

        with Path(args.out).open("w", encoding="utf-8", newline="") as fh:
            n = write(data, fh)
        ctx.info(f"wrote {n} row(s) to {args.out}")
    else:
        try:
            write(data, sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. piped into `head`: the reader has what it wanted
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if data.blinded:
        ctx.info("study is blinded: the condition and replicate columns are empty")
    return OK


def record_concerns(args, ctx: Context, db) -> int:
    from workbench.metrics.concern_coverage import ConcernInputError, read_concern_file, record_rater_concerns

    if not args.rater:
        raise CommandError("--record-concerns needs --rater NAME", code=USAGE)
    try:
        rows = read_concern_file(args.record_concerns)
        n = record_rater_concerns(db, args.study, args.rater, rows, source_name=args.record_concerns)
    except ConcernInputError as exc:
        raise CommandError(str(exc)) from None
    ctx.emit({"ok": True, "study": args.study, "rater": args.rater, "recorded": n},
             f"recorded {n} concern score(s) by {args.rater} for study {args.study}")
    return OK


def assess_concerns(args, ctx: Context, db, header: dict) -> None:
    import asyncio

    from workbench.gateway import GatewayError
    from workbench.metrics.concern_coverage import assess_study_concerns

    settings = concern_settings(args, header, db)
    ctx.info(f"assessing DQ-3 concern coverage with {settings.model} ...")
    try:
        summary = asyncio.run(assess_study_concerns(db, ctx.db_path, args.study, settings, redo=args.redo_concerns,
                                                    progress=ctx.info))
    except GatewayError as exc:
        raise CommandError(f"concern assessment stopped: {exc}", code=FAILED) from None
    ctx.info(f"concerns: {summary.runs_assessed} run(s) assessed, {summary.runs_skipped} already done, "
             f"{summary.concerns_scored} concern(s) scored, {summary.concerns_failed} unassessed "
             f"({summary.calls} call(s))")
    for line in summary.errors[:20]:
        ctx.info(f"  {line}")
