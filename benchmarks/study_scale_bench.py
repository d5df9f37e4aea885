"""A synthetic study of 100,000 calls on `mock`: memory and CPU per call from the first thousand calls to the
last (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/study_scale_bench.py [--calls 100000] [--calls-per-run 10] [--every 5000]
    PYTHONPATH=. python benchmarks/study_scale_bench.py --study calibration-generated --every 250

A protocol defined here (one item per run, `--calls-per-run` distinct turns per run, every one a network call
to `mock`) is registered in-process, its study created on a new store and run through the shared runner as
`workbench --batch run` runs one, with the batch display writing to /dev/null. Every `--every` calls it
prints the calls done, the CPU (process time) and wall per call over that stretch, and the process's
resident memory and the Python objects allocated (`sys.getallocatedblocks`, which falls back when memory is
freed, unlike RSS); flat columns are what a study of any size should show. Wall is noisy on a shared machine.
`--study NAME` runs a study of studies/ the same way instead (calibration-generated: 3,000 runs of one call).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store import open_store  # noqa: E402
from store.items import add_items  # noqa: E402
from workbench.events import TURN_FINISHED  # noqa: E402
from workbench.protocol import registry  # noqa: E402
from workbench.protocol.base import ItemLoad, MetricsDocument, RunPlan, StudyProtocol  # noqa: E402
from workbench.runs.context import RunOutput, user  # noqa: E402

NAME = "scale-bench"


class ScaleProtocol(StudyProtocol):
    name = NAME
    title = "Scale benchmark: many runs of a few mock calls each"
    section = "scale"

    def conditions(self):
        return ["ask"]

    def check_section(self, data, definition, bad):
        table = data.get("scale", {})
        return {"runs": int(table.get("runs", 1)), "calls_per_run": int(table.get("calls_per_run", 1))}

    def load_items(self, db, study_id, definition, base_dir=None):
        items = [{"id": f"i{i:06d}", "payload": {"question": f"question {i}"},
                  "content_hash": hashlib.sha256(str(i).encode()).hexdigest(), "source": "benchmark"}
                 for i in range(definition["scale"]["runs"])]
        return ItemLoad(added=add_items(db, study_id, items, kind="question"))

    def frozen_artefacts(self, db, study_id, definition):
        return [("item", "all", f"{definition['scale']['runs']} questions")]

    def planned_runs(self, db, study_id, definition):
        return [RunPlan(f"i{i:06d}", "ask", 0) for i in range(definition["scale"]["runs"])]

    def expected_calls(self, definition, plan):
        return definition["scale"]["calls_per_run"]

    async def program(self, ctx):
        texts = []
        for k in range(ctx.definition["scale"]["calls_per_run"]):
            texts.append(await ctx.turn(f"ask-{k}", "asker", [user(f"{ctx.item['question']}, part {k}")],
                                        phase="ask", label="Ask"))
        return RunOutput(text=texts[-1], report={"turns": len(texts)})

    def metrics(self, db, study_id, options=None):
        return MetricsDocument({}, text="")


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Meter:
    """The batch display's sink, plus a line every `every` calls: CPU and wall per call since the last, memory."""

    def __init__(self, display, every: int) -> None:
        self.display, self.every, self.calls = display, every, 0
        self.mark = (time.process_time(), time.perf_counter())

    def watching(self, run_id) -> bool:
        return False

    def emit(self, event) -> None:
        self.display.emit(event)
        if event.kind != TURN_FINISHED:
            return
        self.calls += 1
        if self.calls % self.every == 0:
            cpu, wall = time.process_time(), time.perf_counter()
            print(f"{self.calls:>9}  {(cpu - self.mark[0]) / self.every * 1000:>10.2f}  "
                  f"{(wall - self.mark[1]) / self.every * 1000:>10.2f}  {rss_mb():>10.0f}  "
                  f"{sys.getallocatedblocks() / 1000:>10.0f}", flush=True)
            self.mark = (cpu, wall)


async def main(calls: int, per_run: int, every: int, study_name: str | None) -> None:
    from workbench.cli.run_display import PlainDisplay
    from workbench.gateway import build_gateway
    from workbench.gateway.transport import load_litellm
    from workbench.runs.runner import run_study
    from workbench.studies import create_study

    db_path = Path(tempfile.mkdtemp(prefix="scale-bench-")) / "bench.db"
    db = open_store(db_path)
    if study_name:
        study = create_study(db, Path(__file__).resolve().parent.parent / "studies" / f"{study_name}.toml")["study_id"]
        print(f"study {study} on mock; store {db_path}")
    else:
        registry.register(ScaleProtocol())
        runs = calls // per_run
        study = create_study(db, text=(f'name = "scale"\nprotocol = "{NAME}"\n\n[model]\nname = "mock"\n\n'
                                       f"[scale]\nruns = {runs}\ncalls_per_run = {per_run}\n"),
                             name="scale.toml")["study_id"]
        print(f"{runs} runs x {per_run} calls = {runs * per_run} calls on mock; store {db_path}")
    await load_litellm()
    print(f"{'calls':>9}  {'cpu ms/call':>10}  {'wall ms/call':>10}  {'RSS MB':>10}  {'blocks k':>10}   "
          f"(over each stretch of {every})")
    with open(os.devnull, "w") as devnull:
        meter = Meter(PlainDisplay(devnull), every)
        started = (time.process_time(), time.perf_counter())
        summary = await run_study(db, build_gateway(db, db_path), study, sink=meter)
    cpu, wall = time.process_time() - started[0], time.perf_counter() - started[1]
    print(f"done: {summary.calls} calls, {cpu:.1f} s CPU ({cpu / max(summary.calls, 1) * 1000:.2f} ms a call), "
          f"{wall:.1f} s wall; complete: {summary.complete}")
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--calls-per-run", type=int, default=10)
    parser.add_argument("--every", type=int, default=5000, help="print a line every this many calls")
    parser.add_argument("--study", help="run this study of studies/ instead of the synthetic one")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.calls_per_run, args.every, args.study))
