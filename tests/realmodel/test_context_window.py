"""A server started with its defaults (llama-cpp-python: a 2,048-token window, reported nowhere): a study that
cannot fit is refused at `study create`, before the server generates a single token, with the window named.
The smallest study that proves it: hindsight-local's B1 alone, with a max_tokens the window cannot hold."""

from __future__ import annotations

import pytest

from tests.realmodel.kit import Workbench
from tests.realmodel.server import start_server

pytestmark = pytest.mark.realmodel


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    s = start_server(tmp_path_factory.mktemp("llama-server-default"), n_ctx=None)
    yield s
    s.stop()


def test_a_study_that_cannot_fit_the_default_window_is_refused_before_any_generation(tmp_path, default_server):
    workbench = Workbench(tmp_path, default_server)
    text = workbench.study_file("hindsight-local").read_text()
    text = text.replace('conditions = ["B1", "C1"]', 'conditions = ["B1"]').replace("max_tokens = 120",
                                                                                  "max_tokens = 2000", 1)
    study = tmp_path / "too-big.toml"
    study.write_text(text)
    proc = workbench.run("study", "create", str(study), ok=(1,))
    assert "context window of 2,048 tokens" in proc.stderr, proc.stderr
    assert "llama-cpp-python" in proc.stderr and "--n_ctx" in proc.stderr
    assert default_server.generations() == 0  # the window was learned from a refusal, not a generation
