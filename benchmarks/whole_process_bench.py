"""The calibration judge panel as whole processes, the workbench against Inspect AI (a script, not a test).

    PYTHONPATH=. python benchmarks/whole_process_bench.py [--repeats 3] [--latency 0.2] [--connections 32]

A loopback server (its own process) answers every request after `--latency` seconds with a valid judge
score. The workbench side is `workbench --batch run` of calibration-small with its three judges on that
server (`--max-connections`), as a new process on a store where the study was created beforehand: start-up,
imports, the run and its bookkeeping, exit. The Inspect AI side is a new process that imports Inspect AI and
makes as many requests as the workbench run made (its model API, `max_connections`), then exits. Printed:
each side's wall (the minimum of `--repeats` interleaved repetitions: a busy moment hits both alike), CPU
(user + system) and the ratio. Run it on a quiet machine: on a loaded one the wall mostly measures the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gateway_bench import server_process  # noqa: E402
from tests.support.loopback import DUMMY_KEY  # noqa: E402

JUDGES = ("claude", "gpt4o-mini", "llama")

INSPECT = """
import asyncio, sys
from inspect_ai.model import GenerateConfig, get_model

async def main(url, n, connections):
    model = get_model("openai-api/bench/bench", base_url=url, api_key="{key}", memoize=False,
                      config=GenerateConfig(max_connections=connections, max_retries=0, max_tokens=64,
                                            temperature=0.0))
    await asyncio.gather(*(model.generate(f"score interaction {{i}}: how likely is a good outcome?")
                           for i in range(n)))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""


def study_file(folder: Path, url: str) -> Path:
    interactions = ROOT / "cases" / "calibration" / "example-interactions.jsonl"
    judges = "".join(f'\n[[judges]]\nname = "{j}"\nmodel = "openai/bench"\napi_base = "{url}"\nmax_tokens = 64\n'
                     for j in JUDGES)
    path = folder / "panel.toml"
    path.write_text(f'name = "panel"\nprotocol = "calibration"\n\n[model]\nname = "mock"\nseed = 4004\n{judges}\n'
                    f'[calibration]\ninteractions = "{interactions}"\nper_bin = 20\nsample_size = 60\n'
                    f"judge_retries = 0\n")
    return path


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, CPU) of a whole process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:4]} failed: {proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def answer(body: dict) -> str:
    return '{"score": 0.62, "reason": "the record shows a plausible but uncertain path"}'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the checkout whose workbench runs (default: this one), e.g. /work/main for a before figure")
    args = parser.parse_args()
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY, PYTHONPATH=str(args.tree.resolve()))
    tmp = Path(tempfile.mkdtemp(prefix="whole-process-bench-"))
    walls: dict[str, list[float]] = {"workbench": [], "inspect": []}
    cpus: dict[str, list[float]] = {"workbench": [], "inspect": []}
    calls = 0
    with server_process(args.latency, responder=answer) as (url, _stats):
        base = tmp / "created.db"
        cli = [sys.executable, "-m", "screens.launch", "--batch"]
        subprocess.run([*cli, "--db", str(base), "study", "create", str(study_file(tmp, url))], env=env,
                       cwd=env["PYTHONPATH"], check=True, capture_output=True)
        for rep in range(args.repeats):
            db = tmp / f"run-{rep}.db"
            shutil.copy(base, db)
            wall, cpu = timed([*cli, "--db", str(db), "run", "panel", "--max-connections", str(args.connections)],
                              env)
            walls["workbench"].append(wall)
            cpus["workbench"].append(cpu)
            import sqlite3

            calls = sqlite3.connect(db).execute(
                "SELECT count(*) FROM calls WHERE study_id = 'panel' AND status IN ('ok', 'error')").fetchone()[0]
            wall, cpu = timed([sys.executable, "-c", INSPECT.format(key=DUMMY_KEY), url, str(calls),
                               str(args.connections)], env)
            walls["inspect"].append(wall)
            cpus["inspect"].append(cpu)
    shutil.rmtree(tmp, ignore_errors=True)
    wb, ins = min(walls["workbench"]), min(walls["inspect"])
    print(f"calibration panel ({len(JUDGES)} judges, {calls} requests), {args.latency * 1000:.0f} ms server latency, "
          f"{args.connections} connections, whole processes; minimum of {args.repeats} interleaved repetitions")
    print(f"  workbench ({args.tree})")
    print(f"  workbench --batch run   wall {wb:6.2f} s   CPU {min(cpus['workbench']):6.2f} s")
    print(f"  Inspect AI              wall {ins:6.2f} s   CPU {min(cpus['inspect']):6.2f} s")
    print(f"  ratio (workbench / Inspect AI wall): {wb / ins:.2f}")


if __name__ == "__main__":
    main()
