"""Faultline's instruments (workbench.instruments): how its model text is read.

`cruxes`: a JSON list of runs, each a list of crux questions → CR with its clusters, by the offline
default (matching across runs), average linkage (`--equivalence embedding`) or the model's check
(`--equivalence model --model NAME [--api-base URL] [--api-key-env NAME|none]`).
`graph`, `stance`, `crux-card`: a belief graph's, a stance extraction's and the moderator's crux cards' JSON
reply, read by the step's own parser as a study reads it (`workbench.instruments.structured`).
"""

from __future__ import annotations

import json
import re

from workbench.instruments import Instrument, Option
from workbench.instruments.structured import read_reply, unusable_or
from workbench.protocols.faultline import equivalence, measures, parsing
from workbench.structured.reply_object import reply_object

CR_TOLERANCE = 0.1   # a planted set's CR is read correctly within this (issue 41's targets: 0.5 ± 0.1)
_EMBEDDERS: dict[str, object] = {}


def _embed(model: str, texts: list[str]):
    from workbench.metrics.embeddings import Embedder

    if model not in _EMBEDDERS:
        _EMBEDDERS[model] = Embedder(model)
    return _EMBEDDERS[model].embed(texts)


RUNS_HELP = ("a JSON list of runs, each a list of crux questions (strings or cards with a \"question\"); or "
             "{\"runs\": [...]}, or an object of run name → list, or JSON Lines (one run a line), or plain text: "
             "one question a line, runs apart by a blank line or a \"Run N\" heading")


def parse_runs(text: str) -> list[list[str]]:
    """The runs' crux questions from any of the shapes RUNS_HELP names; ValueError naming what is wrong."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("the file is empty")
    try:
        data = json.loads(stripped)
    except ValueError as e:
        if stripped[0] not in "[{":
            return _plain_runs(stripped)
        lines = [ln for ln in stripped.splitlines() if ln.strip()]
        try:
            data = [json.loads(ln) for ln in lines]          # JSON Lines: one run a line
        except ValueError:
            raise ValueError(f"not JSON: {e}") from None
    if not isinstance(data, (list, dict)):   # a bare string or number is no run: never read as one question
        kind = "string" if isinstance(data, str) else "number" if isinstance(data, (int, float)) else "literal"
        raise ValueError(f"a JSON {kind}, not a list of runs; must be {RUNS_HELP}")
    return _runs_of(data)


def _runs_of(data) -> list[list[str]]:
    if isinstance(data, dict):
        data = data["runs"] if "runs" in data else list(data.values())
    if not isinstance(data, list) or not data:
        raise ValueError(f"must be {RUNS_HELP}")
    runs = []
    for i, run in enumerate(data, start=1):
        if isinstance(run, dict) and isinstance(run.get("cards", run.get("cruxes")), list):
            run = run.get("cards", run.get("cruxes"))
        if not isinstance(run, list):
            raise ValueError(f"run {i} is not a list of crux questions")
        questions = []
        for j, q in enumerate(run, start=1):
            q = q.get("question") if isinstance(q, dict) else q
            if not isinstance(q, str) or not q.strip():
                raise ValueError(f"run {i}, crux {j}: not a question (a non-empty string, or a card with one)")
            questions.append(q.strip())
        runs.append(questions)
    return runs


_HEADING = re.compile(r"^\W*(?:run|debate|repeat)\s*#?\s*\d+\W*$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _plain_runs(text: str) -> list[list[str]]:
    runs, current = [], []
    headed = any(_HEADING.match(ln) for ln in text.splitlines())
    for line in text.splitlines():
        if _HEADING.match(line) or (not headed and not line.strip()):
            if current:
                runs.append(current)
            current = []
        elif line.strip():
            current.append(_BULLET.sub("", line).strip())
    if current:
        runs.append(current)
    if not headed and len(runs) == 1:   # one block of text (prose, a reply) is no list of runs
        raise ValueError("plain text in one block, not runs apart by a blank line or a \"Run N\" heading; "
                         f"must be {RUNS_HELP}")
    return runs


def _model_asker(options: dict):
    from workbench.gateway.api import ModelSettings
    from workbench.paths import open_workbench_store

    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="workbench-read-"))
    db = open_workbench_store(folder / "read.db")
    settings = ModelSettings(model=options["model"], api_base=options.get("api_base") or None, temperature=0.0,
                             max_tokens=equivalence.CHECK_TOKENS, structured=options.get("structured"),
                             api_key_env=options.get("api_key_env") or None)
    return equivalence.gateway_asker(db, folder / "read.db", settings, None)


def read_cruxes(text: str, options: dict, ask=None) -> dict:
    """`ask`: the model check's asker (a test's mock); else the gateway's for `--model`."""
    runs = parse_runs(text)
    questions = [q for r in runs for q in r]
    run_of = [str(i) for i, r in enumerate(runs) for _ in r]
    method = options.get("equivalence") or equivalence.DEFAULT
    if not questions:
        return {"cr": None, "clusters": [], "flagged": True, "reason": "no crux questions", "method": method}
    if method == equivalence.MODEL and ask is None and not options.get("model"):
        raise ValueError("--equivalence model needs --model (a litellm model name)")
    vectors = _embed(equivalence.CRUX_EMBEDDING, questions)
    if method == equivalence.MODEL:
        ask = ask or _model_asker(options)
    same = equivalence.read(method, questions, vectors, run_of, ask=ask, checker=options.get("model") or "model")
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


def read_graph(text: str, options: dict) -> dict:
    size = _whole(options.get("size"), "--size")
    graph, doc = read_reply(lambda t: parsing.belief_graph(reply_object(t), size), text)
    graph = graph or {"nodes": [], "edges": [], "dropped_nodes": 0}
    return {"size": size, "nodes": graph["nodes"], "edges": graph["edges"], "dropped_nodes": graph["dropped_nodes"],
            **doc}


def _whole(value, flag: str) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{flag} must be a whole number, not {value!r}") from None
    if n < 1:
        raise ValueError(f"{flag} must be at least 1")
    return n


def graph_agrees(doc: dict, truth: dict) -> bool:
    """The nodes kept, their credences in order, and the number of edges."""
    return (len(doc["nodes"]) == truth["nodes"] and len(doc["edges"]) == truth["edges"]
            and [round(n["credence"], 3) for n in doc["nodes"]] == [round(c, 3) for c in truth["credences"]])


def _describe_graph(doc: dict) -> str:
    lines = [f"{doc['outcome']}: {len(doc['nodes'])} of {doc['size']} nodes, {len(doc['edges'])} edges"
             + (f" ({doc['dropped_nodes']} past {doc['size']} dropped)" if doc["dropped_nodes"] else "")]
    lines += [f"  {n['id']}  {n['credence']:.2f}  {n['claim']}" for n in doc["nodes"]]
    lines += [f"  {e['from']} {e['type']} {e['to']}" for e in doc["edges"]]
    return "\n".join(lines)


NULL = "none"   # a stance the statement does not take, as the corpus's TOML (which has no null) writes it


def read_stance(text: str, options: dict) -> dict:
    ids = [c.strip() for c in str(options.get("claims") or "").split(",") if c.strip()]
    if not ids:
        raise ValueError("--claims must name the claim ids on the table, e.g. --claims c1,c2")
    found, doc = read_reply(lambda t: parsing.stances(reply_object(t), ids), text)
    unknown = dict(getattr(found, "unknown", {}) or {})
    if unknown:   # read, with a note the run's report keeps and the metrics count (extraction.unknown_claims)
        doc = {**doc, "flagged": True, "reason": "stances on ids not on the table, not read as any claim's: "
                                                  + ", ".join(repr(k) for k in unknown)}
    return {"claims": ids, "stances": dict(found) if found is not None else None, "unknown": unknown, **doc}


def stance_agrees(doc: dict, truth: dict) -> bool:
    want = {k: (None if v == NULL else v) for k, v in truth["stances"].items()}
    return doc["stances"] == want


def _describe_stance(doc: dict) -> str:
    if doc["stances"] is None:
        return f"{doc['outcome']}: no stances read"
    lines = [f"{doc['outcome']}:"]
    lines += [f"  {cid}: {'null' if v is None else f'{v:+d}'}" for cid, v in doc["stances"].items()]
    lines += [f"  not on the table: {k} = {v!r}" for k, v in doc["unknown"].items()]
    return "\n".join(lines)


def read_crux_cards(text: str, options: dict) -> dict:
    cards, doc = read_reply(lambda t: parsing.crux_cards(reply_object(t)), text)
    return {"cards": cards or [], **doc}


def crux_cards_agree(doc: dict, truth: dict) -> bool:
    """Each card's question (and, where the truth gives them, its message ids) in order."""
    norm = lambda q: " ".join(q.split()).casefold()  # noqa: E731
    if [norm(c["question"]) for c in doc["cards"]] != [norm(q) for q in truth["questions"]]:
        return False
    return "messages" not in truth or [c["messages"] for c in doc["cards"]] == truth["messages"]


def _describe_crux_cards(doc: dict) -> str:
    lines = [f"{doc['outcome']}: {len(doc['cards'])} card(s)"]
    for k, c in enumerate(doc["cards"], start=1):
        lines += [f"  {k}. {c['question']}", f"     {c['diagnosis']}  [{', '.join(c['messages'])}]"]
    return "\n".join(lines)


INSTRUMENTS = [
    Instrument(name="cruxes", title="crux recurrence (CR) over repeated debates' crux questions",
               read=read_cruxes,
               agrees=lambda doc, truth: doc["cr"] is not None and abs(doc["cr"] - truth["cr"]) <= CR_TOLERANCE,
               describe=_describe,
               options=(Option("--equivalence", "how two cruxes are found to ask the same question",
                               equivalence.DEFAULT, equivalence.METHODS),
                        Option("--model", "with --equivalence model: the litellm model that checks near pairs"),
                        Option("--api-base", "with --model: the server's base URL"),
                        Option("--api-key-env", "with --model: the environment variable holding its key (\"none\": "
                               "a keyless local server; default: the provider's usual one)")),
               input_help=RUNS_HELP, example="cruxes.json"),
    Instrument(name="graph", title="a belief graph's JSON reply (nodes with credences, edges)",
               read=read_graph, agrees=unusable_or(graph_agrees), describe=_describe_graph, flag_can_agree=True,
               options=(Option("--size", "the number of nodes the graph was asked for", "20"),),
               input_help="a model's reply to the belief-graph prompt", example="graph.txt --size 20"),
    Instrument(name="stance", title="a stance extraction's JSON reply (each claim's stance, -2..+2 or null)",
               read=read_stance, agrees=unusable_or(stance_agrees), describe=_describe_stance, flag_can_agree=True,
               options=(Option("--claims", "the claim ids on the table, comma-separated (e.g. c1,c2)"),),
               input_help="a model's reply to the stance prompt", example="stance.txt --claims c1,c2"),
    Instrument(name="crux-card", title="the moderator's crux cards (question, diagnosis, messages)",
               read=read_crux_cards, agrees=unusable_or(crux_cards_agree), describe=_describe_crux_cards,
               flag_can_agree=True, input_help="a model's reply to the crux-card prompt", example="cards.txt"),
]
