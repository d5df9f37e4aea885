"""A real-terminal smoke test: `workbench` starts inside tmux, paints the Cases list, shows help on `?`,
and quits on ctrl+q. Skipped only where tmux is not installed."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "screens" / "fixtures"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One detached tmux session on a private server socket, so nothing touches the user's tmux."""

    def __init__(self) -> None:
        self.socket = f"wb-smoke-{uuid.uuid4().hex[:10]}"
        self.target = "wb"

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check)

    def start(self, command: str, width: int = 140, height: int = 36) -> None:
        self.tmux("new-session", "-d", "-s", self.target, "-x", str(width), "-y", str(height), command)

    def screen(self) -> str:
        result = self.tmux("capture-pane", "-p", "-t", self.target, check=False)
        return result.stdout if result.returncode == 0 else ""

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.target, check=False).returncode == 0

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def wait_for(self, predicate, what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}; the pane shows:\n{self.screen()}")

    def close(self) -> None:
        self.tmux("kill-server", check=False)


@pytest.fixture
def tmux():
    session = Tmux()
    yield session
    session.close()


def test_workbench_starts_in_a_real_terminal_shows_help_and_quits(tmux, tmp_path):
    cases = tmp_path / "cases"
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURES / "cases", cases)
    shutil.copytree(FIXTURES / "rubrics", rubrics)
    status = tmp_path / "exit-status"
    env = {"PYTHONPATH": str(REPO), "WORKBENCH_CASES_DIR": str(cases), "WORKBENCH_RUBRICS_DIR": str(rubrics),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
    workbench = [sys.executable, "-m", "screens.launch", "--db", str(tmp_path / "store" / "workbench.db")]
    # COLUMNS/LINES (set by pytest's terminal handling) would override the pane's real size.
    command = (f"cd {shlex.quote(str(tmp_path))} && env -u WORKBENCH_DB -u COLUMNS -u LINES "
               + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " "
               + " ".join(shlex.quote(a) for a in workbench)
               + f"; echo $? > {shlex.quote(str(status))}")
    tmux.start(command)

    expected = ("harbor-dredging", "4 cases", "Hindsight Workbench", "1 Cases", "recognized ⚑")
    # the list, the header and the section bar paint in separate frames: wait for all of them
    tmux.wait_for(lambda: all(text in tmux.screen() for text in expected), "the Cases list and the section bar")
    screen = tmux.screen()
    assert "Hindsight Workbench" in screen and "1 Cases" in screen
    assert "recognized ⚑" in screen  # the flagged fixture case

    tmux.keys("?")
    tmux.wait_for(lambda: "Keys on" in tmux.screen(), "the help screen")
    assert "Sections" in tmux.screen()
    tmux.keys("Escape")
    tmux.wait_for(lambda: "Keys on" not in tmux.screen(), "the help screen to close")

    tmux.keys("C-q")
    tmux.wait_for(lambda: not tmux.alive(), "the workbench to exit", timeout=30)
    assert status.read_text().strip() == "0"
    assert (tmp_path / "store" / "workbench.db").exists()
