"""Checking the JSON a model returns for each structured step; a reply that fails raises InvalidReply
with the reason (fed back once to the model, then counted as an error)."""

from __future__ import annotations

import re

from workbench.judges.parse import InvalidReply
from workbench.structured.reading import repaired
from workbench.structured.reply_object import rekeyed


def claims(obj: dict) -> list[str]:
    items = obj.get("claims")
    if not isinstance(items, list) or not all(isinstance(c, str) for c in items):
        raise InvalidReply("`claims` must be a list of strings")
    out = [c.strip() for c in items if c.strip()]
    if len(out) < len(items):
        repaired("empty claims dropped")
    return out


class Stances(dict):
    """claim id → stance, as `stances` reads them; `unknown` keeps what the reply gave for claim ids that are not
    on the table (a misspelled id, say), which are not read as any claim's stance: the caller counts and
    reports them (issue 25), so a stance lost that way is never silent."""

    def __init__(self, values: dict, unknown: dict | None = None):
        super().__init__(values)
        self.unknown = dict(unknown or {})


def stances(obj: dict, claim_ids: list[str]) -> Stances:
    """claim id → stance −2…+2, or None where the statement takes none (never filled in). Stances on ids not on
    the table are left out and kept in the result's `unknown`."""
    raw = _listed_stances(obj.get("stances"))
    if not isinstance(raw, dict):
        raise InvalidReply("`stances` must be an object of claim id → -2..2 or null")
    out: dict[str, int | None] = {}
    raw = _on_the_table(raw, claim_ids)
    unknown = {k: raw[k] for k in raw if k not in claim_ids}
    if unknown:
        repaired("stances on claims not on the table ignored")
    if set(claim_ids) - set(raw):
        repaired("claims the reply does not name taken as null")
    for cid in claim_ids:
        v = _stance_value(raw.get(cid), cid)
        if v is None:
            out[cid] = None
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or not -2 <= v <= 2:
            raise InvalidReply(f"stance for '{cid}' must be a whole number from -2 to 2 or null, not {v!r}")
        out[cid] = int(v)
    if all(v is None for v in out.values()) and not any(cid in raw for cid in claim_ids):
        named = f" (it named {', '.join(repr(k) for k in unknown)}, not on the table)" if unknown else ""
        raise InvalidReply(f"`stances` names none of the claims {', '.join(claim_ids)}{named}")
    return Stances(out, unknown)


STANCE_WORDS = {"strongly against": -2, "against": -1, "neutral": 0, "mixed": 0, "neutral or mixed": 0, "for": 1,
                "strongly for": 2}
CLAIM_KEYS = ("claim", "text", "statement", "belief")   # a node's claim under the names models give it


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]+", "-", str(text).strip().strip("`'\"").casefold())


def _on_the_table(raw: dict, claim_ids: list[str]) -> dict:
    """The reply's stances with each key that names a claim id but for case, spacing, quotes or `-`/`_`
    respelled as that id (a careful reader's reading); keys that name no claim are kept as they are. Two keys
    that name one claim are refused (which one is meant is not clear)."""
    ids = {_key(c): c for c in claim_ids}
    return rekeyed(raw, lambda k: k if k in claim_ids else ids.get(_key(k), k), "claim id",
                   "claim '{}' is given two stances")


def _listed_stances(raw):
    """Stances given as a list of {"claim": id, "stance": n} objects, read as the object the prompt asks for."""
    if not isinstance(raw, list) or not raw or not all(isinstance(x, dict) for x in raw):
        return raw
    out = {}
    for x in raw:
        cid = next((x[k] for k in ("claim", "id", "claim_id") if isinstance(x.get(k), str)), None)
        if cid is None or not any(k in x for k in STANCE_KEYS) or cid in out:
            return raw
        out[cid] = next(x[k] for k in STANCE_KEYS if k in x)
    repaired("stances given as a list of objects")
    return out


STANCE_KEYS = ("stance", "value", "score")


def _stance_value(v, cid: str):
    """A stance written as a numeric string ("+1", "-2", "0") is that number; "null"/"none" is null; an
    object holding one stance ({"stance": 2, "reason": ...}) is that stance."""
    if isinstance(v, dict):
        keys = [k for k in STANCE_KEYS if k in v]
        if len(keys) == 1:
            repaired(f"stance for '{cid}' given as an object")
            v = v[keys[0]]
    if isinstance(v, str):
        text = v.strip().casefold()
        if text in ("null", "none", "n/a", ""):
            repaired(f"stance for '{cid}' {v!r} read as null")
            return None
        if re.fullmatch(r"[+-]?\d+", text):
            repaired(f"stance for '{cid}' {v!r} read as a number")
            return int(text)
        if text in STANCE_WORDS:   # the prompt's own words for the scale
            repaired(f"stance for '{cid}' {v!r} read as {STANCE_WORDS[text]}")
            return STANCE_WORDS[text]
    return v


def crux_cards(obj: dict) -> list[dict]:
    cards = obj.get("cards")
    if not isinstance(cards, list) or not cards:
        raise InvalidReply("`cards` must be a non-empty list")
    out = []
    for i, c in enumerate(cards):
        if not isinstance(c, dict):
            raise InvalidReply(f"card {i + 1} must be an object")
        if "question" not in c and isinstance(c.get("crux"), str):
            repaired(f"card {i + 1}: its question given as 'crux'")
            c = {**c, "question": c["crux"]}
        q, d, m = c.get("question"), c.get("diagnosis"), c.get("messages")
        if not isinstance(q, str) or not q.strip() or not isinstance(d, str) or not d.strip():
            raise InvalidReply(f"card {i + 1} needs a non-empty question and diagnosis")
        if isinstance(m, str):
            repaired(f"card {i + 1}: message ids given as one string, split at commas")
            m = [x.strip() for x in re.split(r"[,;\s]+", m) if x.strip()]
        if not isinstance(m, list) or not all(isinstance(x, str) for x in m):
            raise InvalidReply(f"card {i + 1}: `messages` must be a list of message ids")
        out.append({"question": q.strip(), "diagnosis": d.strip(), "messages": m})
    return out


def qbaf(obj: dict, persona_ids: list[str]) -> tuple[list[dict], list[tuple[str, str, str]]]:
    args, rels = obj.get("arguments"), obj.get("relations", [])
    if "relations" not in obj:
        repaired("no relations given: taken as none")
    if not isinstance(args, list) or not args:
        raise InvalidReply("`arguments` must be a non-empty list")
    out, ids = [], set()
    for i, a in enumerate(args):
        if not isinstance(a, dict) or not isinstance(a.get("id"), str) or not isinstance(a.get("text"), str):
            raise InvalidReply(f"argument {i + 1} needs a string id and text")
        base = a.get("base")
        if not isinstance(base, dict):
            raise InvalidReply(f"argument {a['id']}: `base` must give a score per debater")
        scores = {}
        for p in persona_ids:
            v = base.get(p)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise InvalidReply(f"argument {a['id']}: base score for '{p}' must be a number in [0, 1]")
            scores[p] = float(v)
        ids.add(a["id"])
        out.append({"id": a["id"], "text": a["text"], "message": a.get("message"), "base": scores})
    if not isinstance(rels, list):
        raise InvalidReply("`relations` must be a list")
    relations = []
    for r in rels:
        if not isinstance(r, dict):
            raise InvalidReply("each relation must be an object")
        kind = {"attacks": "attack", "supports": "support"}.get(r.get("type"), r.get("type"))
        if kind != r.get("type"):
            repaired(f"relation type {r.get('type')!r} read as {kind!r}")
        if r.get("from") not in ids or r.get("to") not in ids or kind not in ("attack", "support"):
            raise InvalidReply(f"relation {r!r} must join two listed arguments as attack or support")
        relations.append((r["from"], r["to"], kind))
    return out, relations


def _credence(c, node: str):
    """A credence written as a numeric string ("0.8") or a percentage ("80%") is that number on [0, 1]."""
    if isinstance(c, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*", c)
        if m:
            repaired(f"node {node}: credence {c!r} read as a number")
            return float(m.group(1)) / (100 if m.group(2) else 1)
    return c


def belief_graph(obj: dict, size: int) -> dict:
    """Nodes (id, claim, credence) and edges (from, to, supports|attacks). Fewer than `size` nodes is
    refused; nodes past `size` are dropped with their edges, and the drop is recorded."""
    nodes, edges = obj.get("nodes"), obj.get("edges", [])
    if "edges" not in obj:
        repaired("no edges given: taken as none")
    if not isinstance(nodes, list):
        raise InvalidReply("`nodes` must be a list")
    clean, seen = [], set()
    for i, n in enumerate(nodes):
        if isinstance(n, dict) and "claim" not in n:
            named = next((k for k in CLAIM_KEYS if isinstance(n.get(k), str)), None)
            if named:
                repaired(f"node claims given as {named!r}")
                n = {**n, "claim": n[named]}
        if isinstance(n, dict) and isinstance(n.get("id"), int) and not isinstance(n.get("id"), bool):
            repaired("node ids given as numbers")
            n = {**n, "id": str(n["id"])}
        if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not isinstance(n.get("claim"), str):
            raise InvalidReply(f"node {i + 1} needs a string id and claim")
        c = _credence(n.get("credence"), n["id"])
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c <= 1:
            raise InvalidReply(f"node {n['id']}: credence must be a number in [0, 1]")
        if n["id"] in seen:
            raise InvalidReply(f"node id {n['id']} is used twice")
        seen.add(n["id"])
        clean.append({"id": n["id"], "claim": n["claim"].strip(), "credence": float(c)})
    if len(clean) < size:
        raise InvalidReply(f"the graph has {len(clean)} nodes; exactly {size} were asked for")
    dropped = len(clean) - size
    if dropped:
        repaired(f"{dropped} node(s) past {size} dropped")
    clean = clean[:size]
    kept = {n["id"] for n in clean}
    if not isinstance(edges, list):
        raise InvalidReply("`edges` must be a list")
    out_edges = []
    for e in edges:
        if not isinstance(e, dict):
            raise InvalidReply("each edge must be an object")
        kind = {"support": "supports", "attack": "attacks"}.get(e.get("type"), e.get("type"))
        if kind != e.get("type"):
            repaired(f"edge type {e.get('type')!r} read as {kind!r}")
        if kind not in ("supports", "attacks"):
            raise InvalidReply(f"edge {e!r}: type must be supports or attacks")
        ends = tuple(str(e.get(k)) if isinstance(e.get(k), int) else e.get(k) for k in ("from", "to"))
        if ends != (e.get("from"), e.get("to")):
            repaired("edge ends given as numbers")
            e = {**e, "from": ends[0], "to": ends[1]}
        if e.get("from") in kept and e.get("to") in kept:
            out_edges.append({"from": e["from"], "to": e["to"], "type": kind})
        else:
            repaired("edges to unknown or dropped nodes dropped")
    return {"nodes": clean, "edges": out_edges, "dropped_nodes": dropped}
