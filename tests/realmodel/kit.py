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
    "hindsight-local": [["run", "{s}"], ["judge", "{s}"], ["unblind", "{s}"]],
    # a 135M model's belief graphs often fail to parse: the graph condition then runs marked, not refused
    "faultline-local": [["faultline", "graphs", "{s}"], ["run", "{s}", "--allow-missing-graphs"]],
    "m11-local": [["run", "{s}"]],
    "calibration-local": [["run", "{s}"]],
}
# Each study as shipped, but smaller where less proves the same: M11's one item still takes every stage
# (Critic, Defender, Judge, MetaJudge, the binary comparison) and every reply is read again (CI time: 643 s with two).
# Faultline's graph-20 debate takes every stage the plain debate does (openings, a round, closings, crux cards, claim
# and stance extraction) and argues from the belief graphs besides: the plain debate proved nothing more.
SMALLER = {"m11-local": {"limit = 2": "limit = 1"},
           "faultline-local": {'conditions = ["plain", "graph-20", "single"]': 'conditions = ["graph-20", "single"]'}}
INTERRUPTED = ("without a finish reason", "interrupted", "connection", "stalled", "no first token")


# The steps whose unparsed replies the suite holds to 5%, as before the counts were recorded (the hindsight
# judges are held by their judge errors); the others (faultline's steps, M11's stages) are printed by the
# benchmark until a real run sets a bar for them.
HELD_STEPS = ("report extraction", "calibration judge")


def structured_failures(db_path, study: str) -> dict[str, tuple[int, int]]:
    """step -> (unparsed replies, replies) for every structured step of the study, from the parse counts the
    workbench records (workbench.structured.counts: the numbers `metrics` and the report show). A retry after
    an unusable reply is another reply."""
    from workbench.structured.counts import parse_counts

    db = sqlite_utils.Database(db_path)
    try:
        # a reply cut at max_tokens is counted apart (issue 40); the bound holds both, as it did before
        return {c["step"]: (c["unparsed"] + c["cut"], c["replies"]) for c in parse_counts(db, study)}
    finally:
        db.close()


def cut_turns(db_path, run_id: str) -> int:
    """Turns of a run whose answered reply the server ended at max_tokens (finish_reason "length")."""
    rows = sqlite_utils.Database(db_path).execute(
        "SELECT count(DISTINCT turn) FROM calls WHERE run_id = ? AND status = 'ok' AND finish_reason = 'length'",
        [run_id]).fetchone()
    return rows[0]


def truncated_by_condition(db_path, study: str) -> dict[str, dict[str, int]]:
    """condition -> {"outputs", "truncated"}: the finished outputs and those flagged cut, read from the tables."""
    out: dict[str, dict[str, int]] = {}
    for condition, truncated in sqlite_utils.Database(db_path).execute(
            "SELECT r.condition, o.truncated FROM outputs o JOIN runs r ON r.id = o.run_id WHERE r.study_id = ?",
            [study]).fetchall():
        c = out.setdefault(condition, {"outputs": 0, "truncated": 0})
        c["outputs"] += 1
        c["truncated"] += int(truncated)
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

    def variant(self, base: str, name: str, changes: dict[str, str], extra: str = "") -> Path:
        """A copy of studies/local/BASE.toml named NAME with each `old: new` change made (every one must match:
        a change that finds nothing would test the shipped study instead) and `extra` appended."""
        text = self.study_file(base).read_text()
        for old, new in {f'name = "{base}"': f'name = "{name}"', **changes}.items():
            assert old in text, f"{base}.toml has no {old!r} to change"
            text = text.replace(old, new, 1)
        target = self.root / f"{name}.toml"
        target.write_text(text + extra)
        return target

    def run_variant(self, base: str, name: str, changes: dict[str, str]) -> str:
        """Create the variant (see `variant`) and run it; the run's output."""
        self.run("study", "create", str(self.variant(base, name, changes)))
        return self.run("run", name).stdout

    def answered(self, study: str) -> list[tuple[str, int, str]]:
        """(run, max_tokens asked, finish reason) of each call of the study the model answered, in order."""
        rows = sqlite_utils.Database(self.db).execute(
            "SELECT run_id, settings, finish_reason FROM calls WHERE study_id = ? AND status = 'ok' ORDER BY id",
            [study]).fetchall()
        return [(run, json.loads(settings)["max_tokens"], finish) for run, settings, finish in rows]

    def run(self, *argv: str, ok: tuple[int, ...] = (0,), timeout: float = 1500) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "screens.launch", "--batch", *argv], cwd=self.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode in ok, (f"workbench --batch {' '.join(argv)} exited {proc.returncode}\n"
                                       f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
        assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
        return proc

    def json(self, *argv: str, ok: tuple[int, ...] = (0,)) -> dict:
        return json.loads(self.run("--json", *argv, ok=ok).stdout)
