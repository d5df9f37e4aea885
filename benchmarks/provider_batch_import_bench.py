"""Importing a finished provider batch's results: 50,000 by default (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/provider_batch_import_bench.py [--results 50000] [--model openai/gpt-4o-mini]

A batch of `--results` requests is stored as `run --provider-batch` stores one before sending it; then its
output file, as a provider returns it, is read and every result recorded the way a resumed run records it
(`Batcher._collect`: the call log lines, the call rows and the requests' states, `RECORD_CHUNK` results per
log write and commit). Every result has its own token counts (no two alike: the worst case for the price,
which litellm computes per distinct count, at the batch and at the direct rate). Printed: the CPU (process
time) and wall of the import, per result too, the batch's cost, and whether `log verify` holds. Wall is
noisy on a shared machine; `--model openai/bench` (a model with no price) shows the import without pricing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store import open_store  # noqa: E402
from store import provider_batches as batch_rows  # noqa: E402
from workbench.gateway import build_gateway  # noqa: E402
from workbench.gateway.logcheck import check_log  # noqa: E402
from workbench.gateway.provider_batch import Batcher, ProviderBatchConfig  # noqa: E402
from workbench.gateway.transport import litellm_module  # noqa: E402

STUDY = "batch-import-bench"


class OutputFile:
    """The provider's side: the batch's output file, one JSON line per result."""

    def __init__(self, keys: list[str]) -> None:
        self.content = "\n".join(json.dumps({"custom_id": key, "response": {"status_code": 200, "body": {
            "choices": [{"message": {"content": f"answer {i}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 40 + i % 997, "completion_tokens": 12 + i % 89}}}}) for i, key in enumerate(keys)).encode()

    async def call(self, name: str, **kwargs):
        assert name == "afile_content"
        return SimpleNamespace(content=self.content)


def stored_batch(db, n: int, model: str) -> list[str]:
    keys = [f"{i:064x}" for i in range(n)]
    record = {"study_id": STUDY, "run_id": None, "turn": "judge", "agent": "judge", "role": "judge",
              "attempt": 1, "model": model, "api_base": "http://127.0.0.1:9/v1", "replicate": 0,
              "sample": 0, "settings": {"temperature": 0.0}, "started_at": "2026-11-26T00:00:00+00:00"}
    requests = [(key, {**record, "call_key": key, "messages": [{"role": "user", "content": f"question {i}"}]})
                for i, key in enumerate(keys)]
    batch_rows.add_batch(db, {"id": "bench", "study_id": STUDY, "provider": "openai", "api_base": record["api_base"],
                              "model": record["model"], "provider_batch_id": "batch_bench", "state": "completed",
                              "requests": n, "created_at": record["started_at"],
                              "updated_at": record["started_at"]}, requests)
    return keys


async def main(n: int, model: str) -> None:
    db_path = Path(tempfile.mkdtemp(prefix="batch-import-bench-")) / "bench.db"
    db = open_store(db_path)
    gateway = build_gateway(db, db_path)
    keys = stored_batch(db, n, model)
    batcher = Batcher(gateway, ProviderBatchConfig())
    state = SimpleNamespace(output_file_id="file-out", error_file_id=None, status="completed")
    litellm_module()  # imported before the clock: a resumed run has it already (prices come from its map)
    c0, w0 = time.process_time(), time.perf_counter()
    await batcher._collect("bench", state, OutputFile(keys))
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    recorded = db.execute("SELECT count(*) FROM calls WHERE study_id = ? AND status = 'ok'", [STUDY]).fetchone()[0]
    check = check_log(db, STUDY, gateway.log_path(STUDY))
    cost = db.execute("SELECT cost, direct_cost FROM provider_batches WHERE id = 'bench'").fetchone()
    print(f"{n} results of {model} imported: {recorded} calls recorded (batch cost {cost[0]}, direct {cost[1]}); CPU {cpu:.1f} s ({cpu / n * 1000:.2f} ms a result), "
          f"wall {wall:.1f} s; log verify: {'holds' if check.ok else check.problems[0]}")
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=50_000)
    parser.add_argument("--model", default="openai/gpt-4o-mini",
                        help="the batch's model: a model in litellm's cost map is priced per result (batch and direct)")
    args = parser.parse_args()
    asyncio.run(main(args.results, args.model))
