"""The context check walks a debate's costliest path (issue 40): the dry run's stand-ins parse as faultline's
parsers expect (belief graphs of the size asked, QBAF maps with a crux, crux cards, claims, stances), after a
first reply that does not (its retry, carrying it, measured too). A graph condition whose graph step cannot fit
the window is refused at `study create` before any call; the same study on a window it fits is created."""

from __future__ import annotations

import pytest

from store import open_store
from tests.faults.window_server import WindowServer, fresh_windows  # noqa: F401  (the fixture)
from tests.protocols.faultline.faultline_kit import make_study
from tests.protocols.faultline.test_faultline_end_to_end import cli, write_study


@pytest.mark.usefixtures("fresh_windows")
@pytest.mark.parametrize("n_ctx, refused", [(1024, True), (16384, False)])
def test_a_graph_condition_is_held_against_the_window_before_the_first_call(tmp_path, capsys, n_ctx, refused):
    db = tmp_path / "s.db"
    with WindowServer("llama.cpp", n_ctx=n_ctx) as server:
        path = write_study(tmp_path, server, name="fl-window", conditions=("graph-20",))
        code = cli(db, "study", "create", str(path))
        err = capsys.readouterr().err
        assert server.generations == 0 and server.chat_bodies == []
    if refused:   # the 20-node graph asks 1,200 tokens: no debate prompt alone would have refused it
        assert code == 1, err
        assert "condition graph-20's largest prompt (graph:" in err and "cannot fit" in err, err
        assert "context window of 1,024 tokens" in err
        assert open_store(db)["studies"].count == 0
    else:
        assert code == 0, err
        assert "cannot fit" not in err


def test_the_dry_run_reaches_graphs_cruxes_and_every_extraction(tmp_path):
    """Measured with the stand-ins: each persona's graph built (first reply unparsed, its retry parsed), every
    round's QBAF map, the crux cards and the extraction reached."""
    from workbench.runs.dry_run import largest_prompts

    db, _, sid, d = make_study(tmp_path, conditions=("qbaf-20",), rounds=2)
    turns = {p.turn.split(",")[0]: p for p in largest_prompts(db, sid, d)}
    assert {"graph:tech-optimist:20", "graph:tech-optimist:20:retry", "graph:precautionary-ethicist:20:retry",
            "qbaf-r1:retry", "qbaf-r2:retry", "crux-cards:retry", "claims:B-close:retry",
            "stance:tech-optimist:closing:retry"} <= set(turns)
    assert "A-r2" in turns and "B-close" in turns
    assert turns["A-open"].short_replies > 20 * 3  # the persona reads its twenty node lines


def test_stand_ins_parse_as_each_step_expects():
    from workbench.gateway.api import CallRequest, ModelSettings
    from workbench.protocols.faultline import parsing, schemas
    from workbench.protocols.faultline.dry_run_replies import stand_in
    from workbench.structured.reply_object import reply_object

    def reply(schema: dict, turn: str = "step:retry") -> dict | None:
        text = stand_in(CallRequest(messages=[], settings=ModelSettings(model="mock"), turn=turn,
                                    response_schema=schema), "lorem ipsum dolor " * 80)
        return None if text is None else reply_object(text)

    assert reply(schemas.claims_schema(), turn="claims:A-open") is None  # a first reply: the padding, unparsed
    assert len(parsing.belief_graph(reply(schemas.belief_graph_schema(20)), 20)["nodes"]) == 20
    arguments, _ = parsing.qbaf(reply(schemas.qbaf_schema(["a", "b"], ["A-r1"])), ["a", "b"])
    assert len(arguments) == schemas.MAX_ARGUMENTS and arguments[0]["base"] == {"a": 0.0, "b": 1.0}
    cards = parsing.crux_cards(reply(schemas.crux_cards_schema(["A-r1", "B-r1"])))
    assert len(cards) == schemas.MAX_CARDS and all(c["messages"] == ["A-r1", "B-r1"] for c in cards)
    assert len(parsing.claims(reply(schemas.claims_schema()))) == 3
    assert dict(parsing.stances(reply(schemas.stances_schema(["x", "y"])), ["x", "y"])) == {"x": 1, "y": 1}
