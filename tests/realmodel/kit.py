"""What the real-model suite and benchmarks/real_model.py share: the local studies, the command chain each
protocol's study lists, the workbench as a subprocess, and how many calls the store recorded as sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import sqlite_utils

from tests.realmodel.server import LocalServer

REPO = Path(__file__).resolve().parents[2]
LOCAL_STUDIES = REPO / "studies" / "local"
SHIPPED_PORT = "127.0.0.1:8011"

# The commands each protocol's example study lists in its opening comment, between create and report.
CHAINS_BY_STUDY = {
    "hindsight-local": [["run", "{s}"], ["judge", "{s}"]],
    "faultline-local": [["faultline", "graphs", "{s}"], ["run", "{s}"]],
    "m11-local": [["run", "{s}"]],
    "calibration-local": [["run", "{s}"]],
}
INTERRUPTED = ("without a finish reason", "interrupted", "connection", "stalled", "no first token")


def structured_failures(db_path, study: str) -> dict[str, tuple[int, int]]:
    """step -> (replies that did not parse, replies) for the structured steps that send a schema: the
    hindsight report-shape extraction and the calibration judges (the judges of hindsight are in the
    study's counts)."""
    import json

    db = sqlite_utils.Database(db_path)
    reports = [json.loads(r["report"] or "{}") for r in db.query(
        "SELECT o.report FROM outputs o JOIN runs r ON r.id = o.run_id WHERE r.study_id = ?", [study])]
    out: dict[str, tuple[int, int]] = {}
    extractions = [r["extraction"] for r in reports if isinstance(r.get("extraction"), dict)
                   and r["extraction"].get("shape") == "extract"]
    if extractions:
        out["extraction"] = (sum(e.get("status") == "unparsed" for e in extractions), len(extractions))
    judged = [r for r in reports if "judge_error" in r and not r.get("prompt_refused")]
    if judged:
        out["calibration judge"] = (sum(bool(r["judge_error"]) for r in judged), len(judged))
    return out


def sent_calls(db_path) -> int:
    """Attempts the store recorded as sent to the server: answers and errors (not replays, nor attempts
    cancelled in flight, which the suite never makes)."""
    return sqlite_utils.Database(db_path)["calls"].count_where("status in ('ok', 'error')")


class Workbench:
    """`workbench --batch …` as a subprocess on one store, without any API key in its environment."""

    def __init__(self, root: Path, server: LocalServer) -> None:
        self.root = root
        self.server = server
        self.db = root / "store.db"
        self.env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        self.env.update(WORKBENCH_DB=str(self.db), PYTHONPATH=str(REPO))

    def study_file(self, name: str) -> Path:
        """studies/local/NAME.toml pointed at this server's port, with its relative paths kept working."""
        source = LOCAL_STUDIES / f"{name}.toml"
        text = source.read_text().replace(SHIPPED_PORT, f"127.0.0.1:{self.server.port}")
        text = text.replace('"../../', f'"{REPO.as_posix()}/')
        target = self.root / source.name
        target.write_text(text)
        return target

    def run(self, *argv: str, ok: tuple[int, ...] = (0,), timeout: float = 1500) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "screens.launch", "--batch", *argv], cwd=self.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode in ok, (f"workbench --batch {' '.join(argv)} exited {proc.returncode}\n"
                                       f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
        assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
        return proc

    def json(self, *argv: str, ok: tuple[int, ...] = (0,)) -> dict:
        return json.loads(self.run("--json", *argv, ok=ok).stdout)
