"""A batch command piped into a reader that stops early (`workbench --batch … | head`): the reader has what it
wanted, so the command finishes without a traceback, in words, in JSON and in CSV."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [["cases", "list"], ["--json", "cases", "list"],
                                  ["study", "create", "studies/glenda-crock-mock.toml"]],
                         ids=["words", "json", "a command that writes"])
def test_a_reader_that_stops_early_gets_no_traceback(tmp_path, argv):
    db = tmp_path / "store.db"
    read, write = os.pipe()
    os.close(read)                                  # the reader is gone before the command prints a line
    proc = subprocess.run([sys.executable, "-m", "screens.launch", "--batch", "--db", str(db), *argv],
                          cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write)
    assert "Traceback" not in proc.stderr and "Broken pipe" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    if argv[0] == "study":                          # its work was done: the study is in the store
        from store import open_store
        from store.studies import get_study

        assert get_study(open_store(db), "glenda-crock-mock") is not None
