"""`workbench --batch faultline …`: the protocol's own batch commands.

    faultline graphs STUDY                    build the belief graphs the study needs (before its freeze)
    faultline graph STUDY PERSONA [--size N]  show one persona's belief graph
    faultline debates STUDY --out DIR [--force]  one JSON document per debate, with its metrics (a folder
                                              holding anything needs --force; only the workbench's files in it
                                              are replaced)
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from workbench.cli.connection_options import add_connection_options
from workbench.cli.context import OK, CommandError, Context, command_group, protocol_study, study_action
from workbench.files import FolderNotEmpty, write_folder


def register(sub: argparse._SubParsersAction) -> None:
    fsub = command_group(sub, "faultline", help="faultline protocol: belief graphs and per-debate documents",
                         description="Seed 002's own steps: build the personas' belief graphs the study's "
                                     "conditions need, show one, and write one document per debate.",
                         dest="faultline_command")
    g = study_action(fsub, "graphs", build, help="build the belief graphs the study needs (before its freeze)",
                     dest="study",
                     description="Build every persona's belief graph at each size the study's conditions use "
                                 "(model calls, logged and resumable). A study is frozen only once its graphs "
                                 "are built; --replay serves every call from the log.",
                     examples=("workbench --batch faultline graphs faultline-mock",
                               "workbench --batch faultline graphs faultline-mock --replay"))
    g.add_argument("--replay", action="store_true", help="serve every call from the log; fail on a miss")
    add_connection_options(g)
    s = study_action(fsub, "graph", show, help="show one persona's belief graph", dest="study",
                     description="One persona's built belief graph (PERSONA is its id in the pair file): its "
                                 "nodes and edges and the model that built it, at --size nodes or at every size.",
                     examples=("workbench --batch faultline graph faultline-mock tech-optimist",
                               "workbench --batch faultline graph faultline-mock tech-optimist --size 20"))
    s.add_argument("persona", metavar="PERSONA")
    s.add_argument("--size", type=int, default=None, help="nodes (default: every size built)")
    d = study_action(fsub, "debates", debates, help="write one JSON document per debate, with its metrics",
                     dest="study",
                     description="Write one JSON document per debate run into DIR, each with the debate's "
                                 "metrics as `metrics STUDY` computes them. A DIR that holds anything needs "
                                 "--force, which replaces only the files the workbench wrote there.",
                     examples=("workbench --batch faultline debates faultline-mock --out debates/",))
    d.add_argument("--out", metavar="DIR", required=True)
    d.add_argument("--force", action="store_true",
                   help="write into a DIR that holds files: the workbench's own there are replaced, others kept")


class _GraphProgress:
    """What `faultline graphs` is doing, on stderr (stdout keeps the result): each graph asked for, each
    reply, each retry, and once a second while a graph is long in coming, its signs of life (`beat`)."""

    def __init__(self, ctx: Context) -> None:
        from workbench.cli.signals import quiet_when_gone
        from workbench.gateway.live_calls import LiveCalls

        self.say = quiet_when_gone(ctx.info)
        self.live = LiveCalls()

    async def beat(self) -> None:
        from workbench.gateway.live_calls import HEARTBEAT, long_calls_text

        def show(calls: list[dict]) -> None:
            if calls:  # the all-ended beat clears a live display; a printed log has nothing to clear
                self.say(f"faultline graphs: working: {long_calls_text(calls)}")

        await self.live.beat(HEARTBEAT, show)

    def emit(self, event) -> None:
        from workbench.events import CALL_RETRY, TURN_FINISHED, TURN_STARTED

        self.live.update(event)
        p = event.payload
        if event.kind == TURN_STARTED:
            self.say(f"faultline graphs: {event.agent}: {p.get('label') or event.turn} …")
        elif event.kind == TURN_FINISHED:
            self.say(f"faultline graphs: {event.agent}: {p.get('output_tokens') or 0} tokens"
                     + (" (replayed)" if p.get("replayed") else ""))
        elif event.kind == CALL_RETRY:
            self.say(f"faultline graphs: {event.agent}: attempt {p.get('attempt')} failed ({p.get('error')}); "
                     f"retrying in {p.get('wait', 0):.1f}s")


def build(args, ctx: Context) -> int:
    from workbench.cli.signals import run_interruptible
    from workbench.gateway import build_gateway
    from workbench.gateway.api import GatewayError
    from workbench.protocols.faultline.graphs import budget_text, build_study_graphs, missing_graphs
    from workbench.protocols.faultline.conditions import graph_sizes
    from workbench.protocols.faultline.items import study_personas

    db = ctx.db()
    definition = protocol_study(db, args.study, "faultline")["definition"]
    todo = missing_graphs(db, args.study, study_personas(db, args.study), graph_sizes(definition["conditions"]))
    ctx.info(f"faultline graphs: {budget_text(definition, len(todo))}")  # before the first, which may take minutes
    gateway = build_gateway(db, ctx.db_path, replay_only=args.replay, max_connections=args.max_connections,
                            stream=args.stream)
    again = f"workbench --batch faultline graphs {args.study} (the graphs built are kept)"
    progress = _GraphProgress(ctx)

    async def build_with_heartbeat():
        beating = asyncio.create_task(progress.beat())
        try:
            return await build_study_graphs(db, gateway, args.study, definition, sink=progress)
        finally:
            beating.cancel()

    try:
        result = run_interruptible(
            build_with_heartbeat,
            what=f"building the belief graphs of '{args.study}'", resume=again)
    except GatewayError as exc:
        raise CommandError(f"belief graphs not finished: {exc}; run the command again to resume") from None
    parsed = result["built"] - result["failed"]  # `built` counts every graph stored, a failed one too
    ctx.emit({**result, "parsed": parsed},
             f"belief graphs of {args.study}: {parsed} built, {result['failed']} failed to parse (stored as "
             f"failed), {result['already']} already there")
    return OK


def show(args, ctx: Context) -> int:
    from workbench.protocols.faultline.graphs import format_graph, stored_graphs

    db = ctx.db()
    protocol_study(db, args.study, "faultline")["definition"]
    graphs = {k: g for k, g in stored_graphs(db, args.study).items()
              if k.split(":")[0] == args.persona and (args.size is None or int(k.split(":")[1]) == args.size)}
    if not graphs:
        raise CommandError(f"no belief graph of '{args.persona}'" + (f" at {args.size} nodes" if args.size else "")
                           + f" in study '{args.study}'")

    def human() -> str:
        parts = []
        for key, g in sorted(graphs.items()):
            head = f"{key}: {len(g['nodes'])} nodes, {len(g['edges'])} edges, model {g['model']}"
            parts.append(head + (f"\n  build failed: {g['error']}" if g["error"] else "") + "\n" + format_graph(g))
        return "\n\n".join(parts)

    ctx.emit(graphs, human)
    return OK


def write_debates(db, study_id: str, definition: dict, out, *, replace: bool = False) -> int:
    """One JSON document per debate, with its metrics, in the folder `out` (workbench.files.write_folder:
    `replace` to write into one that holds files); returns how many. A simulated study's documents each carry
    the SIMULATED mark (workbench.simulation.marks), since each is read alone."""
    from workbench.protocols.faultline.analysis import study_metrics
    from workbench.simulation.marks import mark_json

    doc = study_metrics(db, study_id, definition)

    def fill(tmp: Path) -> list[Path]:
        written = []
        for d in doc["debates"]:
            path = tmp / (d["run_id"].replace("/", "__") + ".json")
            path.write_text(json.dumps(mark_json(d, definition), indent=2, ensure_ascii=False), encoding="utf-8")
            written.append(path)
        return written

    write_folder(Path(out), fill, replace=replace)
    return len(doc["debates"])


def export_entries() -> list:
    """`faultline debates` in the TUI's export list."""
    from workbench.exports.catalog import Export, ExportDone
    from workbench.studies.lookup import load_study

    def write(db, study_id: str, out, *, replace: bool = False) -> ExportDone:
        n = write_debates(db, study_id, load_study(db, study_id)["definition"], out, replace=replace)
        return ExportDone([Path(out)], f"wrote {n} debate document(s) of {study_id} to {out}", {"written": n})

    return [Export("faultline-debates", "Debate documents (JSON)", "one JSON document per debate with its "
                   "metrics, as `faultline debates`", write)]


def debates(args, ctx: Context) -> int:
    db = ctx.db()
    out = Path(args.out)
    try:
        n = write_debates(db, args.study, protocol_study(db, args.study, "faultline")["definition"], out,
                          replace=args.force)
    except FolderNotEmpty as exc:
        raise CommandError(f"{exc}; --force replaces the workbench's files there") from None
    ctx.emit({"written": n, "dir": str(out)}, f"{n} documents in {out}")
    return OK
