"""A graph condition that lost its treatment (issue 25).

graph-20, qbaf-20, latent-20, … inject each persona's belief graph. When a persona's graph failed to build
(it did not parse, or had fewer nodes than asked), the persona reads "(no beliefs recorded)" and the
condition silently becomes plain: its openings were byte-identical to the plain condition's, and the report
printed "graph-20 − plain" as if a graph had been injected. Such a condition is refused before its debates
(`run --allow-missing-graphs` runs it anyway), and every table and the report mark it. Each finished debate's
own reading for the treatment fidelity table (issue 45: its graphs and QBAF maps used) is read here too.

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


# --- treatment fidelity (issue 45): did each debate use what its condition injects? -----------------------
# Read from the run's report (debate.py's `report`): the graphs each persona was given, and the QBAF map of
# every round. The baselines and the plain debate inject nothing a run could leave out.

def fidelity_step(cond: str) -> str:
    c = condition(cond)
    if c.architecture in ("graph", "latent"):
        return f"every persona's {c.nodes}-node belief graph used"
    if c.architecture == "qbaf":
        return "the QBAF map read every round" + (f", with every persona's {c.nodes}-node graph" if c.nodes else "")
    return "a debate or baseline (nothing injected to withhold)"


def fidelity_steps(definition: dict) -> dict[str, str]:
    return {c: fidelity_step(c) for c in definition.get("conditions") or []}


def fidelity_reading(cond: str, report: dict | None) -> tuple[bool, str, bool]:
    """(delivered, note, flagged) of one finished run from its stored report."""
    c = condition(cond)
    if c.architecture not in ("graph", "latent", "qbaf"):
        return True, "", False
    report = report or {}
    if c.nodes:
        graphs = report.get("graphs") or {}
        missing = sorted(pid for pid in report.get("personas") or graphs if not valid_graph(graphs.get(pid)))
        if missing or not graphs:
            return False, "no graph for " + (", ".join(missing) or "any persona"), False
    if c.architecture == "qbaf":
        rounds = report.get("qbaf") or []
        failed = sum(1 for r in rounds if r.get("error"))
        if not rounds or failed:
            return False, f"QBAF map unread in {failed} of {len(rounds)} round(s)", False
    misses = int(report.get("latent_format_misses") or 0)
    return True, (f"{misses} latent reply(s) without the asked layout" if misses else ""), bool(misses)


def fidelity_readings(db, runs: list[dict]) -> list:
    from store.outputs import get_output
    from workbench.protocol.base import TreatmentReading

    out = []
    for run in runs:
        output = get_output(db, run["id"]) or {}
        out.append(TreatmentReading(run["id"], run["condition"], *fidelity_reading(run["condition"],
                                                                                    output.get("report"))))
    return out
