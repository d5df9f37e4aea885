"""The context check walks the pipeline's costliest path (issue 40): the dry run's stand-ins parse as each stage's
parser expects, after a first reply that does not (its retry measured), and the MetaJudge flags the first verdict
so the Judge is asked again with the reason. Before, the Critic's stand-in failed and the pipeline ended there:
a window the Judge's second asking cannot fit was not seen. It is now refused at `study create`, before any
call; the same study on a window it fits is created."""

from __future__ import annotations

import pytest

from store import open_store
from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.protocols.m11 import m11kit
from tests.protocols.m11.m11kit import EXAMPLE_A, EXAMPLE_B
from tests.protocols.m11.test_m11_end_to_end import STUDY
from workbench.cli.main import main


@pytest.mark.usefixtures("fresh_windows")
@pytest.mark.parametrize("n_ctx, refused", [(1600, True), (4096, False)])
def test_the_judge_asked_again_is_held_against_the_window_before_the_first_call(tmp_path, capsys, n_ctx, refused):
    db = tmp_path / "store.db"
    m11kit.write_items(tmp_path / "items.jsonl", [EXAMPLE_A, EXAMPLE_B])
    study = tmp_path / "m11-window.toml"
    with WindowServer("llama.cpp", n_ctx=n_ctx) as server:
        study.write_text(STUDY.format(name="m11-window", api_base=server.url, runs=1), encoding="utf-8")
        code = main(["--batch", "--db", str(db), "study", "create", str(study)])
        err = capsys.readouterr().err
        assert server.generations == 0 and server.chat_bodies == []
    if refused:
        assert code == 1, err
        assert "condition likert's largest prompt (judge.again1.retry1, item 'seed-a-earbuds') cannot fit" in err, err
        assert "context window of 1,600 tokens" in err
        assert open_store(db)["studies"].count == 0
    else:
        assert code == 0, err
        assert "fit" not in err


def test_stand_ins_parse_as_each_stage_expects():
    from workbench.gateway.api import CallRequest, ModelSettings
    from workbench.protocols.m11 import replies
    from workbench.protocols.m11.dry_run_replies import stand_in
    from workbench.protocols.m11.scoring import CRITERIA

    def reply(turn: str) -> str | None:
        return stand_in(CallRequest(messages=[], settings=ModelSettings(model="mock"), turn=turn),
                        "lorem ipsum dolor " * 60)

    assert reply("critic") is None and reply("judge.again1") is None  # first replies: the padding, unparsed
    weaknesses = replies.critic(reply("critic.retry1"))
    assert len(weaknesses) == replies.MIN_WEAKNESSES
    assert [r["id"] for r in replies.defender(reply("defender.retry1"), weaknesses)] == ["W1", "W2", "W3"]
    assert set(replies.judge(reply("judge.retry1"))["scores"]) == set(CRITERIA)
    assert replies.metajudge(reply("metajudge.retry1"))["sycophantic"] is True      # the Judge asked again
    assert replies.metajudge(reply("metajudge.again1.retry1"))["sycophantic"] is False
    assert replies.binary(reply("binary.retry1"))["verdict"] == "PASS"
