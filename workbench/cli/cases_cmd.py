"""`workbench --batch cases validate|import|list|show`."""

from __future__ import annotations

import argparse

from workbench.cli.context import FAILED, OK, CommandError, Context, command_group
from workbench.cli.examples import examples


def register(sub: argparse._SubParsersAction) -> None:
    csub = command_group(sub, "cases", help="validate, import, list and show case files", dest="cases_command")
    v = csub.add_parser("validate", help="check case files without touching the store",
                        description="Parse and check case files and print every problem as file:line: reason. "
                                    "Nothing is written to the store.",
                        **examples("workbench --batch cases validate", "workbench --batch cases validate my-new-case.md"))
    v.add_argument("paths", nargs="*", metavar="PATH", help="case files or directories (default: the shipped cases/)")
    v.set_defaults(handler=validate)
    i = csub.add_parser("import", help="validate, then store all of them or none",
                        description="Validate the case files, then store every one of them or none: one bad "
                                    "file stores nothing and is named with its line.",
                        **examples("workbench --batch cases import", "workbench --batch --db my.db cases import cases/glenda-crock.md"))
    i.add_argument("paths", nargs="*", metavar="PATH", help="case files or directories (default: the shipped cases/)")
    i.set_defaults(handler=import_)
    ls = csub.add_parser("list", help="the cases in the store",
                         description="The cases in the store, one a line, with their status and probe verdict. "
                                     "Filters combine.",
                         **examples("workbench --batch cases list --status ready", "workbench --batch --json cases list --strategy B"))
    ls.add_argument("--status", help="only cases with this status (draft, ready, excluded)")
    ls.add_argument("--type", help="only historical or constructed cases")
    ls.add_argument("--domain", help="only cases of this domain")
    ls.add_argument("--strategy", help="only cases using this contamination strategy (A, B, C)")
    ls.set_defaults(handler=list_)
    sh = csub.add_parser("show", help="one case, whole",
                         description="One case as stored: scenario, outcome record, checklist and probes.",
                         **examples("workbench --batch cases show glenda-crock"))
    sh.add_argument("case_id", metavar="CASE_ID")
    sh.set_defaults(handler=show)


def _paths(args) -> list[str] | None:
    return list(args.paths) or None


def validate(args, ctx: Context) -> int:
    from workbench.cases.library import validate as validate_files

    cases, problems = validate_files(_paths(args))
    errors = [p for p in problems if p.severity == "error"]
    ctx.emit(
        {"ok": not errors, "cases": [{"id": c.id, "file": str(p)} for p, c in cases],
         "problems": [p.to_dict() for p in problems]},
        lambda: _problems_text(problems, f"{len(cases)} case file(s) valid"),
    )
    if not ctx.json:
        for p in problems:
            if p.severity == "error":
                ctx.info(str(p))
    return FAILED if errors else OK


def import_(args, ctx: Context) -> int:
    from workbench.cases import CaseError
    from workbench.cases.library import import_cases

    db = ctx.db()
    try:
        cases = import_cases(db, _paths(args))
    except CaseError as exc:
        ctx.emit({"ok": False, "imported": [], "problems": [p.to_dict() for p in exc.problems]})
        for p in exc.problems:
            ctx.info(str(p))
        raise CommandError(f"nothing imported: {len(exc.problems)} problem(s)") from None
    ctx.emit({"ok": True, "imported": [c.id for c in cases]},
             f"imported {len(cases)} case(s): {', '.join(c.id for c in cases)}")
    return OK


def list_(args, ctx: Context) -> int:
    from workbench.cases.library import refusal_text, refused_cases
    from workbench.cases.listing import case_summaries

    db = ctx.db()
    rows = case_summaries(db, status=args.status, type=args.type, domain=args.domain, strategy=args.strategy)
    refused = refused_cases(db)

    def human() -> str:
        lines = [_table(rows)]
        if refused:  # the library's files the gates refused: not in the store, named with file:line
            lines.append(f"{len(refused)} case file(s) refused (a study that names one is refused):")
            lines += [f"  {r['id']}  refused  {refusal_text(r)}" for r in refused]
        return "\n".join(lines)

    ctx.emit({"cases": rows, "refused": refused}, human)
    return OK


def show(args, ctx: Context) -> int:
    from workbench.cases.listing import case_detail

    detail = case_detail(ctx.db(), args.case_id)
    if detail is None:
        raise CommandError(f"no case '{args.case_id}' in the store")
    ctx.emit(detail, lambda: _detail_text(detail))
    return OK


def _problems_text(problems, ok_line: str) -> str:
    warnings = [str(p) + " (warning)" for p in problems if p.severity != "error"]
    errors = [p for p in problems if p.severity == "error"]
    lines = warnings + ([ok_line] if not errors else [f"{len(errors)} problem(s)"])
    return "\n".join(lines)


def _table(rows: list[dict]) -> str:
    if not rows:
        return "no cases"
    cols = ["id", "type", "domain", "status", "strategies", "probe"]
    cells = [[str(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*cols)] + [fmt.format(*row) for row in cells])


def _detail_text(d: dict) -> str:
    case = d["case"]
    lines = [f"{case['id']}: {case['title']}",
             f"type {case['type']}  domain {case['domain']}  status {case['status']}  "
             f"strategies {','.join(case['strategies']) or '-'}  decision date {case['decision_date'] or '-'}",
             f"complexity {case['complexity']}  concern domain {case['concern_domain']}  rubric {case['rubric'] or '-'}",
             "criteria: " + ", ".join(f"[{'x' if v else ' '}] {k}" for k, v in case["criteria"].items())]
    tr = case["transposition"]
    if tr["original"] or tr["mapping"]:
        lines.append(f"transposition of: {tr['original']}  verifiers: {', '.join(tr['verifiers']) or '-'}")
        lines += [f"  {m['from']} -> {m['to']}" for m in tr["mapping"]]
    for p in d["probes"]:
        lines.append(f"probe {p['date']} {p['model']}: {p['verdict']}")
    for key in ("scenario", "outcome", "structural_tension", "research_needed", "notes"):
        if case[key]:
            lines += ["", f"## {key.replace('_', ' ').capitalize()}", "", case[key]]
    return "\n".join(lines)
