"""Time and calls of the shipped faultline example study (studies/faultline-mock.toml) on the offline
mock model, end to end: create, belief graphs, run, a replayed re-run, metrics, report. Prints figures;
asserts nothing about time.

    .venv/bin/python benchmarks/faultline_example.py
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    from store import open_store
    from store.runs import list_runs, start_attempt
    from workbench.gateway import build_gateway
    from workbench.protocols.faultline import PROTOCOL
    from workbench.protocols.faultline.graphs import build_study_graphs
    from workbench.runs.runner import run_study
    from workbench.studies import create_study, load_study

    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "store.db"
        db = open_store(db_path)
        t0 = time.perf_counter()
        sid = create_study(db, ROOT / "studies" / "faultline-mock.toml")["study_id"]
        t1 = time.perf_counter()
        graphs = asyncio.run(build_study_graphs(db, build_gateway(db, db_path), sid, load_study(db, sid)["definition"]))
        t2 = time.perf_counter()
        summary = asyncio.run(run_study(db, build_gateway(db, db_path), sid))
        t3 = time.perf_counter()
        for run in list_runs(db, sid):
            start_attempt(db, run["id"])
        replay = asyncio.run(run_study(db, build_gateway(db, db_path, replay_only=True), sid))
        t4 = time.perf_counter()
        doc = PROTOCOL.metrics(db, sid).document
        t5 = time.perf_counter()
        PROTOCOL.report(db, sid)
        t6 = time.perf_counter()
        print(f"study create            {t1 - t0:6.2f} s")
        print(f"belief graphs           {t2 - t1:6.2f} s  built {graphs['built']}, failed to parse {graphs['failed']}")
        print(f"run                     {t3 - t2:6.2f} s  {sum(summary.runs.values())} runs, {summary.calls} calls "
              f"({summary.network_calls} made, {summary.replayed} replayed)")
        print(f"replay (offline)        {t4 - t3:6.2f} s  {replay.calls} calls, {replay.network_calls} made")
        print(f"metrics (MiniLM)        {t5 - t4:6.2f} s  extraction errors {doc['errors']['extraction_errors']}, "
              f"verdict {doc['headline']['answer']}")
        print(f"report (metrics again)  {t6 - t5:6.2f} s")
        db.close()


if __name__ == "__main__":
    main()
