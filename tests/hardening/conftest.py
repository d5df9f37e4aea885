"""Shared by the hardening tests: a small mock study, a store made full, and the batch CLI in-process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import store.db as store_db
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
STUDY = "hardening-mock"


def study_toml(conditions=("B1", "B2", "C2")) -> str:
    """The shipped Glenda/Crock dry run, cut down to a few conditions of the offline mock model."""
    text = (ROOT / "studies" / "glenda-crock-mock.toml").read_text()
    text = text.replace('name = "glenda-crock-mock"', f'name = "{STUDY}"')
    listed = ", ".join(f'"{c}"' for c in conditions)
    return text.replace('conditions = ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]', f"conditions = [{listed}]")


def batch(capsys, db: Path, *argv: str) -> tuple[int, str, str]:
    """Run one batch command in this process; returns (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def signalled(server, db: Path, argv: list[str], sig: int, *, after: int, what: str) -> tuple[list[str], str]:
    """`workbench --batch --db DB ARGV` in a process of its own, sent `sig` once the loopback `server` has had
    `after` requests (the last one in flight); it ended with the signal's exit code and no traceback.
    (its `workbench:` lines on stderr, the whole stderr)"""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db), *argv],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while server.count < after:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{what} never reached the server"
        time.sleep(0.01)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err, err
    return workbench_lines(err), err


def workbench_lines(err: str) -> list[str]:
    """The tool's own lines on stderr (third-party progress bars aside)."""
    return [line for line in err.splitlines() if line.startswith("workbench:")]


@pytest.fixture
def cases_dir(tmp_path, monkeypatch) -> Path:
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    return cases


@pytest.fixture
def created(tmp_path, cases_dir, capsys) -> Path:
    """A store holding the created (not yet run) hardening study; returns the store's path."""
    db = tmp_path / "store.db"
    study_file = tmp_path / f"{STUDY}.toml"
    study_file.write_text(study_toml())
    code, _, err = batch(capsys, db, "study", "create", str(study_file))
    assert code == 0, err
    return db


class FullStore:
    """Makes every store opened from now on full: SQLite's max_page_count caps it at its current
    size plus `headroom` pages, so a write that needs a new page fails with SQLITE_FULL."""

    def __init__(self, monkeypatch) -> None:
        self.monkeypatch = monkeypatch
        self.original = store_db._configure

    def fill(self, headroom: int = 0) -> None:
        original = self.original

        def configure(db, *, wal):
            original(db, wal=wal)
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages + headroom}")

        self.monkeypatch.setattr(store_db, "_configure", configure)

    def fill_to_the_brim(self, path: Path) -> None:
        """Cap the store, then fill the room left in its pages, so that even a small insert finds
        none: a scratch table, and the packet exports (a filler rater's rows: an export's insert is
        small enough to fit the slack of its table's page)."""
        import sqlite3

        conn = sqlite3.connect(str(path))
        conn.execute("CREATE TABLE IF NOT EXISTS test_filler (blob BLOB)")
        conn.commit()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        study = conn.execute("SELECT id FROM studies LIMIT 1").fetchone()[0]
        inserts = [("INSERT INTO test_filler VALUES (zeroblob(?))", lambda n, size: [size]),
                   ("INSERT INTO packet_exports (packet_id, study_id, rater, digest, items, exported_at) "
                    "VALUES (?, ?, 'filler', ?, 0, '')", lambda n, size: [f"filler-{n}", study, "x" * size])]
        n = 0
        for sql, params in inserts:
            size = 4096
            while size >= 1:
                n += 1
                try:
                    conn.execute(sql, params(n, size))
                    conn.commit()
                except sqlite3.OperationalError:
                    conn.rollback()
                    size //= 2
        conn.close()
        self.fill(headroom=0)

    def free(self) -> None:
        self.monkeypatch.setattr(store_db, "_configure", self.original)


@pytest.fixture
def full_store(monkeypatch) -> FullStore:
    return FullStore(monkeypatch)


def symlink_to_dev_full(path: Path) -> None:
    """`path` becomes a file that cannot grow: every write to it fails with ENOSPC. (Only ever
    written through, never replaced: an atomic rename onto /dev/full would replace the device.)"""
    assert os.path.exists("/dev/full")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/full")


def full_temp_files(monkeypatch) -> None:
    """Every file written whole from now on goes through a temporary file that cannot grow (/dev/full)."""
    import workbench.files.whole as whole

    def full_temp(prefix="", suffix="", dir=None):
        path = os.path.join(dir, f"{prefix}full{suffix}")
        os.symlink("/dev/full", path)
        return os.open(path, os.O_WRONLY), path

    monkeypatch.setattr(whole.tempfile, "mkstemp", full_temp)
