"""Benchmark of the model gateway against the loopback server (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/gateway_bench.py [--calls 200]

1. Overhead per call at concurrency 1, 8 and 64: the same streamed requests are
   made through bare `litellm.acompletion` and through `Gateway.call` (which adds
   the replay lookup, the concurrency cap, hashing, the JSONL log append and the
   store insert); overhead = (gateway wall time - bare wall time) / calls.
2. 200 calls with 200 ms server latency at concurrency 32: wall time divided by
   the ideal 200 x 0.2 s / 32 = 1.25 s. (Seven waves of 32 are needed for 200
   calls, so 7 x 0.2 = 1.4 s, a ratio of 1.12, is the floor for any client.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store import open_store  # noqa: E402
from tests.support.loopback import DUMMY_KEY, LoopbackServer  # noqa: E402
from workbench.gateway import CallRequest, GatewayConfig, ModelSettings, build_gateway  # noqa: E402
from workbench.gateway.transport import litellm_kwargs, litellm_module  # noqa: E402

ANSWER = "A short streamed answer of about a dozen words, in several chunks."


def _answer(body: dict) -> str:
    return ANSWER


def _serve(latency: float, conn) -> None:
    """Run a loopback server in its own process, so its work does not share the client's GIL."""
    with LoopbackServer(_answer, latency=latency) as server:
        conn.send(server.url)
        conn.recv()  # until the benchmark says stop
        conn.send(server.max_in_flight)


@contextlib.contextmanager
def server_process(latency: float):
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_serve, args=(latency, child), daemon=True)
    proc.start()
    stats: dict = {}
    try:
        yield parent.recv(), stats
    finally:
        parent.send("stop")
        stats["max_in_flight"] = parent.recv()
        proc.join(timeout=10)


def settings_for(url: str) -> ModelSettings:
    return ModelSettings(model="openai/bench", api_base=url, temperature=0.0, max_tokens=64, timeout=30.0)


def messages(tag: str, i: int) -> list[dict]:
    return [{"role": "user", "content": f"benchmark {tag} call {i}: what should we decide?"}]


async def bare_litellm(settings: ModelSettings, n: int, concurrency: int, tag: str) -> float:
    litellm = litellm_module()
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            stream = await litellm.acompletion(**litellm_kwargs(settings, messages(tag, i), None))
            async for _chunk in stream:
                pass

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - started


async def through_gateway(gateway, settings: ModelSettings, n: int, tag: str) -> float:
    started = time.perf_counter()
    await asyncio.gather(*(gateway.call(CallRequest(messages=messages(tag, i), settings=settings, study_id=tag))
                           for i in range(n)))
    return time.perf_counter() - started


async def main(calls: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="gateway-bench-"))
    db_path = tmp / "bench.db"
    db = open_store(db_path)
    import os

    os.environ.setdefault("OPENAI_API_KEY", DUMMY_KEY)
    with server_process(0.0) as (url, _stats):
        settings = settings_for(url)
        # Warm up: imports, connection pools, the store.
        await bare_litellm(settings, 8, 8, "warm")
        await through_gateway(build_gateway(db, db_path, config=GatewayConfig(concurrency=8)), settings, 8, "warm")

        print(f"gateway overhead per call, {calls} streamed calls against the loopback server (0 ms latency)")
        print("(wall = wall time / calls; cpu = this process's CPU time / calls, steadier on a busy machine)")
        print(f"{'concurrency':>11}  {'bare wall':>10}  {'gw wall':>10}  {'overhead':>10}  "
              f"{'bare cpu':>10}  {'gw cpu':>10}  {'overhead':>10}")
        for concurrency in (1, 8, 64):
            gateway = build_gateway(db, db_path, config=GatewayConfig(concurrency=concurrency))
            c0 = time.process_time()
            bare = await bare_litellm(settings, calls, concurrency, f"bare-{concurrency}")
            c1 = time.process_time()
            gw = await through_gateway(gateway, settings, calls, f"gw-{concurrency}")
            c2 = time.process_time()
            ms = [x / calls * 1000 for x in (bare, gw, gw - bare, c1 - c0, c2 - c1, (c2 - c1) - (c1 - c0))]
            print(f"{concurrency:>11}  " + "  ".join(f"{v:>7.2f} ms" for v in ms))

    with server_process(0.2) as (url, stats):
        settings = settings_for(url)
        n, concurrency = 200, 32
        gateway = build_gateway(db, db_path, config=GatewayConfig(concurrency=concurrency))
        wall = await through_gateway(gateway, settings, n, "latency")
    ideal = n * 0.2 / concurrency
    floor = -(-n // concurrency) * 0.2
    print(f"\n{n} calls, 200 ms server latency, concurrency {concurrency}: wall {wall:.3f} s, "
          f"ideal {ideal:.3f} s, ratio {wall / ideal:.2f} (wave floor {floor:.1f} s = ratio {floor / ideal:.2f})")
    print(f"max requests in flight at the server: {stats['max_in_flight']}")
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per overhead measurement (default 200)")
    asyncio.run(main(parser.parse_args().calls))
