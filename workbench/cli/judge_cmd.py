"""`workbench --batch judge STUDY` (LLM judges, blindness audit) and `pilots STUDY` (the calibration pilots)."""

from __future__ import annotations

import argparse

from workbench.cli.connection_options import add_connection_options
from workbench.cli.provider_batch_options import add_provider_batch_options, judge_endpoints, provider_batch_config
from workbench.cli.context import FAILED, OK, CommandError, Context, add_by, study_action


def register(sub: argparse._SubParsersAction) -> None:
    p = study_action(
        sub, "judge", judge, help="score a study's blind items with its LLM judges",
        description="Blind any new final outputs, then run every [[judges]] entry of STUDY over every blind "
                    "item and rubric: the two calibration pilots first (a judge whose pilot scores go the "
                    "wrong way is held unless --force), then the rest. Items already judged are skipped, so "
                    "an interrupted command resumes. A reply that never validates is stored as a judge "
                    "error (counted, excluded from metrics). Exit 1 if a call failed, a judge was held or "
                    "the cost ceiling stopped the command.",
        examples=("workbench --batch judge glenda-crock-mock", "workbench --batch judge glenda-crock-mock --retry-errors"))
    p.add_argument("--judge", action="append", default=[], metavar="NAME", help="only this judge (repeatable)")
    p.add_argument("--retry-errors", action="store_true",
                   help="judge again the items whose verdicts are all judge errors")
    p.add_argument("--force", action="store_true", help="judge the rest even when a judge's calibration failed")
    p.add_argument("--per-criterion", action="store_true", help="one call per criterion instead of per rubric")
    p.add_argument("--replay", action="store_true", help="no network: serve every call from the store")
    p.add_argument("--concurrency", type=int, metavar="N",
                   help="items judged at once (default: --max-connections, else the widest judge's max_connections "
                        "or the global concurrency)")
    add_connection_options(p)
    add_provider_batch_options(p)
    p.add_argument("--audit", action="store_true",
                   help="also run the blindness audit (an LLM guesses each item's architecture)")
    p.add_argument("--audit-only", action="store_true", help="run only the blindness audit")
    p.add_argument("--audit-model", metavar="MODEL", help="the audit's model (default: the first judge's)")
    p.add_argument("--audit-api-base", metavar="URL", help="the audit model's api_base")

    c = study_action(
        sub, "pilots", pilots, help="show the calibration pilots' result per rater and judge; release a held rater",
        description="Whether each rater's and judge's scores of the two calibration pilots went the expected "
                    "direction. A rater whose check failed is held; --release RATER lets them score the rest "
                    "(recorded with --by).",
        examples=("workbench --batch pilots glenda-crock-mock",
                  "workbench --batch pilots glenda-crock-mock --release rater-a --reason \"re-read the anchors\""))
    c.add_argument("--release", metavar="RATER", help="release this rater after a failed calibration")
    add_by(c, "who releases")
    c.add_argument("--reason", metavar="TEXT", help="why, for the record")


def judge(args, ctx: Context) -> int:
    from workbench.blinding.context import BlindingError, load_study
    from workbench.cli.signals import quiet_when_gone, run_interruptible
    from workbench.gateway import build_gateway
    from workbench.gateway.api import GatewayError, ModelSettings
    from workbench.judges.run import JudgingError, judge_study, refuse_judges_that_are_runs
    from workbench.judges.summary import NoticeLines, judging_outcome, judging_text, keep_log_head

    db = ctx.db()
    batches = None
    if args.provider_batch:
        try:
            batches = provider_batch_config(args, judge_endpoints(load_study(db, args.study_id).definition))
        except BlindingError as exc:
            raise CommandError(str(exc)) from None
    gateway = build_gateway(db, ctx.db_path, replay_only=args.replay, max_connections=args.max_connections,
                            stream=args.stream, provider_batch=batches)
    # items at once: as many as the connections asked for (a fixed 4 was a hidden cap under --max-connections);
    # none asked, judge_study takes the widest judge's own max_connections, else the global concurrency
    asked = args.concurrency or args.max_connections
    concurrency = asked if batches is None else 1_000_000  # a round is every item at once
    width = asked or gateway.config.concurrency
    doc: dict = {"study": args.study_id}
    ok = True
    say = quiet_when_gone(ctx.info)
    # a signal cancels the calls in flight (recorded as cancelled); what was judged stays: a re-run resumes
    again = f"workbench --batch judge {args.study_id} (the same options; what was judged is kept)"
    try:
        study = load_study(db, args.study_id)
        refuse_judges_that_are_runs(args.study_id, study.definition, CommandError)  # the audit included
        _refuse_mixing(db, study, args)
        if not args.audit_only:
            report = run_interruptible(
                lambda: judge_study(db, gateway, args.study_id, judges=args.judge or None,
                                    retry_errors=args.retry_errors, force=args.force,
                                    per_criterion=args.per_criterion, concurrency=concurrency, progress=say),
                what=f"judging of study '{args.study_id}'", resume=again)
            doc.update(report.to_dict())
            ok = report.ok
        if args.audit or args.audit_only:
            from workbench.judges.audit import audit_study

            first = study.judges[0] if study.judges else {}
            model = args.audit_model or first.get("model")
            if not model:
                raise CommandError("the blindness audit needs a model: pass --audit-model or name a judge")
            api_base = args.audit_api_base if args.audit_model else (args.audit_api_base or first.get("api_base"))
            settings = ModelSettings(model=model, api_base=api_base or None, temperature=0.0)
            audit = run_interruptible(
                lambda: audit_study(db, gateway, args.study_id, settings, concurrency=width,
                                    progress=say, sink=NoticeLines(say)),
                what=f"the blindness audit of study '{args.study_id}'", resume=again)
            doc["audit"] = audit.to_dict()
            ok = ok and not audit.failed_calls
    except (BlindingError, JudgingError) as exc:
        raise CommandError(str(exc)) from None
    except GatewayError as exc:
        raise CommandError(f"judging stopped: {exc}") from None
    finally:
        keep_log_head(db, args.study_id)
    doc["ok"] = ok
    doc["outcome"] = judging_outcome(ok, sum(j["study_judge_errors"] for j in doc.get("judges", [])))
    ctx.emit(doc, lambda: judging_text(doc), study=args.study_id)
    return OK if ok else FAILED


def _refuse_mixing(db, study, args) -> None:
    """Sim and real data never share a study (issue 16): before any call, neither the judges nor an
    --audit-model may bring the other kind of model into the study's log."""
    from workbench.simmodel.refusal import refuse_mixing

    using = [j.get("model") or "" for j in study.judges]
    if args.audit or args.audit_only:
        using.append(args.audit_model or "")
    refuse_mixing(db, args.study_id, study.definition, CommandError, using=[m for m in using if m])


def pilots(args, ctx: Context) -> int:
    from workbench.blinding.context import BlindingError, load_study
    from workbench.pilots.calibration import release_rater
    from workbench.scoring.actor import acting_user
    from workbench.scoring.calibration import calibration_text, study_calibration

    db = ctx.db()
    try:
        study = load_study(db, args.study_id)
        if args.release:
            if args.release not in study.rater_names:
                raise CommandError(f"'{args.release}' is not a rater of study '{args.study_id}'")
            release_rater(db, args.study_id, args.release, by=acting_user(args.by), reason=args.reason)
        result = study_calibration(db, study)
    except BlindingError as exc:
        raise CommandError(str(exc)) from None
    doc = {"study": args.study_id, **result}
    ctx.emit(doc, lambda: calibration_text(result), study=args.study_id)
    return OK
