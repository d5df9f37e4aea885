"""`workbench --batch report STUDY --out FILE.md`: the study's markdown report.

Tables 1-4 (or the condition-free overall table while the study is blinded),
agreement against the pre-registered targets, judge errors, blindness audit,
decision quality, calibration of judge scores, contamination probes, the
study's settings and its freeze hash. The same tables as `metrics STUDY`.
"""

from __future__ import annotations

import argparse

from workbench.cli.context import OK, CommandError, Context
from workbench.cli.examples import examples
from workbench.cli.metrics_cmd import add_analysis_options, analysis_options, require_study, study_protocol


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write the study's markdown report",
                       description="Write STUDY's markdown report: settings, Tables 1-4 (headings only "
                                   "while blinded), agreement, decision quality and every deviation; "
                                   "written whole or not at all.",
                       **examples("workbench --batch report glenda-crock-mock --out report.md"))
    p.add_argument("study", metavar="STUDY")
    p.add_argument("--out", metavar="FILE", required=True, help="the markdown file to write")
    add_analysis_options(p)
    p.set_defaults(handler=handle)


def handle(args, ctx: Context) -> int:
    from workbench.reports import write_atomically

    db = ctx.db()
    header = require_study(db, args.study)
    protocol = study_protocol(header)
    try:
        text = protocol.report(db, args.study, analysis_options(args, db, ctx))
    except KeyError as exc:
        raise CommandError(str(exc.args[0] if exc.args else exc)) from None
    text = text.rstrip("\n") + "\n\n" + counts_section(db, args.study) + "\n" + call_log_section(db, args.study)
    try:
        path = write_atomically(text, args.out)
    except OSError as exc:
        from store import DiskFull, is_disk_full

        if is_disk_full(exc):  # the old report, if any, is untouched: the write was atomic
            raise DiskFull("the report", args.out) from exc
        raise CommandError(f"cannot write {args.out}: {exc}") from None
    blinded = not header["unblinded_at"]
    ctx.emit({"ok": True, "study": args.study, "protocol": protocol.name, "out": str(path),
              "blinded": blinded, "forced_unblinding": header["unblind_forced"],
              "freeze_hash": header["freeze_hash"]},
             f"wrote the report of {args.study} to {path}" + (" (blinded: conditions hidden)" if blinded and protocol.name == "hindsight" else ""))
    return OK


def counts_section(db, study_id: str) -> str:
    """The study's counts as `run` and `study show` print them (one definition: workbench.studies.counts)."""
    from workbench.studies.counts import study_counts

    lines = study_counts(db, study_id).text().splitlines()
    return "## Runs and calls\n\n" + "".join(f"- {line}\n" for line in lines)


def call_log_section(db, study_id: str) -> str:
    """The call log's head as the store recorded it, kept in the store too: a published report pins its
    log, and `log verify` refuses a log that no longer holds this head."""
    from workbench.gateway.calllog import log_name
    from workbench.gateway.logcheck import record_head

    lines, head = record_head(db, study_id, "report")
    if not lines:
        return "## Call log\n\nNo model call has been logged for this study.\n"
    return (f"## Call log\n\nThe study's calls are in the hash-chained log `{log_name(study_id)}` beside the "
            f"store: {lines} lines, head hash `{head}`. `workbench --batch log verify {study_id}` checks that "
            "the log still holds every recorded call and this head.\n")
