"""What the faultline screens show, read through the core (the screens never touch the store).

Each function returns plain data; the screens only lay it out. Live debates
come from the same events the runner stores (`debate_message`, `moderator`,
`crux_card`), so a debate in progress and a finished one look alike.
"""

from __future__ import annotations

import sqlite_utils

from workbench.events import CRUX_CARD, DEBATE_MESSAGE, MODERATOR, QBAF, RUN_STARTED, TURN_STARTED
from workbench.protocols.faultline.conditions import condition

LIVE_KINDS = [RUN_STARTED, DEBATE_MESSAGE, MODERATOR, CRUX_CARD, TURN_STARTED, QBAF]


def debate_runs(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """The study's debate runs: id, item, condition, replicate, status."""
    from store.runs import list_runs

    return [{k: r[k] for k in ("id", "case_id", "condition", "replicate", "status")}
            for r in list_runs(db, study_id) if condition(r["condition"]).is_debate]


def debate_view(db: sqlite_utils.Database, study_id: str, run_id: str) -> dict:
    """A debate's personas, messages (public, moderator lines included), crux cards and stances: from its
    output when done, else from the events stored so far."""
    from store.events import events_for_run
    from store.outputs import get_output
    from store.runs import get_run
    from workbench.protocols.faultline import PROTOCOL

    run = get_run(db, run_id)
    item = PROTOCOL.item_payload(db, study_id, run["case_id"])
    personas = item["pair"]["personas"]
    out = get_output(db, run_id)
    base = {"run": {k: run[k] for k in ("id", "case_id", "condition", "replicate", "status")},
            "topic": item["topic"], "personas": personas, "divergence": item["pair"]["divergence"]}
    if out is not None:
        r = out["report"]
        return {**base, "messages": r["messages"], "cruxes": r["cruxes"], "stances": r["stances"],
                "errors": r["errors"], "done": True}
    messages, cards = [], []
    for e in events_for_run(db, run_id):
        if e["kind"] in (DEBATE_MESSAGE, MODERATOR):
            p = e["payload"]
            messages.append({k: p.get(k) for k in ("id", "persona", "round", "phase", "text")})
        elif e["kind"] == CRUX_CARD:
            cards.append(e["payload"])
    return {**base, "messages": messages, "cruxes": cards, "stances": {"opening": {}, "closing": {}},
            "errors": [], "done": False}


def study_graphs(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    from workbench.protocols.faultline.graphs import stored_graphs

    return stored_graphs(db, study_id)


def drawn_on(db: sqlite_utils.Database, study_id: str, run_id: str, graph: dict) -> dict[str, list[str]]:
    """node id → the ids of the persona's messages with a claim whose nearest node it is at cosine ≥ 0.7
    (the BA rule), for one debate run."""
    from store.outputs import get_output
    from workbench.protocols.faultline.analysis import Vectors
    from workbench.protocols.faultline.measures import GROUNDING
    from workbench.studies import load_study

    out = get_output(db, run_id)
    if out is None or not graph.get("nodes"):
        return {}
    report = out["report"]
    embed = Vectors(db, load_study(db, study_id)["definition"]["faultline"]["embedding_model"])
    nodes = embed([n["claim"] for n in graph["nodes"]])
    found: dict[str, list[str]] = {}
    for m in report["messages"]:
        if m["persona"] != graph["persona"]:
            continue
        claims = report["claims"].get(m["id"]) or []
        if not claims:
            continue
        sims = embed(claims) @ nodes.T
        for row in sims:
            best = int(row.argmax())
            if row[best] >= GROUNDING - 1e-12:
                ids = found.setdefault(graph["nodes"][best]["id"], [])
                if m["id"] not in ids:
                    ids.append(m["id"])
    return found


def metrics_document(db: sqlite_utils.Database, study_id: str, progress=None) -> dict:
    """The metrics document; `progress(step, done, total)` hears its steps, as `metrics` prints them."""
    from workbench.protocols.faultline import PROTOCOL

    return PROTOCOL.metrics(db, study_id, {"progress": progress}).document


def spread_series(doc: dict) -> dict[str, list[tuple[int, float]]]:
    """condition → (round, mean spread over its debates) for the spread-per-round plot: the report's numbers."""
    return {c: [(r["round"], r["value"]) for r in rounds if r["value"] is not None]
            for c, rounds in doc["spread_by_round"].items()}
