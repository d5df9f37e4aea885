"""`workbench --batch calibration …`: import interactions, generate a planted file, export the study's files.

    calibration import STUDY FILE          CSV or JSONL; each bad record printed as file:line: column: reason
    calibration generate --out FILE        the documented generator (seed 004's latent-probability grid)
    calibration export STUDY --out DIR     <DIR>/<ts>_calibration_fidelity/ and <DIR>/<ts>_calibration_judge/

`import` exits 1 when it loaded nothing (an empty or unreadable file, a missing
column, a format other than CSV or JSONL), when any record was bad (the good ones
are loaded all the same), or when the import was refused (unknown or frozen study).
"""

from __future__ import annotations

import argparse

from workbench.cli.context import FAILED, OK, CommandError, Context, protocol_study, study_action
from workbench.cli.examples import examples


NAME = "calibration"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(NAME, help="calibration studies (seed 004): import, generate, export",
                       description="Seed 004's own steps: bring interactions into a calibration study, draw a "
                                   "synthetic file with a known answer, write the fidelity and joined CSV exports.")
    inner = p.add_subparsers(dest="calibration_command", metavar="ACTION", required=True)
    imp = study_action(inner, "import", handle_import, dest="study",
                       help="import interactions (CSV or JSONL) into a calibration study",
                       description="Add the interactions of FILE (CSV or JSONL) to STUDY's items. A record "
                                   "that fails validation is excluded and reported as file:line: field: reason; "
                                   "an id already imported is skipped, so importing again is safe.",
                       examples=("workbench --batch calibration import calibration-small "
                                 "cases/calibration/example-interactions.jsonl",))
    imp.add_argument("file", metavar="FILE")
    gen = inner.add_parser("generate", help="write interactions drawn from a latent-probability grid",
                           description="Write a synthetic interactions file with planted calibration (Arm A, checking "
                                       "the method): --per-bin interactions at each latent probability q of --grid, "
                                       "each one's truth +1 with probability q, its proxy score logit(q) / --k-true. "
                                       "One --seed, one file.",
                           **examples("workbench --batch calibration generate --out interactions.jsonl",
                                      "workbench --batch calibration generate --out small.csv --per-bin 50 --k-true 2"))
    gen.add_argument("--out", required=True, metavar="FILE", help=".jsonl or .csv")
    gen.add_argument("--per-bin", type=int, default=500, metavar="N", help="interactions per grid value (500)")
    gen.add_argument("--seed", type=int, default=2026)
    gen.add_argument("--k-true", type=float, default=1.0, metavar="K", help="v_hat = logit(q) / K (1.0)")
    gen.add_argument("--grid", default="0.05,0.2,0.4,0.6,0.8,0.95", help="comma-separated latent probabilities")
    gen.set_defaults(handler=handle_generate)
    exp = study_action(inner, "export", handle_export, dest="study",
                       help="write the fidelity folder, judge_scores.csv and the joined CSV",
                       description="Write two folders into DIR, named by the time of writing: the fidelity folder "
                                   "(Arm A: reliability bins, the k sweep) and the judge folder (judge_scores.csv "
                                   "and the joined CSV), each written whole.",
                       examples=("workbench --batch calibration export calibration-small --out exports/",))
    exp.add_argument("--out", required=True, metavar="DIR")


class _Progress:
    """Batch progress: a line at every tenth of the file (stderr, so --json keeps stdout clean)."""

    def __init__(self, ctx: Context, what: str = "import", verb: str = "read"):
        from workbench.cli.signals import quiet_when_gone

        self.say, self.shown, self.what, self.verb = quiet_when_gone(ctx.info), -1, what, verb

    def __call__(self, done: int, total: int) -> None:
        step = int(10 * done / total) if total else 10
        if step > self.shown:
            self.shown = step
            self.say(f"{self.what}: {done}/{total} records {self.verb}")


def handle_import(args, ctx: Context) -> int:
    import time

    from workbench.protocols.calibration.importer import ImportRefused, import_file, record_import

    db = ctx.db()
    protocol_study(db, args.study, "calibration")
    started = time.monotonic()
    from workbench.cli.signals import interruptible

    try:
        with interruptible(f"the import of {args.file} into '{args.study}'",
                           f"workbench --batch calibration import {args.study} {args.file} (an id already "
                           "imported is skipped)", "the records being stored were rolled back, those stored "
                           "before are kept"):
            summary = import_file(db, args.study, args.file, progress=_Progress(ctx))
    except ImportRefused as exc:
        raise CommandError(str(exc)) from None
    record_import(db, args.study, summary)
    elapsed = time.monotonic() - started
    doc = {"ok": summary.ok, **summary.to_dict(), "elapsed": round(elapsed, 3)}

    def human() -> str:
        lines = [str(p) for p in summary.problems]
        if summary.problems_total > len(summary.problems):
            lines.append(f"… and {summary.problems_total - len(summary.problems)} more problem(s)")
        lines.append(f"{args.file}: {summary.records} record(s) read, {summary.added} added, "
                     f"{summary.already_present} already present, {summary.bad} bad, "
                     f"{summary.conflicting} conflicting ({elapsed:.1f} s)")
        return "\n".join(lines)

    ctx.emit(doc, human)
    return OK if doc["ok"] else FAILED


def handle_generate(args, ctx: Context) -> int:
    from workbench.protocols.calibration.generator import generate, write

    try:
        grid = [float(x) for x in args.grid.split(",") if x.strip()]
    except ValueError:
        raise CommandError(f"--grid {args.grid!r}: must be comma-separated numbers", code=2) from None
    if not grid or any(not 0 < q < 1 for q in grid) or args.per_bin < 1 or args.k_true <= 0:
        raise CommandError("--grid values must lie strictly between 0 and 1, --per-bin ≥ 1, --k-true > 0", code=2)
    if not args.out.lower().endswith((".jsonl", ".csv")):
        raise CommandError("--out must end in .jsonl or .csv", code=2)
    from workbench.cli.signals import interruptible

    total, progress = len(grid) * args.per_bin, _Progress(ctx, "generate", "drawn")

    def counted(records):
        for done, record in enumerate(records, 1):
            if done % 1000 == 0 or done == total:
                progress(done, total)
            yield record

    with interruptible(f"generating {args.out}", f"workbench --batch calibration generate --out {args.out} "
                       "(the same options)", f"{args.out} was not written (it is written whole)"):
        n = write(args.out, counted(generate(p_grid=grid, per_bin=args.per_bin, seed=args.seed,
                                             k_true=args.k_true)))
    ctx.emit({"ok": True, "file": args.out, "records": n}, f"{args.out}: {n} interactions written")
    return OK


def export_entries() -> list:
    """`calibration export` in the TUI's export list: the fidelity folder, judge_scores.csv and the joined CSV."""
    from pathlib import Path

    from workbench.exports.catalog import Export, ExportDone
    from workbench.protocols.calibration.exports import export_all

    def write(db, study_id: str, out, *, replace: bool = False) -> ExportDone:  # new folders: nothing replaced
        done = export_all(db, study_id, out)
        return ExportDone([Path(done["fidelity"]), Path(done["judge"])],
                          f"wrote {done['fidelity']} and {done['judge']}: {done['document']['outcome']['summary']}",
                          {"fidelity": done["fidelity"], "judge": done["judge"]})

    return [Export("calibration", "Calibration folders", "the fidelity folder, judge_scores.csv and the joined "
                   "CSV, as `calibration export`", write)]


def handle_export(args, ctx: Context) -> int:
    from workbench.protocols.calibration.exports import export_all
    from workbench.protocols.calibration.results import NotPreregistered

    db = ctx.db()
    protocol_study(db, args.study, "calibration")
    try:
        out = export_all(db, args.study, args.out)
    except NotPreregistered as exc:
        raise CommandError(str(exc)) from None
    doc = {"ok": True, "fidelity": out["fidelity"], "judge": out["judge"],
           "outcome": out["document"]["outcome"]["holds"]}
    ctx.emit(doc, lambda: (f"{out['fidelity']}\n{out['judge']}\n{out['document']['outcome']['summary']}"))
    return OK


