"""Provider batch mode at scale (a script that prints figures, not a test).

    PYTHONPATH=. python benchmarks/provider_batch_bench.py [--sample 1000]

A calibration study of `--sample` interactions x 3 judges (3,000 judge calls by default) runs with
`run --provider-batch` against the loopback server that speaks OpenAI's Files and Batches endpoints. The
first run is killed (SIGKILL) while its batches are open at the "provider"; `run --resume --provider-batch`
then finishes it. Printed: the calls, the batches created and uploaded (each once), the requests the
provider answered (each once), the wall time of the resume, and whether `log verify` holds.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from store import open_store  # noqa: E402
from store import provider_batches as batch_rows  # noqa: E402
from tests.protocols.calibration.test_calibration_e2e import score  # noqa: E402
from tests.support.batch_server import BatchServer  # noqa: E402
from tests.support.loopback import DUMMY_KEY  # noqa: E402

JUDGES = ("claude", "gpt4o-mini", "llama")


def study_text(url: str, sample: int) -> str:
    judges = "".join(f'\n[[judges]]\nname = "{j}"\nmodel = "openai/{j}"\napi_base = "{url}"\n' for j in JUDGES)
    per_bin = -(-sample // 10)
    return (f'name = "cal-batch-bench"\nprotocol = "calibration"\n\n[model]\nname = "mock"\nseed = 5\n{judges}\n'
            f"[calibration]\nsample_size = {sample}\nper_bin = {per_bin}\n\n"
            f"[calibration.generator]\nper_bin = {2 * per_bin}\nseed = 9\n")


def cli(db: Path, *argv: str, log: Path | None = None) -> subprocess.Popen:
    """The command in a subprocess; with `log`, its stderr (the run display) goes there, not to a pipe that
    nobody reads until the end (a full pipe would block the run)."""
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY, PYTHONPATH=str(ROOT))
    err = open(log, "w") if log else subprocess.PIPE
    return subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db), *argv],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE if not log else err, stderr=err)


def batches(db_path: Path) -> list[dict]:
    db = open_store(db_path)
    try:
        return batch_rows.batches_for(db, "cal-batch-bench")
    finally:
        db.close()


def main(sample: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="provider-batch-bench-"))
    db = tmp / "store.db"
    with BatchServer(score, polls_to_complete=10**9) as server:
        study = tmp / "study.toml"
        study.write_text(study_text(server.url, sample))
        out, err = cli(db, "study", "create", str(study)).communicate()
        print(out.decode().strip())
        fast = ["--provider-batch", "--provider-batch-poll", "0.2"]
        t0 = time.perf_counter()
        first = cli(db, "run", "cal-batch-bench", *fast, log=tmp / "first-run.log")
        while sum(bool(b["provider_batch_id"]) for b in batches(db)) < len(JUDGES):
            if first.poll() is not None:
                raise SystemExit(f"the run ended before the kill: see {tmp / 'first-run.log'}")
            time.sleep(0.1)
        sent = time.perf_counter() - t0
        time.sleep(1.0)
        first.send_signal(signal.SIGKILL)
        first.wait()
        print(f"first run: {len(batches(db))} batches sent in {sent:.1f} s, then killed with them open "
              f"({server.count} requests answered)")

        server.polls_to_complete = 1
        t1 = time.perf_counter()
        resume = cli(db, "run", "cal-batch-bench", "--resume", *fast, log=tmp / "resume.log")
        resume.wait()
        out = (tmp / "resume.log").read_bytes()
        resumed = time.perf_counter() - t1
        tail = [line for line in out.decode().splitlines() if line.startswith("study counts")]
        print(f"resume: {resumed:.1f} s; {tail[0] if tail else out.decode().strip()[-300:]}")
        print(f"batches created {server.batches_created}, files uploaded {server.uploads}, requests answered "
              f"{server.count} (each once: {server.count == sum(b['requests'] for b in batches(db))})")
        verify = cli(db, "log", "verify", "cal-batch-bench")
        vout, _ = verify.communicate()
        print(f"log verify: exit {verify.returncode}: {vout.decode().strip().splitlines()[-1]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1000, help="interactions judged by each of 3 judges")
    main(parser.parse_args().sample)
