"""Benchmark of the live Runs screen (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/runs_screen_bench.py [--words 120] [--delay 0.01]

A study of one case x B1 B2 B3 C1 C2 runs headless in the Runs screen against
the loopback server, which streams every reply word by word. Measured twice:
with no transcript open, and with the C2 committee's transcript open (the
heaviest: parallel turns streaming into panels). For each it prints the wall
time, the token events the sink received, the event-loop lag (how late a
10 ms timer fires: what a key press waits for) at the median, the 95th
percentile and the maximum, and the time for the grid cursor to answer a key
pressed mid-run. The same study run by the batch core with a null sink gives
the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "screens"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.loopback import DUMMY_KEY, LoopbackServer, Reply  # noqa: E402

CONDITIONS = ("B1", "B2", "B3", "C1", "C2")


def study_text(url: str) -> str:
    return (f'name = "bench"\ncases = ["coercion-drill"]\nconditions = {list(CONDITIONS)!r}\n'
            f'rubrics = ["fixture-rubric"]\n[model]\nname = "openai/bench"\napi_base = "{url}"\n'
            "max_tokens = 512\ntimeout = 60\n").replace("'", '"')


def fresh_store(workdir: Path) -> Path:
    if workdir.exists():
        shutil.rmtree(workdir)
    (workdir / "cases").mkdir(parents=True)
    fixtures = ROOT / "tests" / "screens" / "fixtures"
    shutil.copytree(fixtures / "cases", workdir / "cases", dirs_exist_ok=True)
    shutil.copytree(fixtures / "rubrics", workdir / "rubrics")
    os.environ["WORKBENCH_CASES_DIR"] = str(workdir / "cases")
    os.environ["WORKBENCH_RUBRICS_DIR"] = str(workdir / "rubrics")
    return workdir / "store.db"


async def screen_run(db_path: Path, url: str, open_transcript: bool) -> dict:
    from textual import events

    from screens.runs import RunsScreen
    from study_screen_helpers import OneScreenApp
    from workbench.studies import create_study

    app = OneScreenApp(db_path, RunsScreen)
    create_study(app.db, text=study_text(url))
    lags: list[float] = []
    key_waits: list[float] = []

    async def monitor() -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - t - 0.01)

    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = app.screen
        grid = screen.query_one("#run-grid")
        if open_transcript:
            await pilot.press("down", "down", "down", "down", "enter")  # C2
        started = time.perf_counter()
        watcher = asyncio.create_task(monitor())
        await pilot.press("s")
        while screen.summary is None and screen.outcome is None:
            await pilot.pause(0.25)
            if screen.live is not None and screen.live.events and len(key_waits) < 20:
                row = grid.cursor_row
                t = time.perf_counter()
                # posted as the terminal driver posts it (Pilot.press would also wait for the app to idle)
                app.post_message(events.Key("up" if row else "down", None))
                while grid.cursor_row == row:
                    await asyncio.sleep(0.001)
                key_waits.append(time.perf_counter() - t)
        elapsed = time.perf_counter() - started
        watcher.cancel()
        tokens = sum(len(e.pieces) for m in screen.live.transcripts.values() for e in m.entries
                     if hasattr(e, "pieces"))
        done = screen.summary.runs.get("done") if screen.summary else None
    return {"elapsed": elapsed, "lags": lags, "keys": key_waits, "tokens": tokens, "done": done}


async def batch_run(db_path: Path, url: str) -> float:
    from store import open_store
    from workbench.gateway import build_gateway
    from workbench.cases.library import bootstrap
    from workbench.runs.runner import run_study
    from workbench.studies import create_study

    db = open_store(db_path)
    bootstrap(db)
    create_study(db, text=study_text(url))
    started = time.perf_counter()
    await run_study(db, build_gateway(db, db_path), "bench")
    db.close()
    return time.perf_counter() - started


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=120, help="words per reply, one stream chunk each")
    parser.add_argument("--delay", type=float, default=0.01, help="seconds between chunks")
    args = parser.parse_args()
    os.environ["OPENAI_API_KEY"] = DUMMY_KEY
    reply = " ".join(f"word{i}" for i in range(args.words))
    server = LoopbackServer(lambda body: Reply.text(reply, chunk_delay=args.delay)).start()
    from workbench.gateway.transport import litellm_module

    litellm_module()  # import once, outside every measurement
    with tempfile.TemporaryDirectory() as tmp:
        floor = asyncio.run(batch_run(fresh_store(Path(tmp) / "batch"), server.url))
        print(f"batch core, null sink: {floor:.1f} s")
        for open_transcript in (False, True):
            r = asyncio.run(screen_run(fresh_store(Path(tmp) / f"tui{open_transcript}"), server.url,
                                       open_transcript))
            label = "C2 transcript open" if open_transcript else "no transcript open"
            print(f"Runs screen, {label}: {r['elapsed']:.1f} s, {r['done']} runs done, {r['tokens']} token events; "
                  f"loop lag median {statistics.median(r['lags']) * 1000:.1f} ms, p95 {pct(r['lags'], .95) * 1000:.1f} "
                  f"ms, max {max(r['lags']) * 1000:.0f} ms; key to cursor median "
                  f"{statistics.median(r['keys']) * 1000:.0f} ms, max {max(r['keys']) * 1000:.0f} ms "
                  f"({len(r['keys'])} keys)")
    server.stop()


if __name__ == "__main__":
    main()
