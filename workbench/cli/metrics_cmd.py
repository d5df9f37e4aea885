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

from workbench.cli.context import FAILED, OK, USAGE, CommandError, Context, add_model_choice, study_action


def comparison_arg(text: str) -> str:
    """The shape every `--compare` value has; the study's protocol reads it (`MetricsAnalysis.parse_comparison`)."""
    parts = (text or "").split(":")
    if len(parts) < 3 or not all(p.strip() for p in parts):
        raise argparse.ArgumentTypeError(f"comparison '{text}' must look like A:B:METRIC, e.g. C1:B1:anticipation")
    return text


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--compare", action="append", type=comparison_arg, default=[], metavar="A:B:METRIC",
                   help="an extra Table 4 comparison, e.g. C1:B1:anticipation (repeatable)")
    p.add_argument("--no-dq", action="store_true", help="skip decision quality (no embeddings)")
    p.add_argument("--embedding-model", metavar="NAME", default=None,
                   help="sentence-transformers model name or path for DQ-1/DQ-2 (default: the bundled MiniLM)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print one JSON document (same as the global --json)")


def register(sub: argparse._SubParsersAction) -> None:
    p = study_action(sub, "metrics", handle,
                     help="the study's tables, agreement and decision quality (text, JSON or CSV)",
                     description="Every table of STUDY from the one metric core the Metrics screen and the "
                                 "report use: Tables 1-4 (overall means only while blinded), agreement and "
                                 "decision quality.",
                     examples=("workbench --batch metrics glenda-crock-mock",
                               "workbench --batch metrics glenda-crock-mock --csv --out scores.csv"), dest="study")
    p.add_argument("--csv", action="store_true", help="the long-format CSV of every score and verdict")
    p.add_argument("--fidelity", action="store_true",
                   help="only the treatment fidelity table: in how many runs each condition's defining step "
                        "happened (with --csv its rows, with --json its document)")
    p.add_argument("--out", metavar="FILE", help="write the CSV (or the text) to FILE instead of stdout")
    add_analysis_options(p)
    p.add_argument("--assess-concerns", action="store_true",
                   help="first have a model judge each run's DQ-3 concern coverage (through the gateway)")
    p.add_argument("--redo-concerns", action="store_true", help="with --assess-concerns: judge runs again")
    add_model_choice(p, model="with --assess-concerns: the litellm model (default: first judge)",
                     api_base="with --assess-concerns: the model's API base")
    p.add_argument("--record-concerns", metavar="FILE",
                   help="record a rater's concern scores from FILE (CSV run_id,concern,value or JSON) and stop")
    p.add_argument("--rater", metavar="NAME", help="with --record-concerns: the rater's name")


def require_study(db, study_id: str) -> dict:
    from store.metrics_data import study_header

    row = study_header(db, study_id)
    if row is None:
        raise CommandError(f"no study '{study_id}' in the store (create it with `workbench --batch study create`)")
    return row


def comparisons_of(db, study_id: str, texts: list[str]) -> list:
    """`--compare` values as the study's protocol reads them, checked against the study by its one rule
    (`MetricsAnalysis.parse_comparison` and `check_comparisons`)."""
    if not texts:
        return []
    analysis = study_protocol(require_study(db, study_id)).analysis()
    if analysis is None:
        raise CommandError("--compare: this study's protocol takes no comparisons", code=USAGE)
    try:
        comparisons = [analysis.parse_comparison(t) for t in texts]
    except ValueError as exc:
        raise CommandError(f"--compare: {exc}", code=USAGE) from None
    try:
        analysis.check_comparisons(db, study_id, comparisons)
    except ValueError as exc:
        raise CommandError(f"--compare: {exc}") from None
    return comparisons


def analysis_options(args, db, ctx: Context, *, csv: bool = False) -> dict:
    """The command's analysis options as the protocol reads them (hindsight's comparisons, DQ, embeddings),
    and where its steps go (stderr: loading the embedding model, N of M texts embedded)."""
    from workbench.metrics.embeddings import progress_text

    comparisons = comparisons_of(db, args.study, args.compare)
    return {"csv": csv, "comparisons": comparisons, "include_dq": not args.no_dq,
            "embedding_model": args.embedding_model,
            "progress": lambda step, done, total: ctx.info(progress_text(step, done, total))}


def study_protocol(header: dict):
    from workbench.protocol.registry import UnknownProtocol, protocol_of

    try:
        return protocol_of(header["definition"])
    except UnknownProtocol as exc:
        raise CommandError(f"study '{header['id']}': {exc}") from None


def protocol_metrics(args, db, ctx: Context, header: dict, *, csv: bool = False):
    protocol = study_protocol(header)
    try:
        return protocol.metrics(db, args.study, analysis_options(args, db, ctx, csv=csv))
    except KeyError as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None


def concern_settings(definition: dict, db, model: str | None = None, api_base: str | None = None):
    """The model that assesses DQ-3 concerns (this command's and the Metrics section's): `model` / `api_base`
    (--model / --api-base), else the study's first judge, else the stored judge role's model."""
    from workbench.gateway import ModelSettings

    judges = definition.get("judges") or []
    if not model and judges:
        model, api_base = judges[0].get("model") or "mock", api_base or judges[0].get("api_base")
    elif not model:
        from workbench.gateway.settings import role_settings

        role = role_settings(db, "judge")
        model, api_base = role.model, api_base or role.api_base
    return ModelSettings(model=model, api_base=api_base or None, temperature=0.0, max_tokens=800)


# the options a protocol takes only when it names them in its `metrics_options` (--no-dq and
# --embedding-model are read by whoever needs them and ignored by the rest)
PROTOCOL_OPTIONS = ("compare", "assess_concerns", "record_concerns")


def handle(args, ctx: Context) -> int:
    if args.csv and ctx.json:
        raise CommandError("--csv and --json are two different outputs; pick one", code=USAGE)
    if args.rater and not args.record_concerns:
        raise CommandError("--rater goes with --record-concerns FILE", code=USAGE)
    db = ctx.db()
    header = require_study(db, args.study)
    protocol = study_protocol(header)
    used = [f"--{o.replace('_', '-')}" for o in PROTOCOL_OPTIONS
            if getattr(args, o) and o not in protocol.metrics_options]
    if used:
        raise CommandError(f"{', '.join(used)}: not an option of {protocol.name} studies (study "
                           f"'{args.study}')", code=USAGE)
    if args.record_concerns:
        return record_concerns(args, ctx, db, protocol)
    if args.assess_concerns:
        assess_concerns(args, ctx, db, header, protocol)
    if args.fidelity:
        doc = fidelity_document(db, args.study, protocol)
    else:
        from workbench.exports.metrics_files import finish_document

        doc = finish_document(db, args.study, protocol_metrics(args, db, ctx, header, csv=args.csv),
                              header["definition"])
    if args.csv:
        write_csv(args, ctx, doc)
        return OK
    if args.out and not ctx.json:
        from workbench.files import write_text

        write_text(args.out, doc.text)
        ctx.info(f"wrote the tables to {args.out}")
        return OK
    ctx.emit(doc.document, doc.text, study=args.study)
    for note in doc.notes:
        ctx.info(note)
    return OK


def fidelity_document(db, study_id: str, protocol):
    """The treatment fidelity table alone, in the three shapes `metrics` prints (workbench.fidelity)."""
    from workbench.fidelity.study import study_fidelity
    from workbench.fidelity.table import CSV_COLUMNS
    from workbench.protocol.base import MetricsDocument

    table = study_fidelity(db, study_id)
    if table is None:
        raise CommandError(f"--fidelity: protocol {protocol.name} names no defining step of its conditions "
                           f"(study '{study_id}')")
    return MetricsDocument({"treatment_fidelity": table.to_dict()}, table.text(), list(CSV_COLUMNS),
                           table.csv_rows())


def write_csv(args, ctx: Context, doc) -> None:
    """The protocol's long-format rows, to --out or stdout."""
    import csv

    from workbench.exports.metrics_files import csv_rows

    # every row names its study, whatever the protocol's own columns, so that files of several studies join
    columns, rows = csv_rows(args.study, doc)

    def write(fh) -> int:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return len(doc.csv_rows)

    if args.out:
        import io

        from workbench.files import write_text

        buffer = io.StringIO()
        n = write(buffer)
        write_text(args.out, buffer.getvalue())
        ctx.info(f"wrote {n} row(s) to {args.out}")
    else:
        with ctx.stdout() as out:
            write(out)
    for note in doc.notes:
        ctx.info(note)


def record_concerns(args, ctx: Context, db, protocol) -> int:
    if not args.rater:
        raise CommandError("--record-concerns needs --rater NAME", code=USAGE)
    try:
        n = protocol.analysis().record_concerns(db, args.study, args.rater, args.record_concerns)
    except ValueError as exc:  # the file's row and field that cannot be recorded
        raise CommandError(str(exc)) from None
    ctx.emit({"ok": True, "study": args.study, "rater": args.rater, "recorded": n},
             f"recorded {n} concern score(s) by {args.rater} for study {args.study}")
    return OK


def assess_concerns(args, ctx: Context, db, header: dict, protocol) -> None:
    from workbench.cli.signals import quiet_when_gone, run_interruptible
    from workbench.gateway import GatewayError

    assess_study_concerns = protocol.analysis().assess_concerns
    settings = concern_settings(header["definition"], db, args.model, args.api_base)
    ctx.info(f"assessing DQ-3 concern coverage with {settings.model} ...")
    try:
        summary = run_interruptible(  # a signal: in-flight calls recorded as cancelled, assessed runs kept
            lambda: assess_study_concerns(db, ctx.db_path, args.study, settings, redo=args.redo_concerns,
                                          progress=quiet_when_gone(ctx.info)),
            what=f"the concern assessment of study '{args.study}'",
            resume=f"workbench --batch metrics {args.study} --assess-concerns")
    except GatewayError as exc:
        raise CommandError(f"concern assessment stopped: {exc}", code=FAILED) from None
    ctx.info(f"concerns: {summary.text()}")
    for line in summary.errors[:20]:
        ctx.info(f"  {line}")
    if summary.runs_asked and not summary.runs_assessed:  # nothing parsed: DQ-3 cannot be computed
        raise CommandError(f"concern assessment: {summary.text()}; DQ-3 stays undefined (no reply could be "
                           f"read; check the model, or record concerns with --record-concerns)", code=FAILED)
