"""`workbench --batch power STUDY [--effect A:B[:METRIC]=D ...] [--sims N] [--json]`: the chance of
detecting each pre-registered comparison, computed on the statistics core (no model calls)."""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, USAGE, CommandError, Context
from workbench.cli.examples import examples
from workbench.simulation.power import DEFAULT_SIMS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("power", help="power of a study's pre-registered comparisons (no model calls)",
                       description="Simulate STUDY's design (its cases, replicates, raters and planted rater "
                                   "reliability) many times on the statistics core and report, per pre-registered "
                                   "comparison, the probability that its 95% CI excludes 0, and a table of power "
                                   "against the number of cases. STUDY is a stored study or a study file.",
                       **examples("workbench --batch power glenda-crock-sim", "workbench --batch power studies/glenda-crock-sim.toml --effect C2:B1:anticipation=0.5"))
    p.add_argument("study_id", metavar="STUDY")
    p.add_argument("--effect", action="append", default=[], metavar="A:B[:METRIC]=D",
                   help="the effect to detect, as Cohen's d in true-score SDs (repeatable)")
    p.add_argument("--sims", type=int, default=DEFAULT_SIMS, metavar="N",
                   help=f"simulations per cell (default {DEFAULT_SIMS}, as the report and the TUI)")
    p.set_defaults(handler=power)


def parse_effects(values: list[str]) -> dict[str, float]:
    out = {}
    for value in values:
        name, _, number = value.partition("=")
        try:
            out[name.strip().upper() if name.count(":") == 1 else _norm(name)] = float(number)
        except ValueError:
            raise CommandError(f"--effect {value!r}: expected A:B[:METRIC]=D, e.g. C2:B1:anticipation=0.8",
                               code=USAGE) from None
    return out


def _norm(name: str) -> str:
    a, b, metric = name.strip().split(":", 2)
    return f"{a.upper()}:{b.upper()}:{metric}"


def definition_of(ctx: Context, study: str) -> dict:
    from pathlib import Path

    if study.endswith(".toml") or Path(study).is_file():
        from workbench.studies.definition import StudyError, parse_study_text

        try:
            return parse_study_text(Path(study).read_text(encoding="utf-8"), study)
        except (OSError, StudyError) as exc:
            raise CommandError(str(exc)) from None
    from workbench.studies.lookup import StudyNotFound, load_study

    try:
        return load_study(ctx.db(), study)["definition"]
    except StudyNotFound as exc:
        raise CommandError(str(exc)) from None


def power(args, ctx: Context) -> int:
    # power_document: the Studies screen's power panel and the report's designed-power line call it too
    from workbench.simulation.power import power_document

    if args.sims < 100:
        raise CommandError("--sims must be at least 100", code=USAGE)
    definition = definition_of(ctx, args.study_id)
    try:
        doc = power_document(definition, parse_effects(args.effect), args.sims)
    except ValueError as exc:   # the protocol cannot take what was asked (faultline: a Cohen's d)
        raise CommandError(f"power {args.study_id}: {exc}", code=USAGE) from None
    # A design without a comparison between conditions (calibration's judge panel) is a valid study with
    # nothing to power: said, not failed.
    text = render(doc) if doc["comparisons"] else (
        f"power of {doc['study']}: the study pre-registers no comparison between conditions; "
        "name one with --effect A:B:METRIC=D")
    ctx.emit(doc, text, study=doc["study"] or args.study_id, protocol=definition.get("protocol") or "hindsight")
    return OK


def render(doc: dict) -> str:
    """The power document as text (the batch output; the Studies screen shows the same numbers)."""
    lines = [f"power of {doc.get('study') or 'the study'}: {doc['design_text']}, "
             f"{doc['sims']} simulations per cell", f"  method: {doc['method']}",
             f"  {doc['effect_name']}: {doc['effect_meaning']}"]
    grid = doc["case_grid"]
    width = max([34, *(len(r["comparison"]) for r in doc["comparisons"])])
    dz = any("implied_d" in r for r in doc["comparisons"])  # the generic design: the d Table 4 estimates
    lines.append(f"  {'comparison':<{width}} {doc['effect_name']:>5}" + (f" {'d(T4)':>5}" if dz else "")
                 + f" {'power':>6}   " + " ".join(f"n={n:<3}" for n in grid))
    for row in doc["comparisons"]:
        at_n = "-" if row["power"] is None else f"{row['power']:.2f}"
        curve = " ".join(f"{row['power_by_cases'][n]:<5.2f}" for n in grid)
        lines.append(f"  {row['comparison']:<{width}} {row['effect']:>5.2f}"
                     + (f" {row['implied_d']:>5.2f}" if dz else "") + f" {at_n:>6}   {curve}")
        lines.append(f"    {doc['effect_name']} from {row['source']}")
    lines.append(f"  n = number of {doc['unit']}")
    lines += [f"  {line}" for line in doc.get("not_simulated", []) + doc.get("notes", [])]
    return "\n".join(lines)
