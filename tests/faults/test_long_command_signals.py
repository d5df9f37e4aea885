"""Every long command answers SIGINT, SIGTERM and SIGHUP as `run` does (issue 34, finding 4): it stops within
two seconds, records what was in flight as cancelled (a call) or rolls it back (a write), prints one line
saying how to resume, exits 130/143/129, and printed its progress on stderr while it worked."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from store import open_store
from tests.support.loopback import DUMMY_KEY, LoopbackServer, Reply
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
STOP_WITHIN = 2.0


class Command:
    """`workbench --batch …` in a subprocess, its stderr read line by line as it comes."""

    def __init__(self, db: Path, *argv: str) -> None:
        env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db),
                                      *argv], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, ready, what: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            assert self.proc.poll() is None, f"ended before {what}: {self.lines}"
            assert time.monotonic() < deadline, f"never {what}: {self.lines}"
            time.sleep(0.02)

    def stop_with(self, sig: int) -> float:
        """Send the signal; returns the seconds until the process exited."""
        sent = time.monotonic()
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)
        took = time.monotonic() - sent
        self._reader.join(timeout=5)
        return took

    def check_interrupted(self, sig: int, took: float, resume: str) -> str:
        assert self.proc.returncode == 128 + sig, self.lines
        assert took < STOP_WITHIN, f"took {took:.1f}s to stop"
        text = "\n".join(self.lines)
        assert "Traceback" not in text, text
        [line] = [x for x in self.lines if x.startswith("workbench:")]
        assert signal.Signals(sig).name in line and f"continue with: {resume}" in line, line
        return line


def cancelled_calls(db: Path) -> int:
    store = open_store(db)
    try:
        return store["calls"].count_where("status = 'cancelled'")
    finally:
        store.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_faultline_graphs_stops_on_a_signal_and_says_how_to_resume(sig, tmp_path, capsys):
    text = (ROOT / "studies/faultline-mock.toml").read_text()
    with LoopbackServer(lambda body: Reply.hung(60)) as server:
        text = text.replace('[faultline.belief_graph]\nname = "mock"',
                            f'[faultline.belief_graph]\nname = "openai/graph"\napi_base = "{server.url}"')
        study = tmp_path / "faultline-mock.toml"
        study.write_text(text)
        db = tmp_path / "s.db"
        assert main(["--batch", "--db", str(db), "study", "create", str(study)]) == 0
        cmd = Command(db, "faultline", "graphs", "faultline-mock")
        cmd.wait_for(lambda: server.count >= 1, "sent a graph request")
        cmd.wait_for(lambda: any(x.startswith("faultline graphs:") for x in cmd.lines), "printed progress")
        took = cmd.stop_with(sig)
    cmd.check_interrupted(sig, took, "workbench --batch faultline graphs faultline-mock")
    assert cancelled_calls(db) == 1  # the request in flight, on record


def test_probe_stops_on_sighup_with_its_call_recorded_as_cancelled(tmp_path):
    db = tmp_path / "s.db"
    with LoopbackServer(lambda body: Reply.hung(60)) as server:
        cmd = Command(db, "probe", "glenda-crock", "--model", "openai/probed", "--api-base", server.url)
        cmd.wait_for(lambda: server.count >= 1, "asked the model")
        took = cmd.stop_with(signal.SIGHUP)
    cmd.check_interrupted(signal.SIGHUP, took, "workbench --batch probe glenda-crock")
    assert any(x.startswith("probe glenda-crock: asking openai/probed") for x in cmd.lines)
    assert cancelled_calls(db) == 1


def test_calibration_generate_stops_on_sigint_and_leaves_no_file(tmp_path):
    out = tmp_path / "big.jsonl"
    cmd = Command(tmp_path / "s.db", "calibration", "generate", "--out", str(out), "--per-bin", "2000000")
    cmd.wait_for(lambda: any(x.startswith("generate: ") and not x.startswith("generate: 0/") for x in cmd.lines),
                 "printed progress")
    took = cmd.stop_with(signal.SIGINT)
    line = cmd.check_interrupted(signal.SIGINT, took, f"workbench --batch calibration generate --out {out}")
    assert "was not written" in line
    assert list(tmp_path.glob("big*")) == []  # written whole or not at all: no half file, no temporary


def test_calibration_import_stops_on_sigterm_keeps_whole_batches_and_a_rerun_finishes(tmp_path, capsys):
    from workbench.protocols.calibration.generator import generate, write

    data = tmp_path / "many.jsonl"
    total = write(data, generate(p_grid=[0.2, 0.5, 0.8], per_bin=15000, seed=3, k_true=1.0))
    study = tmp_path / "cal.toml"
    study.write_text((ROOT / "studies/calibration-small.toml").read_text().replace(
        '"../cases/calibration/example-interactions.jsonl"',
        json.dumps(str(ROOT / "cases/calibration/example-interactions.jsonl"))))
    db = tmp_path / "s.db"
    assert main(["--batch", "--db", str(db), "study", "create", str(study)]) == 0
    before = open_store(db)["items"].count
    cmd = Command(db, "calibration", "import", "calibration-small", str(data))
    cmd.wait_for(lambda: any(x.startswith("import: ") and not x.startswith("import: 0/") for x in cmd.lines),
                 "printed progress")
    took = cmd.stop_with(signal.SIGTERM)
    line = cmd.check_interrupted(signal.SIGTERM, took,
                                 f"workbench --batch calibration import calibration-small {data}")
    assert "rolled back" in line
    store = open_store(db)
    kept = store["items"].count - before
    store.close()
    assert 0 <= kept < total
    capsys.readouterr()
    main(["--batch", "--db", str(db), "--json", "calibration", "import", "calibration-small", str(data)])
    again = json.loads(capsys.readouterr().out)
    # what the interrupted import stored is found again, the rest is added (a few generated ids are the
    # shipped example file's own: already present or conflicting, kept as they were)
    assert again["records"] == total
    assert again["already_present"] >= kept and again["added"] > 0
    store = open_store(db)
    assert store["items"].count - before == kept + again["added"]  # nothing lost, nothing twice
    store.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_writing_commands_mechanism_unwinds_the_work_where_it_is(sig):
    """`interruptible` (calibration import and generate, simulate raters): the signal raises Interrupted inside
    the work, so its open transaction or whole-file write unwinds; the handlers are restored after."""
    from workbench.cli.signals import Interrupted, interruptible

    before = signal.getsignal(sig)
    unwound = []
    with pytest.raises(Interrupted) as caught:
        with interruptible("the work", "workbench --batch again", "the write was rolled back"):
            try:
                os.kill(os.getpid(), sig)
                time.sleep(5)  # never reached: the handler raises first
            finally:
                unwound.append(True)
    assert unwound and caught.value.code == 128 + sig
    assert str(caught.value) == (f"{signal.Signals(sig).name}: the work interrupted, the write was rolled back; "
                                 "continue with: workbench --batch again")
    assert signal.getsignal(sig) == before


RATERS = 120  # simulated raters: ~0.1 s each, so the command is seconds from done when the second starts


@pytest.fixture(scope="module")
def mock_study(tmp_path_factory) -> Path:
    """glenda-crock-mock, run (offline), with RATERS raters: the store each test copies."""
    folder = tmp_path_factory.mktemp("mock")
    (folder / "cases").symlink_to(ROOT / "cases")
    names = ", ".join(f'"r{i:03d}"' for i in range(RATERS))
    text = (ROOT / "studies/glenda-crock-mock.toml").read_text()
    assert 'raters = ["rater-a", "rater-b"]' in text
    study = folder / "glenda-crock-mock.toml"
    study.write_text(text.replace('raters = ["rater-a", "rater-b"]', f"raters = [{names}]"))
    db = folder / "s.db"
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["--batch", "--db", str(db), "study", "create", str(study)]) == 0
        assert main(["--batch", "--db", str(db), "run", "glenda-crock-mock"]) == 0
    return db


def copy_store(source: Path, to: Path) -> Path:
    with sqlite3.connect(source) as src, sqlite3.connect(to) as dst:
        src.backup(dst)
    return to


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_simulate_raters_stops_on_a_signal_keeps_whole_packets_and_says_how_to_resume(sig, mock_study, tmp_path,
                                                                                      capsys):
    db = copy_store(mock_study, tmp_path / "s.db")
    cmd = Command(db, "simulate", "raters", "glenda-crock-mock")
    # the second rater started, so the first is stored, and ~RATERS-2 raters (seconds of work) are left
    cmd.wait_for(lambda: any(x.startswith(f"simulate raters: r001 (2/{RATERS})") for x in cmd.lines),
                 "started the second rater")
    took = cmd.stop_with(sig)
    line = cmd.check_interrupted(sig, took, "workbench --batch simulate raters glenda-crock-mock")
    assert "rolled back" in line
    store = open_store(db)
    try:
        scores = {r["rater"]: r["n"] for r in store.query("SELECT rater, count(*) AS n FROM scores GROUP BY rater")}
        [[imported]] = store.execute("SELECT coalesce(sum(scores_written), 0) FROM packet_imports").fetchall()
    finally:
        store.close()
    assert scores.get("r000", 0) > 0 and len(scores) < RATERS  # the rater done is kept, the rest not started
    assert sum(scores.values()) == imported  # every stored score is from a whole imported packet: none half
    capsys.readouterr()  # the resume line's command, for the first raters: the rater done is not scored twice
    assert main(["--batch", "--db", str(db), "--json", "simulate", "raters", "glenda-crock-mock",
                 "--rater", "r000", "--rater", "r001"]) == 0
    again = {f["rater"]: f["scores"] for f in json.loads(capsys.readouterr().out)["raters"]}
    assert again == {"r000": 0, "r001": scores["r000"] - scores.get("r001", 0)}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_metrics_assess_concerns_stops_on_a_signal_with_its_calls_recorded_as_cancelled(sig, mock_study, tmp_path):
    db = copy_store(mock_study, tmp_path / "s.db")
    with LoopbackServer(lambda body: Reply.hung(60)) as server:
        cmd = Command(db, "metrics", "glenda-crock-mock", "--assess-concerns", "--model", "openai/concerns",
                      "--api-base", server.url)
        cmd.wait_for(lambda: server.count >= 1, "asked the concern model")
        took = cmd.stop_with(sig)
    cmd.check_interrupted(sig, took, "workbench --batch metrics glenda-crock-mock --assess-concerns")
    assert any(x.startswith("assessing DQ-3 concern coverage with openai/concerns") for x in cmd.lines)
    store = open_store(db)
    try:
        asked = {r["status"] for r in store.query("SELECT status FROM calls WHERE model = 'openai/concerns'")}
    finally:
        store.close()
    assert asked == {"cancelled"}  # every request in flight on record as cancelled, none left running
