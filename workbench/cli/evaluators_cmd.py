"""`workbench --batch evaluators qc|override|review|audit STUDY ...`: evaluator quality control (issue 32)."""

from __future__ import annotations

import argparse

from workbench.cli.context import (OK, CommandError, Context, add_by, add_model_choice, command_group, refusals,
                                   study_action)


def register(sub: argparse._SubParsersAction) -> None:
    psub = command_group(sub, "evaluators", dest="evaluators_command",
                         help="evaluator quality: gold, attention, time, exclusions, verdict review",
                         description="Quality control of a study's raters and judges, computed without "
                                     "unblinding: gold accuracy, attention checks, time per item, straight-lining, "
                                     "agreement with the others, drift; the study's pre-registered exclusion "
                                     "rules; a blind review of a judge's verdicts.")
    q = study_action(psub, "qc", qc, help="every evaluator's quality and exclusion decision",
                     description="Every evaluator's quality figures and whether the study's pre-registered "
                                 "rules exclude them. --apply records the decisions now (the unblinding "
                                 "records them too); refused once the study is unblinded.",
                     examples=("workbench --batch evaluators qc glenda-crock-sim",
                               "workbench --batch --json evaluators qc glenda-crock-sim --apply --by ana"))
    q.add_argument("--apply", action="store_true", help="record the rules' decisions now (before unblinding)")
    add_by(q, "who records them")
    o = study_action(psub, "override", override, help="keep or exclude an evaluator against the rules, with a reason",
                     description="Record a researcher's decision about one evaluator against (or beside) the "
                                 "pre-registered rules. The report prints it as a deviation.",
                     examples=("workbench --batch evaluators override glenda-crock-sim rater-c --include "
                               "--reason \"the timer was broken on their desk\"",))
    o.add_argument("evaluator", metavar="EVALUATOR")
    side = o.add_mutually_exclusive_group(required=True)
    side.add_argument("--include", action="store_true", help="keep the evaluator in the tables")
    side.add_argument("--exclude", action="store_true", help="leave the evaluator out of the tables")
    o.add_argument("--reason", required=True, metavar="TEXT", help="why (printed in the report)")
    add_by(o, "who decides")
    a = study_action(psub, "audit", audit,
                     help="can a model tell the gold items from the study's own? (blindness audit)",
                     description="Show each real and gold item alone to a model, told that a few are the "
                                 "researcher's check items, and ask which this one is; Fisher's exact test of "
                                 "whether gold items are called checks more often than real ones.",
                     examples=("workbench --batch evaluators audit glenda-crock-sim",
                               "workbench --batch evaluators audit my-study --model openai/gpt-4o-mini"))
    add_model_choice(a, model="the auditor (default: the study's first judge's model)",
                     api_base="the auditor's api_base")
    r = study_action(psub, "review", review, help="a blind review of a judge's verdicts",
                     description="Without --verdict: list the judge's review sample (item, rubric criterion, "
                                 "verdict, quote, reasoning; never the condition) with any marks so far. With "
                                 "--verdict ID: mark that verdict --right, or --correct SCORE with --reason. "
                                 "Marks are appended; the verdict itself is never changed.",
                     examples=("workbench --batch evaluators review glenda-crock-sim --judge judge-a --sample 10",
                               "workbench --batch evaluators review glenda-crock-sim --judge judge-a --verdict 17 "
                               "--correct 1 --reason \"the quote names no compliance trap\" --by ana"))
    r.add_argument("--judge", required=True, metavar="NAME")
    r.add_argument("--sample", type=int, metavar="N",
                   help="how many verdicts to list (default: the study's [quality] review_sample, else 20)")
    r.add_argument("--verdict", type=int, metavar="ID", help="the verdict to mark")
    how = r.add_mutually_exclusive_group()
    how.add_argument("--right", action="store_true", help="the verdict is right")
    how.add_argument("--correct", type=int, metavar="SCORE", help="the score it should have been")
    r.add_argument("--reason", metavar="TEXT", help="why (required with --correct)")
    add_by(r, "who reviews")


def _study_quality(ctx: Context, study_id: str):
    from workbench.evaluators.study import study_quality

    with refusals(KeyError):
        return study_quality(ctx.db(), study_id)


def qc(args, ctx: Context) -> int:
    from workbench.evaluators.exclusions import ExclusionError, apply_rules
    from workbench.evaluators.report import quality_text
    from workbench.scoring.actor import acting_user

    sq = _study_quality(ctx, args.study_id)
    if args.apply:
        with refusals(ExclusionError):
            apply_rules(ctx.db(), args.study_id, by=acting_user(args.by))
        sq = _study_quality(ctx, args.study_id)
    ctx.emit({"ok": True, **sq.to_dict()}, quality_text(sq), study=args.study_id)
    return OK


def override(args, ctx: Context) -> int:
    from workbench.evaluators.exclusions import ExclusionError, override as do_override
    from workbench.scoring.actor import acting_user

    _study_quality(ctx, args.study_id)
    with refusals(ExclusionError):
        row = do_override(ctx.db(), args.study_id, args.evaluator, exclude=args.exclude, reason=args.reason,
                          by=acting_user(args.by))
    word = "excluded from" if row["excluded"] else "kept in"
    ctx.emit({"ok": True, **{k: v for k, v in row.items() if k != "quality"}},
             f"{args.evaluator} {word} the tables of {args.study_id} by {row['by']} (an override, printed in the "
             f"report as a deviation): {row['reason']}", study=args.study_id)
    return OK


def review(args, ctx: Context) -> int:
    from workbench.blinding.context import BlindingError, load_study
    from workbench.evaluators.review import ReviewError, agreement, mark, review_text, sample
    from workbench.evaluators.settings import review_size
    from workbench.scoring.actor import acting_user

    with refusals(ReviewError, BlindingError):
        study = load_study(ctx.db(), args.study_id)
        if args.verdict is None:
            if args.right or args.correct is not None:
                raise CommandError("name the verdict to mark with --verdict ID", code=2)
            size = review_size(study.definition) if args.sample is None else max(1, args.sample)
            units = sample(ctx.db(), study, args.judge, size)
            agreed = agreement(ctx.db(), args.study_id, args.judge)
            ctx.emit({"ok": True, "study": args.study_id, "judge": args.judge, "sample": [u.to_dict() for u in units],
                      "agreement": agreed.to_dict()}, lambda: review_text(units, agreed), study=args.study_id)
            return OK
        if not args.right and args.correct is None:
            raise CommandError("say --right or --correct SCORE for the verdict", code=2)
        row = mark(ctx.db(), study, args.verdict, right=args.right, corrected=args.correct, reason=args.reason,
                   by=acting_user(args.by))
    said = "right" if row["mark"] == "right" else f"corrected {row['original']:g} -> {row['corrected']:g}"
    ctx.emit({"ok": True, **row}, f"verdict {row['verdict_id']} of {row['judge']} marked {said} by {row['by']} "
                                  "(the verdict itself is kept as it was)", study=args.study_id)
    return OK


def audit(args, ctx: Context) -> int:
    import asyncio

    from workbench.blinding.context import BlindingError, load_study
    from workbench.gateway import build_gateway
    from workbench.gateway.api import ModelSettings
    from workbench.judges.planted_audit import audit_planted

    db = ctx.db()
    with refusals(BlindingError):
        study = load_study(db, args.study_id)
    first = (study.judges or [{}])[0]
    model = args.model or first.get("model")
    if not model:
        raise CommandError("the planted-item audit needs a model: pass --model or name a judge")
    api_base = args.api_base if args.model else (args.api_base or first.get("api_base"))
    settings = ModelSettings(model=model, api_base=api_base or None, temperature=0.0)
    report = asyncio.run(audit_planted(db, build_gateway(db, ctx.db_path), args.study_id, settings,
                                       progress=ctx.info))
    ctx.emit({"ok": not report.failed_calls, **report.to_dict()}, report.text(), study=args.study_id)
    return OK if not report.failed_calls else 1
