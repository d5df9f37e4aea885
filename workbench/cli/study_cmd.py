"""`workbench --batch study create STUDY_FILE | show STUDY | freeze STUDY | list`."""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context, command_group, study_action
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    ssub = command_group(sub, "study", help="create, show, freeze and list studies", dest="study_command",
                         description="A study is defined by a TOML study file (see studies/README.md).")
    c = ssub.add_parser("create", help="validate a study file and store the study",
                        description="Validate STUDY_FILE (every key, the cases it names must be ready, the "
                                    "rubrics must exist) and store it. Re-creating a study that is not frozen "
                                    "replaces it; a frozen study cannot change.",
                        **examples("workbench --batch study create studies/glenda-crock-mock.toml"))
    c.add_argument("path", metavar="STUDY_FILE")
    c.set_defaults(handler=create)
    study_action(ssub, "show", show, help="a study's definition, freeze hash, runs by status and totals",
                 description="A study's definition, freeze hash, runs by status and totals: the "
                             "counts the Studies screen and the report show.",
                 examples=("workbench --batch study show glenda-crock-mock",
                           "workbench --batch --json study show glenda-crock-mock"))
    study_action(ssub, "freeze", freeze, help="freeze a study now (a run freezes it anyway), or check its freeze",
                 description="Hash the definition, case texts, rubric texts and prompt templates and "
                             "record them. On a frozen study, check that none of them changed.",
                 examples=("workbench --batch study freeze glenda-crock-mock",))
    ls = ssub.add_parser("list", help="the studies in the store",
                         description="Every study in the store, one a line.",
                         **examples("workbench --batch study list", "workbench --batch --json study list"))
    ls.set_defaults(handler=list_)


def create(args, ctx: Context) -> int:
    from workbench.runs.dry_run import largest_prompts
    from workbench.studies import StudyError, create_study

    try:
        result = create_study(ctx.db(), args.path, measure=largest_prompts)
    except StudyError as exc:
        for p in exc.problems:
            ctx.info(str(p))
        raise CommandError(f"study not created: {len(exc.problems)} problem(s) in {args.path}",
                           details=[p.to_dict() for p in exc.problems]) from None
    from workbench.protocol.registry import protocol_of

    d = result["definition"]
    items = result.get("items") or {}
    for problem in items.get("problems", []):
        ctx.info(problem)
    for line in result.get("budget", []):
        ctx.info(line)
    for warning in result.get("warnings", []):
        ctx.info(f"warning: {warning}")
    loaded = (f"; items: {items.get('to_run', 0)} to run of {items['added']} loaded"
              + (f", {items['excluded']} excluded" if items["excluded"] else "")
              if items.get("added") or items.get("excluded") else "")
    ctx.emit({"ok": True, "study_id": result["study_id"], "action": result["action"], "definition": d,
              "items": items},
             f"study {result['study_id']} {result['action']}: {protocol_of(d).summary_line(d)}{loaded}; "
             f"run it with `workbench --batch run {result['study_id']}`", study=result["study_id"], protocol=d.get("protocol"))
    return OK


def show(args, ctx: Context) -> int:
    from workbench.studies import StudyNotFound, study_summary, summary_text

    from workbench.fidelity.study import study_fidelity

    try:
        summary = study_summary(ctx.db(), args.study_id, cue_audit=True)
    except StudyNotFound as exc:
        raise CommandError(str(exc)) from None
    fidelity = study_fidelity(ctx.db(), args.study_id)  # runs whose condition's defining step did not happen
    if fidelity is not None:
        summary["treatment_fidelity"], summary["treatment"] = fidelity.to_dict(), fidelity.short()
    ctx.emit(summary, lambda: summary_text(summary) + (f"\ntreatment   {fidelity.short()}" if fidelity else ""),
             study=args.study_id)
    return OK


def freeze(args, ctx: Context) -> int:
    from workbench.studies import FrozenStudyChanged, StudyError, StudyNotFound, freeze_study

    try:
        result = freeze_study(ctx.db(), args.study_id)
    except (StudyNotFound, FrozenStudyChanged) as exc:
        raise CommandError(str(exc)) from None
    except StudyError as exc:
        raise CommandError(f"study '{args.study_id}' cannot be frozen: {exc}") from None
    for line in result.get("lineage", []):   # earlier studies on the same data, and what makes this exploratory
        ctx.info(f"lineage: {line}")
    verb = "was already frozen and is unchanged" if result["already_frozen"] else "frozen"
    ctx.emit({"ok": True, **result},
             f"study {args.study_id} {verb}: hash {result['freeze_hash']} at {result['frozen_at']} "
             f"({result['artefacts']} artefacts)", study=args.study_id)
    return OK


def list_(args, ctx: Context) -> int:
    from workbench.studies.lookup import list_studies, run_status_counts

    db = ctx.db()
    rows = [{"id": s["id"], "protocol": s["protocol"], "status": s["status"], "status_text": s["status_text"],
             "frozen_at": s["frozen_at"], "unblinded_at": s.get("unblinded_at"),
             "runs": run_status_counts(db, s["id"])} for s in list_studies(db)]

    def human() -> str:
        if not rows:
            return "no studies"
        return "\n".join(f"{r['id']}  {r['protocol']}  {r['status_text']}  "
                         + ", ".join(f"{k} {v}" for k, v in r["runs"].items() if v) for r in rows)

    ctx.emit({"studies": rows}, human)
    return OK
