"""What a real model's output does to each protocol (a script that prints figures, not a test).

    .venv-realmodel/bin/python benchmarks/real_model.py [--only hindsight-local,m11-local]

Starts llama-cpp-python's server with SmolLM2-135M-Instruct (the real-model suite's server, on a free
loopback port), then runs each study of studies/local/ end to end twice in fresh stores: with
schema-constrained decoding (the study's `structured = "json_object"`) and without (`structured = "none"`,
the parser alone). Prints per protocol and mode: requests the server received, the store's sent calls,
wall time, output tokens per second, and the parse rates of each structured step.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.realmodel.kit import CHAINS_BY_STUDY, Workbench, sent_calls, structured_failures  # noqa: E402
from tests.realmodel.server import start_server  # noqa: E402


def _structured_off(path: Path) -> None:
    path.write_text(path.read_text().replace('structured = "json_object"', 'structured = "none"'))


def one(server, study: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"realmodel-{study}-") as tmp:
        wb = Workbench(Path(tmp), server)
        file = wb.study_file(study)
        if mode == "off":
            _structured_off(file)
        before = server.requests()
        t0 = time.perf_counter()
        wb.run("study", "create", str(file))
        for step in CHAINS_BY_STUDY[study]:
            wb.run(*[part.format(s=study) for part in step], ok=(0, 1))
        wb.json("metrics", study)
        wall = time.perf_counter() - t0
        show = wb.json("study", "show", study)
        counts = show["counts"]
        return {"study": study, "mode": mode, "requests": server.requests() - before, "sent": sent_calls(wb.db),
                "wall": wall, "output_tokens": counts.get("output_tokens") or 0,
                "runs": show["runs"], "judged": counts.get("judged", 0), "judge_errors": counts.get("judge_errors", 0),
                "structured": structured_failures(wb.db, study)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated study names (default: every studies/local study)")
    args = ap.parse_args()
    studies = [s for s in CHAINS_BY_STUDY if not args.only or s in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="realmodel-server-") as logs:
        server = start_server(Path(logs))
        try:
            rows = [one(server, study, mode) for study in studies for mode in ("on", "off")]
        finally:
            server.stop()
    print(f"{'study':<20} {'schema':<6} {'requests':>8} {'sent':>5} {'wall s':>7} {'tok/s':>6}  runs")
    for r in rows:
        rate = r["output_tokens"] / r["wall"] if r["wall"] else 0.0
        runs = ", ".join(f"{k} {v}" for k, v in r["runs"].items() if v)
        print(f"{r['study']:<20} {r['mode']:<6} {r['requests']:>8} {r['sent']:>5} {r['wall']:>7.1f} {rate:>6.1f}  {runs}")
    print("\nstructured steps: unparsed / replies (schema on | off)")
    for study in studies:
        on = next(r for r in rows if r["study"] == study and r["mode"] == "on")
        off = next(r for r in rows if r["study"] == study and r["mode"] == "off")
        for step in sorted(set(on["structured"]) | set(off["structured"])):
            fmt = lambda t: f"{t[0]}/{t[1]}" if t else "-"  # noqa: E731
            print(f"  {study:<20} {step:<28} {fmt(on['structured'].get(step)):>10} | "
                  f"{fmt(off['structured'].get(step)):>10}")
        if on["judged"] or off["judged"]:
            print(f"  {study:<20} {'judge errors':<28} {on['judge_errors']}/{on['judged']:>7} | "
                  f"{off['judge_errors']}/{off['judged']}")
    print(json.dumps(rows, indent=1, default=str), file=sys.stderr)


if __name__ == "__main__":
    main()
