"""Benchmark of the rater desk: key-to-paint latency on a 200-item study (a script that prints figures).

    PYTHONPATH=. python benchmarks/rater_desk_bench.py [--items 200] [--keys 60]

A frozen, blinded hindsight study of about 200 items (Glenda/Crock, B1–C3 ×
34 replicates, two raters) is seeded in a temporary store; the rater desk is
opened headless at 120×36 and a rater types scores, one number key at a time.
For each key it measures two times: the key's handler (the score written
and committed, the desk's views rebuilt, the widgets updated: what the key
costs the app), and the round trip until the app is idle and painted again
(Textual's pilot; this includes the frame timer and is noisy on a loaded
machine). It prints the median, the 95th percentile and the maximum of each,
and how many times the study's context (definition, frozen cases and rubrics)
was built for those keys — what the desk re-reads per key.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest.mock import patch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "screens"))

from scoring_seed import seed_study  # noqa: E402

from screens.launch import make_app  # noqa: E402
from workbench.blinding import context  # noqa: E402


async def measure(db_path: Path, keys: int) -> tuple[list[float], list[float], int]:
    from screens.scoring import ScoringScreen

    app = make_app(db_path)
    builds = 0
    handler: list[float] = []
    real_action = ScoringScreen.action_score

    def timed_action(self, value):
        started = time.perf_counter()
        real_action(self, value)
        handler.append(time.perf_counter() - started)

    real = context.load_study

    def counting(*args, **kwargs):
        nonlocal builds
        builds += 1
        return real(*args, **kwargs)

    latencies = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("4")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        with patch.object(context, "load_study", counting), patch.object(ScoringScreen, "action_score", timed_action):
            for scoring_module in ("workbench.scoring.core", "workbench.scoring.results"):
                mod = sys.modules.get(scoring_module)
                if mod is not None and hasattr(mod, "load_study"):
                    patch.object(mod, "load_study", counting).start()
            for k in range(keys):
                started = time.perf_counter()
                await pilot.press(str(k % 2))  # a valid score on every criterion (0 or 1)
                await pilot.pause()
                latencies.append(time.perf_counter() - started)
            patch.stopall()
    return latencies, handler, builds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--keys", type=int, default=60)
    args = parser.parse_args()
    replicates = max(1, round(args.items / 6))
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "store.db"
        started = time.perf_counter()
        import scoring_seed

        original = scoring_seed.study_text
        scoring_seed.study_text = lambda *a: original(*a).replace("replicates = 1", f"replicates = {replicates}")
        seed_study(db_path, name="desk-bench", conditions=("B1", "B2", "B3", "C1", "C2", "C3"))
        print(f"seeded a study of {6 * replicates} items in {time.perf_counter() - started:.1f} s")
        latencies, handler, builds = asyncio.run(measure(db_path, args.keys))
    for name, values in (("key handler (write + views + widgets)", handler), ("key to idle and painted", latencies)):
        ms = sorted(x * 1000 for x in values)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        print(f"{name} over {len(ms)} score keys: median {statistics.median(ms):.1f} ms, "
              f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")
    print(f"study context built {builds} times ({builds / len(latencies):.1f} per key)")


if __name__ == "__main__":
    main()
