"""Benchmark of the model gateway against the loopback server (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/gateway_bench.py [--calls 200] [--repeats 3]

1. Overhead per call at concurrency 1, 8 and 64: the same requests are made
   through bare `litellm.acompletion` and through `Gateway.call` (which adds
   the replay lookup, the concurrency cap, hashing, the JSONL log append and the
   store insert); overhead = (gateway - bare) / calls, in wall and CPU time.
2. 200 calls at 32 connections against a server that waits 200 ms before it
   answers, side by side in one run: the gateway (whole replies, as batch
   commands make them, and streamed, as `--stream` or a watched transcript
   does), bare litellm (streamed and not) and Inspect AI's model API
   (`max_connections=32`). Each figure is the minimum of `--repeats`
   interleaved repetitions; the wave floor is ceil(200 / 32) x 0.2 s = 1.4 s.
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


def _serve(latency: float, conn, responder=_answer) -> None:
    """Run a loopback server in its own process, so its work does not share the client's GIL."""
    with LoopbackServer(responder, latency=latency) as server:
        conn.send(server.url)
        conn.recv()  # until the benchmark says stop
        conn.send(server.max_in_flight)


@contextlib.contextmanager
def server_process(latency: float, responder=_answer):
    """The loopback server in its own process; `responder` (a module-level function) answers each request."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_serve, args=(latency, child, responder), daemon=True)
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


async def bare_litellm(settings: ModelSettings, n: int, concurrency: int, tag: str, *, stream: bool = True) -> float:
    litellm = litellm_module()
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            reply = await litellm.acompletion(**litellm_kwargs(settings, messages(tag, i), None, stream=stream))
            if stream:
                async for _chunk in reply:
                    pass

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - started


async def inspect_ai(url: str, n: int, concurrency: int, tag: str) -> float | None:
    """Inspect AI's model API on the same server (None when inspect-ai is not installed)."""
    try:
        from inspect_ai.model import GenerateConfig, get_model
    except ImportError:
        return None
    model = get_model("openai-api/bench/bench", base_url=url, api_key=DUMMY_KEY, memoize=False,
                      config=GenerateConfig(max_connections=concurrency, max_retries=0, max_tokens=64,
                                            temperature=0.0))
    started = time.perf_counter()
    await asyncio.gather(*(model.generate(messages(tag, i)[0]["content"]) for i in range(n)))
    return time.perf_counter() - started


async def through_gateway(gateway, settings: ModelSettings, n: int, tag: str) -> float:
    started = time.perf_counter()
    await asyncio.gather(*(gateway.call(CallRequest(messages=messages(tag, i), settings=settings, study_id=tag))
                           for i in range(n)))
    return time.perf_counter() - started


async def comparison(db, db_path: Path, repeats: int) -> None:
    n, concurrency, latency = 200, 32, 0.2
    floor = -(-n // concurrency) * latency
    clients = {
        "gateway, whole replies (batch commands)": lambda s, tag: through_gateway(
            build_gateway(db, db_path, config=GatewayConfig(concurrency=concurrency)), s, n, tag),
        "gateway, streamed (--stream, a watched transcript)": lambda s, tag: through_gateway(
            build_gateway(db, db_path, config=GatewayConfig(concurrency=concurrency, stream=True)), s, n, tag),
        "bare litellm.acompletion(stream=False)": lambda s, tag: bare_litellm(s, n, concurrency, tag, stream=False),
        "bare litellm.acompletion(stream=True)": lambda s, tag: bare_litellm(s, n, concurrency, tag, stream=True),
        "Inspect AI model API (max_connections=32)": lambda s, tag: inspect_ai(s.api_base, n, concurrency, tag),
    }
    walls: dict[str, list[float]] = {name: [] for name in clients}
    cpus: dict[str, list[float]] = {name: [] for name in clients}
    with server_process(latency) as (url, _stats):
        settings = settings_for(url)
        for rep in range(repeats):  # interleaved: a busy moment of the machine hits every client alike
            for k, (name, run) in enumerate(clients.items()):
                c0 = time.process_time()
                wall = await run(settings, f"cmp-{rep}-{k}")
                if wall is not None:
                    walls[name].append(wall)
                    cpus[name].append(time.process_time() - c0)
    bare = min(walls["bare litellm.acompletion(stream=False)"])
    print(f"\n{n} calls, {latency * 1000:.0f} ms server latency, {concurrency} connections; minimum of {repeats} "
          f"interleaved repetitions; wave floor {floor:.2f} s")
    print(f"{'client':<52} {'wall':>8} {'/bare':>6} {'/floor':>7} {'cpu/call':>9}")
    for name in clients:
        if not walls[name]:
            print(f"{name:<52} {'not installed':>8}")
            continue
        wall = min(walls[name])
        print(f"{name:<52} {wall:>7.2f}s {wall / bare:>6.2f} {wall / floor:>7.2f} "
              f"{min(cpus[name]) / n * 1000:>7.2f}ms")


async def main(calls: int, repeats: int) -> None:
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

        print(f"gateway overhead per call, {calls} whole-reply calls against the loopback server (0 ms latency)")
        print("(wall = wall time / calls; cpu = this process's CPU time / calls, steadier on a busy machine)")
        print(f"{'concurrency':>11}  {'bare wall':>10}  {'gw wall':>10}  {'overhead':>10}  "
              f"{'bare cpu':>10}  {'gw cpu':>10}  {'overhead':>10}")
        for concurrency in (1, 8, 64):
            gateway = build_gateway(db, db_path, config=GatewayConfig(concurrency=concurrency))
            c0 = time.process_time()
            bare = await bare_litellm(settings, calls, concurrency, f"bare-{concurrency}", stream=False)
            c1 = time.process_time()
            gw = await through_gateway(gateway, settings, calls, f"gw-{concurrency}")
            c2 = time.process_time()
            ms = [x / calls * 1000 for x in (bare, gw, gw - bare, c1 - c0, c2 - c1, (c2 - c1) - (c1 - c0))]
            print(f"{concurrency:>11}  " + "  ".join(f"{v:>7.2f} ms" for v in ms))

    await comparison(db, db_path, repeats)
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per overhead measurement (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions of the comparison")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.repeats))
