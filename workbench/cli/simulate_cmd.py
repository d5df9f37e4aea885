"""`workbench --batch simulate raters STUDY [--rater NAME ...]` and `simulate recovery`: the simulated
parts of a study on the offline `sim` model (workbench/simulation)."""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, USAGE, CommandError, Context, command_group, study_action
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    what = command_group(sub, "simulate", help="simulated raters and planted-effect recovery (sim studies)",
                         description="Simulated parts of a study on the offline `sim` model.", dest="what",
                         metavar="WHAT")
    r = study_action(what, "raters", raters,
                     help="every rater of a sim study scores their assignment (through packets)",
                     description="Each rater of STUDY (or each --rater) exports their packet, scores it from "
                                 "the planted truth with their planted bias and noise, and imports it: the "
                                 "same path as a person's packet. Only for a study on `sim`.",
                     examples=("workbench --batch simulate raters glenda-crock-sim",
                               "workbench --batch simulate raters glenda-crock-sim --rater rater-a"))
    r.add_argument("--rater", action="append", default=[], metavar="NAME", help="only this rater (repeatable)")
    v = what.add_parser("recovery", help="does the metric core recover a planted effect? (no model calls)",
                        description="Simulate a design many times and estimate each with the metric core's "
                                    "paired d_z: coverage of the implied d_z by the 95% CI, and detection rate.",
                        **examples("workbench --batch simulate recovery", "workbench --batch simulate recovery --d 0.5 --cases 30 --sims 200"))
    v.add_argument("--d", type=float, default=1.0, help="planted effect, true-score SDs (default 1.0)")
    v.add_argument("--cases", type=int, default=20)
    v.add_argument("--replicates", type=int, default=1)
    v.add_argument("--raters", type=int, default=2)
    v.add_argument("--icc", type=float, default=0.7)
    v.add_argument("--case-correlation", type=float, default=0.5)
    v.add_argument("--sims", type=int, default=500)
    v.add_argument("--seed", type=int, default=0)
    v.set_defaults(handler=recovery)


def raters(args, ctx: Context) -> int:
    from workbench.cli.signals import interruptible, quiet_when_gone
    from workbench.scoring.packets import PacketError
    from workbench.simulation.raters import NotSimulated, fill_raters
    from workbench.studies.lookup import StudyNotFound, load_study

    db, say = ctx.db(), quiet_when_gone(ctx.info)
    try:
        names = args.rater or load_study(db, args.study_id)["definition"].get("raters") or [None]
    except StudyNotFound as exc:
        raise CommandError(str(exc)) from None
    fills = []
    try:
        with interruptible(f"the simulated raters of '{args.study_id}'",
                           f"workbench --batch simulate raters {args.study_id} (the raters done are kept)",
                           "the packet being imported was rolled back, the raters done before are kept"):
            for number, rater in enumerate(names, 1):  # one rater at a time: progress, and a clean stop
                if rater is not None:
                    say(f"simulate raters: {rater} ({number}/{len(names)}) …")
                fills += fill_raters(db, args.study_id, [rater] if rater is not None else None)
    except (NotSimulated, PacketError) as exc:
        raise CommandError(str(exc)) from None
    lines = [f"SIMULATED raters of {args.study_id}:"]
    for f in fills:
        lines.append(f"  {f.rater}: {f.scores} score(s) from {f.packets} packet(s)"
                     + (f"; {f.held}" if f.held else ""))
    ctx.emit({"ok": True, "simulated": True, "study": args.study_id, "raters": [f.to_dict() for f in fills]},
             "\n".join(lines))
    return OK


def recovery(args, ctx: Context) -> int:
    from workbench.simulation.power import Design, recovery as run

    if args.cases < 2 or args.sims < 10 or not 0 < args.icc <= 1 or not 0 <= args.case_correlation < 1:
        raise CommandError("need --cases >= 2, --sims >= 10, 0 < --icc <= 1, 0 <= --case-correlation < 1",
                           code=USAGE)
    design = Design(args.cases, args.replicates, args.raters, args.icc, args.case_correlation)
    r = run(design, args.d, args.sims, args.seed)
    text = (f"planted d = {r.planted_d:g} (Table 4's Cohen's d over cases: {r.implied_d:.3f}) over {r.sims} "
            f"simulations: mean estimate {r.mean_estimate:.3f}, 95% bootstrap CI coverage {r.coverage:.3f}, "
            f"detected {r.detected:.3f} (the power table's t test agrees in {r.agrees_with_t:.3f})")
    ctx.emit({"simulated": True, **r.to_dict()}, text)
    return OK
