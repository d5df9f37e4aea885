"""A graph condition that lost its treatment (issue 25).

graph-20, qbaf-20, latent-20, … inject each persona's belief graph. When a persona's graph failed to build
(it did not parse, or had fewer nodes than asked), the persona reads "(no beliefs recorded)" and the
condition silently becomes plain: its openings were byte-identical to the plain condition's, and the report
printed "graph-20 − plain" as if a graph had been injected. Such a condition is refused before its debates
(`run --allow-missing-graphs` runs it anyway), and every table and the report mark it.

Token budgets of the structured moderator steps live here too: they are sized to what the step writes, not
inherited from a debate turn (256 tokens cut the crux cards and the argument map of a real run).
"""

from __future__ import annotations

import re

from workbench.protocols.faultline.conditions import condition

# Tokens the moderator's structured replies may take at least: a few crux cards (question, diagnosis, cited
# messages) and an argument map of every message (arguments with base scores per persona, relations).
CRUX_CARDS_MAX_TOKENS = 1024
QBAF_MAX_TOKENS = 2048


def valid_graph(graph: dict | None) -> bool:
    return bool(graph) and graph.get("error") is None and bool(graph.get("nodes"))


def lost_treatments(graphs: dict[str, dict], personas: list[dict], conditions: list[str]) -> dict[str, str]:
    """condition id → why its treatment is lost ("no graph for precautionary-ethicist"), for every graph
    condition some persona of the study has no valid graph for."""
    from workbench.protocols.faultline.graphs import graph_key

    out: dict[str, str] = {}
    for cid in conditions:
        nodes = condition(cid).nodes
        if nodes <= 0:
            continue
        missing = [p["id"] for p in personas if not valid_graph(graphs.get(graph_key(p["id"], nodes)))]
        if missing:
            out[cid] = "no graph for " + ", ".join(missing)
    return out


def study_lost_treatments(db, study_id: str, definition: dict) -> dict[str, str]:
    from workbench.protocols.faultline.graphs import stored_graphs
    from workbench.protocols.faultline.items import study_personas

    return lost_treatments(stored_graphs(db, study_id), study_personas(db, study_id), definition["conditions"])


def label(cond: str, lost: dict[str, str]) -> str:
    """'graph-20 (no graph for precautionary-ethicist)' for a condition that lost its treatment."""
    return f"{cond} ({lost[cond]})" if cond in lost else cond


def mark(text: str, lost: dict[str, str]) -> str:
    """Every whole condition id in `text` (a comparison such as 'graph-20 − plain') labelled."""
    for cond in lost:
        text = re.sub(rf"(?<![\w-]){re.escape(cond)}(?![\w-])", lambda _m, c=cond: label(c, lost), text)
    return text
