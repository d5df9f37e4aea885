"""The first attempt's timeout holds like the others: litellm's import (seconds) no longer runs on the
event loop inside the first attempt, where no timer could fire."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.loopback import DUMMY_KEY, LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 1.0

# A fresh interpreter: litellm is not imported yet, as in a batch command's first call.
SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from store import open_memory_store
    from workbench.gateway import CallRequest, GatewayError, ModelSettings, build_gateway
    from workbench.gateway.client import GatewayConfig
    from workbench.gateway.retry import RetryPolicy

    assert "litellm" not in sys.modules
    db = open_memory_store()
    policy = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.01, max_total=60)
    gateway = build_gateway(db, None, config=GatewayConfig(retry=policy))
    request = CallRequest(messages=[{"role": "user", "content": "hello"}],
                          settings=ModelSettings(model="openai/slow", api_base=sys.argv[1], timeout=float(sys.argv[2])))
    try:
        asyncio.run(gateway.call(request))
    except GatewayError as exc:
        print(json.dumps({"error": str(exc), "latency_ms": [r["latency_ms"] for r in db["calls"].rows]}))
""")


def test_the_first_attempt_times_out_on_time(tmp_path):
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY,
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with LoopbackServer(lambda body: Reply(hang=30)) as server:
        done = subprocess.run([sys.executable, "-c", SCRIPT, server.url, str(TIMEOUT)], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert f"no whole reply within {TIMEOUT:g}s (timeout)" in result["error"]
    first, second = result["latency_ms"]
    # each attempt lasts its timeout, give or take scheduling; before, the first also held the import
    assert TIMEOUT * 1000 <= first < TIMEOUT * 1000 + 500, result
    assert abs(first - second) < 500, result
