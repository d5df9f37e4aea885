"""The context check walks the costliest path (issue 40): the dry run's stand-in replies parse as a committee's
parsers expect (a seconded motion, an amendment in every debate speech, ayes), so C2's largest prompt (its
resolution, after every debate round and amendment vote) is measured, and a window it cannot fit refuses the
study before the first call. With stand-ins nobody seconds, every motion died and the largest prompt measured
was half as long: this study was created without a word."""

from __future__ import annotations

import pytest

from store import open_store
from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.hardening.conftest import batch, cases_dir, study_toml  # noqa: F401  (cases_dir: the fixture)

pytestmark = pytest.mark.usefixtures("fresh_windows")


def c2_study(tmp_path, url: str, max_tokens: int) -> str:
    text = study_toml(("C2",)).replace('name = "mock"\napi_base = ""', f'name = "openai/local"\napi_base = "{url}"', 1)
    path = tmp_path / "c2.toml"
    path.write_text(text.replace("max_tokens = 1024", f"max_tokens = {max_tokens}"))
    return str(path)


def test_c2_that_cannot_fit_after_its_debate_is_refused_before_the_first_call(tmp_path, cases_dir, capsys):
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=2048) as server:
        code, _, err = batch(capsys, db, "study", "create", c2_study(tmp_path, server.url, max_tokens=1000))
        assert code == 1, err
        assert "condition C2's largest prompt (resolution, item 'glenda-crock') cannot fit" in err, err
        assert "context window of 2,048 tokens" in err
        assert server.generations == 0 and server.chat_bodies == []
    assert open_store(db)["studies"].count == 0


def test_the_dry_run_reaches_every_debate_round_and_amendment_vote():
    """The stand-ins, read by C2's own parsers: a second, a vote, a motion and an amendment of the speaker's."""
    from workbench.gateway.api import CallRequest, ModelSettings
    from workbench.protocols.hindsight.architectures.dry_run_replies import stand_in
    from workbench.protocols.hindsight.architectures.lines import first_tagged, parse_amendments
    from workbench.protocols.hindsight.architectures.motion_replies import parse_second, parse_vote

    def reply(turn: str) -> str:
        request = CallRequest(messages=[], settings=ModelSettings(model="mock"), turn=turn)
        return stand_in(request, "lorem ipsum " * 20)

    assert parse_second(reply("second-amendment-2:examiner")) is True
    assert parse_vote(reply("vote-amendment-1:examiner"))[0] == "aye"
    assert first_tagged(reply("motion-2"), "MOTION") == "the motion of motion-2"
    debate = [parse_amendments(reply(f"debate-{r}:{m}")) for r in (1, 2) for m in ("a", "b")]
    assert all(len(a) == 1 for a in debate) and len({a[0] for a in debate}) == 4  # each its own
    assert reply("opening:a") is None  # free prose: the padding as it is
