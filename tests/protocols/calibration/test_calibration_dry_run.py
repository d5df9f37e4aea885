"""The context check walks a calibration judge's costliest path (issue 40): its retries. A judge reply that does
not parse is asked again with the reply and the reason appended, up to `judge_retries` times, so the last retry
carries every reply before it. The dry run's stand-in for a judge reply is one the parser refuses (the padding, as
long as the reply is measured to be): a stand-in that parsed would end the program at its first call and measure
the smallest prompt. A study whose last retry cannot fit the window is refused at `study create`, before any
call; the same study on a window it fits is created."""

from __future__ import annotations

import pytest

from store import open_store
from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.protocols.calibration import calkit
from workbench.cli.main import main


@pytest.mark.usefixtures("fresh_windows")
@pytest.mark.parametrize("n_ctx, refused", [(700, True), (1400, False)])
def test_the_last_retry_is_held_against_the_window_before_the_first_call(tmp_path, capsys, n_ctx, refused):
    db = tmp_path / "store.db"
    with WindowServer("llama.cpp", n_ctx=n_ctx) as server:
        judges = [{"name": f"judge-{i}", "model": f"openai/judge-{i}", "api_base": server.url} for i in (1, 2, 3)]
        path = calkit.study_file(tmp_path, "cal-window", judges, sample_size=10, extra="judge_retries = 2\n")
        code = main(["--batch", "--db", str(db), "study", "create", str(path)])
        err = capsys.readouterr().err
        assert server.generations == 0 and server.chat_bodies == []
    if refused:   # the first asking alone (about 430 prompt tokens + 256) would fit
        assert code == 1, err
        assert "condition judge-1's largest prompt (judge-2, item " in err and "cannot fit" in err, err
        assert "context window of 700 tokens" in err
        assert open_store(db)["studies"].count == 0
    else:
        assert code == 0, err
        assert "fit" not in err
