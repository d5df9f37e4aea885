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
