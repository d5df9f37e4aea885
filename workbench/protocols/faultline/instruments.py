"""Faultline's instruments (workbench.instruments): how crux recurrence reads a set of repeated debates.

`cruxes`: a JSON list of runs, each a list of crux questions → CR with its clusters, by the offline
embedding default or the model's check (`--equivalence model --model NAME [--api-base URL]`).
"""

from __future__ import annotations

import json

from workbench.instruments import Instrument, Option
from workbench.protocols.faultline import equivalence, measures

CR_TOLERANCE = 0.1   # a planted set's CR is read correctly within this (issue 41's targets: 0.5 ± 0.1)
_EMBEDDERS: dict[str, object] = {}


def _embed(model: str, texts: list[str]):
    from workbench.metrics.embeddings import Embedder

    if model not in _EMBEDDERS:
        _EMBEDDERS[model] = Embedder(model)
    return _EMBEDDERS[model].embed(texts)


def parse_runs(text: str) -> list[list[str]]:
    try:
        runs = json.loads(text)
    except ValueError as e:
        raise ValueError(f"not JSON: {e}") from None
    if not isinstance(runs, list) or not all(isinstance(r, list) and all(isinstance(q, str) and q.strip() for q in r)
                                             for r in runs):
        raise ValueError("must be a JSON list of runs, each a list of crux questions (non-empty strings)")
    return runs


def _model_asker(options: dict):
    from workbench.gateway.api import ModelSettings
    from workbench.paths import open_workbench_store

    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="workbench-read-"))
    db = open_workbench_store(folder / "read.db")
    settings = ModelSettings(model=options["model"], api_base=options.get("api_base") or None, temperature=0.0,
                             max_tokens=16)
    return equivalence.gateway_asker(db, folder / "read.db", settings, None)


def read_cruxes(text: str, options: dict, ask=None) -> dict:
    """`ask`: the model check's asker (a test's mock); else the gateway's for `--model`."""
    runs = parse_runs(text)
    questions = [q for r in runs for q in r]
    run_of = [str(i) for i, r in enumerate(runs) for _ in r]
    method = options.get("equivalence") or equivalence.EMBEDDING
    if not questions:
        return {"cr": None, "clusters": [], "flagged": True, "reason": "no crux questions", "method": method}
    if method == equivalence.MODEL and ask is None and not options.get("model"):
        raise ValueError("--equivalence model needs --model (a litellm model name)")
    vectors = _embed(equivalence.CRUX_EMBEDDING, questions)
    if method == equivalence.MODEL:
        same = equivalence.by_model(questions, vectors, ask or _model_asker(options), options.get("model") or "model")
    else:
        same = equivalence.by_embedding(questions, vectors)
    est = measures.crux_recurrence(vectors, run_of, labels=same.labels, method=same.method)
    clusters = [{"runs": sorted({int(run_of[i]) + 1 for i, x in enumerate(same.labels) if x == label}),
                 "questions": [q for q, x in zip(questions, same.labels) if x == label]}
                for label in sorted(set(same.labels) - {-1})]
    reason = same.reason or (est.undefined_reason or "")
    return {"cr": est.value, "clusters": clusters, "noise": [q for q, x in zip(questions, same.labels) if x == -1],
            "method": est.method, "asked": same.asked, "unreadable": same.unreadable,
            "flagged": same.flagged or est.value is None, "reason": reason}


def _describe(doc: dict) -> str:
    cr = "undefined" if doc["cr"] is None else f"{doc['cr']:.2f}"
    lines = [f"CR: {cr}  ({doc.get('method', '')})"]
    for k, c in enumerate(doc["clusters"], start=1):
        lines.append(f"  cluster {k}, runs {', '.join(map(str, c['runs']))}:")
        lines += [f"    {q}" for q in c["questions"]]
    if doc.get("noise"):
        lines.append(f"  asked once ({len(doc['noise'])}): " + " | ".join(doc["noise"]))
    return "\n".join(lines)


INSTRUMENTS = [
    Instrument(name="cruxes", title="crux recurrence (CR) over repeated debates' crux questions",
               read=read_cruxes,
               agrees=lambda doc, truth: doc["cr"] is not None and abs(doc["cr"] - truth["cr"]) <= CR_TOLERANCE,
               describe=_describe,
               options=(Option("--equivalence", "how two cruxes are found to ask the same question",
                               equivalence.EMBEDDING, equivalence.METHODS),
                        Option("--model", "with --equivalence model: the litellm model that checks near pairs"),
                        Option("--api-base", "with --model: the server's base URL")),
               input_help="a JSON list of runs, each a list of crux questions", example="cruxes.json"),
]
