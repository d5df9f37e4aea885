"""Capture real replies for the instruments' corpus (issue 41): B3 replies, seconds and votes from a small local
model, written as corpus entries whose truth a person then fills in by reading each reply.

    PYTHONPATH=. /work/venv-real/bin/python benchmarks/capture_replies.py --gguf PATH --source NAME --out FILE
        [--b3 6] [--seconds 4] [--votes 4] [--max-tokens 450]

Starts llama-cpp-python's server on the GGUF (tests/realmodel/server.py, a free loopback port), sends the
shipped prompts through the gateway (B3_PROMPT on the Glenda/Crock and Blast Radius scenarios, C2_SECOND and
C2_VOTE_MOTION with a one-line motion), each with its own seed, and stops the server. Every entry is written
with `truth` left for the reader: `read` never fills it (the instruments' own reading is printed beside each
reply, to be checked, not copied).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

MOTION = "The organization refuses Crock's demands, reports the threats to regulators and briefs its funders."
MINUTES = "[Chair] The chair opened the meeting and read the scenario."


def prompts(b3: int, seconds: int, votes: int) -> list[tuple[str, str, str]]:
    """(instrument, id, prompt) for each capture."""
    from workbench.cases.parse import parse_file
    from workbench.protocols.hindsight.architectures.prompts import B3_PROMPT, C2_SECOND, C2_VOTE_MOTION, SITUATION

    def scenario(case: str) -> str:
        return SITUATION.format(scenario=parse_file(REPO / "cases" / f"{case}.md").case.scenario.strip())

    committee = dict(situation=scenario("glenda-crock"), briefing="", minutes=MINUTES, motion=MOTION)
    # the short replies first: a capture stopped early on a slow machine still has seconds and votes
    out = [("second", f"second-{k}", C2_SECOND.format(**committee, mover="Strategist")) for k in range(1, seconds + 1)]
    out += [("vote", f"vote-{k}", C2_VOTE_MOTION.format(**committee)) for k in range(1, votes + 1)]
    out += [("b3", f"b3-{case}-{k}", B3_PROMPT.format(situation=scenario(case), layout="", report=""))
            for k in range(1, b3 + 1) for case in ("glenda-crock", "blast-radius")][:b3]
    return out


def ask_all(api_base: str, items: list[tuple[str, str, str]], max_tokens: int, done) -> list[str]:
    from workbench.gateway import CallRequest, build_gateway
    from workbench.gateway.api import ModelSettings
    from workbench.paths import open_workbench_store

    folder = Path(tempfile.mkdtemp(prefix="capture-"))
    db = open_workbench_store(folder / "capture.db")
    gateway = build_gateway(db, folder / "capture.db")

    async def every() -> list[str]:
        replies = []
        for n, (instrument, ident, prompt) in enumerate(items, start=1):
            settings = ModelSettings(model="openai/local", api_base=api_base, api_key_env="none", temperature=0.8,
                                     seed=n, max_tokens=max_tokens if instrument == "b3" else 120, timeout=1800)
            request = CallRequest(messages=[{"role": "user", "content": prompt}], settings=settings,
                                  role="capture", study_id=None, turn=ident, agent="capture")
            replies.append((await gateway.call(request, None)).text)
            done(instrument, ident, replies[-1])  # written as it comes: a slow machine may stop the capture early
        return replies

    return asyncio.run(every())


def toml_entry(instrument: str, ident: str, source: str, text: str, reading: dict) -> str:
    safe = text.replace("'''", "' ' '")
    return (f"[[entry]]\n# {instrument}; the instrument read: {reading}\nid = \"{source}-{ident}\"\n"
            f"source = \"{source}\"\nlayout = \"real reply\"\nnote = \"\"\ntext = '''{safe}'''\n"
            f"[entry.truth]\n# TO BE READ BY A PERSON\n\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", required=True, type=Path)
    parser.add_argument("--source", required=True, help="the model's name in the corpus, e.g. gemma-3-270m")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--b3", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--votes", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=450)
    parser.add_argument("--threads", type=int, default=2, help="the server's threads (1 on a crowded machine: "
                        "llama.cpp's threads wait on each other, and a busy core stalls both)")
    parser.add_argument("--chat-format", help="for a GGUF without a chat template, e.g. gemma (gemma-3-270m)")
    args = parser.parse_args(argv)
    os.environ["WORKBENCH_REALMODEL_GGUF"] = str(args.gguf)
    from tests.realmodel.server import start_server
    from workbench.instruments.registry import get

    items = prompts(args.b3, args.seconds, args.votes)

    def done(instrument: str, ident: str, text: str) -> None:
        doc = get(instrument).read(text, {"asked": "3-5"} if instrument == "b3" else {})
        reading = {k: v for k, v in doc.items() if k in ("count", "perspectives", "second", "vote", "flagged")}
        with args.out.open("a", encoding="utf-8") as out:
            out.write(toml_entry(instrument, ident, args.source, text, reading))

    with tempfile.TemporaryDirectory(prefix="capture-log-") as logs:
        server = start_server(Path(logs), n_ctx=4096, threads=args.threads, chat_format=args.chat_format)
        try:
            replies = ask_all(server.api_base, items, args.max_tokens, done)
        finally:
            server.stop()
    print(f"{len(replies)} replies written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
