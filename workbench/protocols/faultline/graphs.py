"""Belief graphs: built by a model (role `belief_graph`) from a persona at a size, stored as study
artifacts, pinned by the freeze, and shown to (or measured against) the persona in a debate.

Graphs are built once per study, before its freeze (`build_study_graphs`;
batch: `workbench --batch faultline graphs STUDY`): the freeze then pins the
graphs themselves, so every debate of the study argues from the same ones.
A build that fails to parse after one retry is stored as a failed graph
(no nodes, the error kept) and pinned as such — never invented.
"""

from __future__ import annotations

import sqlite_utils

from workbench.protocols.faultline import parsing, prompts, schemas
from workbench.protocols.faultline.turns import json_turn, model_settings, structured_settings
from workbench.runs.context import RunContext

ARTIFACT = "belief_graph"


def graph_key(persona_id: str, size: int) -> str:
    return f"{persona_id}:{size}"


# A belief graph writes every node (id, claim, credence) and its relations: about 60 tokens a node. A graph
# step that inherits a debate turn's max_tokens is cut before it can be whole (seen on the real-model suite:
# every 20-node graph of SmolLM2 stopped at `length` under max_tokens = 150).
GRAPH_TOKENS_PER_NODE = 60


def graph_max_tokens(table: dict, size: int) -> int:
    """The max_tokens a graph of `size` nodes is asked with: room for every node, never less than its table's."""
    return structured_settings(model_settings(table), GRAPH_TOKENS_PER_NODE * size).max_tokens


def budget_text(definition: dict, graphs: int | None = None) -> str:
    """What the belief graphs will cost, said before they are built (`faultline graphs`) and at `study create`:
    e.g. "belief graphs: 20 nodes at up to 1,200 tokens each (60 a node; the debate turns' max_tokens is 150)".
    `graphs`: how many are to be built, when known. Issue 40: a 20-node graph on a CPU model takes minutes."""
    from workbench.protocols.faultline.conditions import graph_sizes

    section = definition["faultline"]
    sizes = graph_sizes(definition["conditions"])
    if not sizes:
        return "no belief graphs"
    table = section["belief_graph"]
    each = ", ".join(f"{n} nodes at up to {graph_max_tokens(table, n):,} tokens" for n in sizes)
    turn = int((definition.get("model") or {}).get("max_tokens") or 0)
    count = f"{graphs} graph{'' if graphs == 1 else 's'}, " if graphs is not None else ""
    total = ""
    if graphs:
        per_size = graphs / len(sizes)
        total = f"; up to {round(per_size * sum(graph_max_tokens(table, n) for n in sizes)):,} tokens in all"
    return (f"belief graphs: {count}{each} each ({GRAPH_TOKENS_PER_NODE} a node, whatever the study's max_tokens"
            + (f" {turn:,}" if turn else "") + f"){total}")


def graph_over_budget(definition: dict) -> list[str]:
    """`study create`'s warning when a graph asks for more tokens than the study's max_tokens (the budget itself
    is stated beside it by `budget_lines`), before `faultline graphs` spends minutes a graph on a CPU model."""
    from workbench.gateway.api import OFFLINE_MODELS
    from workbench.protocols.faultline.conditions import graph_sizes

    turn = int((definition.get("model") or {}).get("max_tokens") or 0)
    table = definition["faultline"]["belief_graph"]
    if table.get("name") in OFFLINE_MODELS:  # the offline models answer at once, whatever they are asked
        return []
    if not any(graph_max_tokens(table, n) > turn for n in graph_sizes(definition["conditions"])):
        return []
    most = max(graph_max_tokens(table, n) for n in graph_sizes(definition["conditions"]))
    return [f"`faultline graphs` asks a graph for up to {most / max(turn, 1):.0f}x a debate turn's tokens "
            f"({most:,} against max_tokens {turn:,}): minutes a graph on a CPU model"]


def format_graph(graph: dict | None) -> str:
    """The graph as the persona reads it: one line per node, then the relations."""
    if not graph or not graph.get("nodes"):
        return "(no beliefs recorded)"
    lines = [f"{n['id']} (credence {n['credence']:.2f}): {n['claim']}" for n in graph["nodes"]]
    rel = [f"{e['from']} {e['type']} {e['to']}" for e in graph.get("edges", [])]
    return "\n".join(lines + (["Relations: " + "; ".join(rel)] if rel else []))


async def build_graph(ctx: RunContext, persona: dict, size: int, table: dict) -> dict:
    """One persona's graph at `size` nodes: {"persona", "size", "nodes", "edges", "error", ...}."""
    prompt = prompts.BELIEF_GRAPH.format(name=persona["name"], worldview=persona["worldview"], size=size)
    graph, error = await json_turn(ctx, f"graph:{persona['id']}:{size}", persona["id"], prompt,
                                   lambda obj: parsing.belief_graph(obj, size), step="belief graph",
                                   phase="belief_graph",
                                   label=f"belief graph of {persona['name']} ({size} nodes)", role="belief_graph",
                                   settings=structured_settings(model_settings(table), GRAPH_TOKENS_PER_NODE * size),
                                   schema=schemas.belief_graph_schema(size))
    out = {"persona": persona["id"], "size": size, "model": table["name"], "error": error}
    out.update(graph or {"nodes": [], "edges": [], "dropped_nodes": 0})
    return out


async def with_graphs(ctx: RunContext) -> dict:
    """`ctx.item` (a debate) with a graph of the condition's size for each persona that has none stored, built
    through `ctx` (the dry run: `StudyProtocol.dry_run_item`)."""
    from workbench.protocols.faultline.conditions import condition

    size = condition(ctx.condition).nodes
    if not size or "pair" not in ctx.item:
        return ctx.item
    graphs = dict(ctx.item.get("graphs") or {})
    for persona in ctx.item["pair"]["personas"]:
        key = graph_key(persona["id"], size)
        if key not in graphs:
            graphs[key] = await build_graph(ctx, persona, size, ctx.definition["faultline"]["belief_graph"])
    return {**ctx.item, "graphs": graphs}


def stored_graphs(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """key "persona:size" → graph, for every graph the study has."""
    from store.items import artifacts

    return {a["key"]: a["payload"] for a in artifacts(db, study_id, ARTIFACT)}


def missing_graphs(db: sqlite_utils.Database, study_id: str, personas: list[dict], sizes: list[int]
                   ) -> list[tuple[dict, int]]:
    have = stored_graphs(db, study_id)
    return [(p, s) for p in personas for s in sizes if graph_key(p["id"], s) not in have]


async def build_study_graphs(db: sqlite_utils.Database, gateway, study_id: str, definition: dict, *,
                             sink=None, control=None) -> dict:
    """Build every graph the study needs that is not stored yet; each is stored as soon as it is made,
    so an interrupted build resumes where it stopped (and the gateway replays the calls it had made)."""
    from store.items import put_artifact
    from workbench.events import NullSink
    from workbench.protocols.faultline.conditions import graph_sizes
    from workbench.protocols.faultline.items import study_personas
    from workbench.runs.control import RunControl
    from workbench.runs.settings import study_model_settings
    from workbench.structured.counts import recorder

    section = definition["faultline"]
    todo = missing_graphs(db, study_id, study_personas(db, study_id), graph_sizes(definition["conditions"]))
    ctx = RunContext(gateway=gateway, sink=sink or NullSink(), settings=study_model_settings(definition),
                     item=None, options=section, study_id=study_id, condition="belief-graph",
                     control=control or RunControl(), definition=definition,
                     on_reply=recorder(db, study_id, "belief-graphs"))
    built, failed = 0, 0
    for persona, size in todo:
        graph = await build_graph(ctx, persona, size, section["belief_graph"])
        put_artifact(db, study_id, ARTIFACT, graph_key(persona["id"], size), graph)
        built += 1
        failed += graph["error"] is not None
    return {"built": built, "failed": failed, "already": len(stored_graphs(db, study_id)) - built}
